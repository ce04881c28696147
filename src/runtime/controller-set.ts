// The controllers of a run as a set that may change while it runs (`RunHandle.add`, `remove`): each
// one's pipeline on the run's shared fleet, informers, health and lifecycle, with its own queue,
// logger and metrics. A removed controller's input ends, its running and ready keys finish (within
// the run's shutdown deadline; then they are aborted) and its declared watches are released; the
// others go on with their caches, the probe server and the Lease. The merged outcomes end once a
// stop was requested and every pipeline drained.
import type { Logger } from 'pino';
import type { Observable } from 'rxjs';
import { Subject, finalize, from, merge, mergeMap, switchMap, takeUntil, tap, timer } from 'rxjs';
import { ConfigError } from '../core/config-error.js';
import type { KubeObject } from '../core/object.js';
import type { Outcome } from '../operators/types.js';
import type { WatchSpec } from './cluster-keeper.js';
import type { Controller } from './controller.js';
import type { ControllerParts, PipelineMetrics, SharedRunParts } from './run-controller.js';
import { controllerPipeline } from './run-controller.js';
import { logOutcome } from './run-parts.js';

/**
 * What a {@link controllerSet} needs from its run.
 *
 * @example
 * ```ts
 * const parts: ControllerSetParts = { shared, specsChanged, own, left: () => undefined, running: (n: number) => life.running(n), deadlineMs: 30_000, canJoin: () => undefined };
 * ```
 */
export interface ControllerSetParts {
  /** The run's shared parts; `specs` is every member's declared watches (what the cluster keeper keeps). */
  readonly shared: SharedRunParts;
  /** Told after `shared.specs` changed because a controller joined or left. */
  readonly specsChanged: Subject<void>;
  /** A member's logger and metrics (`first`: one of the controllers the run started with). */
  readonly own: (c: Controller<KubeObject>, first: boolean) => { readonly logger: Logger; readonly metrics: PipelineMetrics };
  /** Told when a member left (removed and drained): its metrics are no longer served. */
  readonly left: (c: Controller<KubeObject>) => void;
  /** Where refused keys are reported. */
  readonly health?: ControllerParts['health'];
  /** The number of running reconciles of every member, on each change. */
  readonly running: (n: number) => void;
  /** How long a removed controller's running keys may take before they are aborted. */
  readonly deadlineMs: number;
  /** Throws (a ConfigError) when a controller cannot join the run while it runs. */
  readonly canJoin: (c: Controller<KubeObject>) => void;
}

/**
 * A run's controllers.
 *
 * @example
 * ```ts
 * const set = controllerSet(parts, controllers);
 * life.own(set.outcomes.subscribe());
 * ```
 */
export interface ControllerSet {
  /** Every member's outcomes; completes when a stop was requested and every pipeline drained. */
  readonly outcomes: Observable<Outcome>;
  /** Starts more controllers (ignored once a stop was requested). @throws ConfigError when one cannot join. */
  add(controllers: readonly Controller<KubeObject>[]): void;
  /** Stops the named members; resolves once they drained (names not in the set are ignored). */
  remove(names: readonly string[]): Promise<void>;
  /** The members' names now. */
  names(): readonly string[];
}

interface State {
  running: number;
  removing: boolean;
}

interface Member extends State {
  readonly pipeline: Observable<Outcome>;
  readonly removed: Subject<void>;
  readonly drained: Promise<void>;
}

/**
 * The set of a run's controllers, starting with `first` (their pipelines are built at once, so their
 * watches are declared before any cluster engages).
 *
 * @example
 * ```ts
 * const set = controllerSet(parts, runControllers(c));
 * set.add([another]);
 * await set.remove([another.name]);
 * ```
 * @param parts - what the members share.
 * @param first - the controllers the run starts with.
 * @returns the set.
 */
export function controllerSet(parts: ControllerSetParts, first: readonly Controller<KubeObject>[]): ControllerSet {
  const { shared } = parts;
  const members = new Map<string, Member>();
  const joined = new Subject<Member>();
  let stopping = false;
  const total = (): number => [...members.values()].reduce((a, m) => a + m.running, 0);
  const member = (c: Controller<KubeObject>, isFirst: boolean): Member => {
    const specs: WatchSpec[] = [];
    const removed = new Subject<void>();
    let drainedNow = (): void => undefined;
    const drained = new Promise<void>((resolve) => {
      drainedNow = resolve;
    });
    const state: State = { running: 0, removing: false };
    const own = parts.own(c, isFirst);
    // eslint-disable-next-line @typescript-eslint/no-deprecated -- folded into the run's one per-cluster limiter
    const { rateLimit: _legacy, ...sinkOptions } = c.sinks ?? {};
    const onDepth = (n: number): void => {
      state.running = n;
      parts.running(total());
    };
    const pipeline = controllerPipeline(c, { ...shared, specs, stopRequested: merge(shared.stopRequested, removed) }, { logger: own.logger, metrics: own.metrics, sinkOptions, onDepth, ...(parts.health === undefined ? {} : { health: parts.health }) }).pipe(
      tap((o) => {
        logOutcome(own.logger, o);
      }),
      // A removal that outlasts the deadline aborts what still runs, as a stop's deadline does.
      takeUntil(removed.pipe(switchMap(() => timer(parts.deadlineMs, shared.scheduler)))),
      finalize(() => {
        state.running = 0;
        parts.running(total());
        if (state.removing) {
          if (members.get(c.name) === m) members.delete(c.name);
          for (const s of specs) {
            const i = shared.specs.indexOf(s);
            if (i >= 0) shared.specs.splice(i, 1);
          }
          parts.specsChanged.next();
          parts.left(c);
        }
        drainedNow();
      }),
    );
    const m: Member = Object.assign(state, { pipeline, removed, drained });
    shared.specs.push(...specs);
    members.set(c.name, m);
    return m;
  };
  const initial = first.map((c) => member(c, true));
  const stopNow = shared.stopRequested.pipe(
    tap(() => {
      stopping = true;
    }),
  );
  return {
    outcomes: merge(from(initial), joined).pipe(
      takeUntil(stopNow),
      mergeMap((m) => m.pipeline),
    ),
    add(controllers) {
      if (stopping) return;
      const taken = new Set(members.keys());
      for (const c of controllers) {
        parts.canJoin(c);
        if (taken.has(c.name)) throw new ConfigError(`run: a controller named "${c.name}" already runs; remove it first (names label metrics and logs)`);
        taken.add(c.name);
      }
      const added = controllers.map((c) => member(c, false));
      parts.specsChanged.next();
      for (const m of added) joined.next(m);
    },
    async remove(names) {
      const leaving = names.flatMap((n) => members.get(n) ?? []);
      for (const m of leaving) {
        if (m.removing) continue;
        m.removing = true;
        m.removed.next();
      }
      await Promise.all(leaving.map((m) => m.drained));
    },
    names: () => [...members.keys()],
  };
}
