// The engine every provider shares: successive desired sets in, FleetEvents out. Each candidate
// lives on its own (a slow or unreachable one is retried on a timer and holds back no other), every
// wait has a timeout, clients it built are closed on disengage and on unsubscribe, and nothing is
// emitted after unsubscribe (the fleet reads unsubscribe as "disengage everything").
import type { Observable, ObservableInput, OperatorFunction, SchedulerLike, Subscription } from 'rxjs';
import { catchError, defer, filter, from, map, Observable as RxObservable, of, repeat, take, tap, timeout, timer } from 'rxjs';
import type { Cluster, FleetEvent } from '../../client/cluster.js';
import { disengaged, engaged } from '../../client/cluster.js';
import type { ClusterName } from '../../core/cluster.js';
import type { Either } from '../../internal/fp.js';
import { E } from '../../internal/fp.js';
import type { Candidate, Desired } from './candidates.js';
import { diffDesired } from './candidates.js';
import type { Reporter } from './report.js';

/**
 * First contact with a built cluster: `Right` once it answers, `Left` (why not) otherwise.
 *
 * @example
 * ```ts
 * const probe: Probe = (c) => c.client.raw({ method: 'GET', path: '/version' }).then((r) => (E.isRight(r) ? E.right(true) : E.left(r.left.message)));
 * ```
 */
export type Probe = (cluster: Cluster) => ObservableInput<Either<string, unknown>>;

/**
 * When to engage and how to retry: the options of {@link engageCandidates}.
 *
 * @example
 * ```ts
 * const cfg: EngageConfig = { say, scheduler: asyncScheduler, probe: contactProbe(10_000), probeTimeout: 10_000, retryInterval: 30_000, removedReason: 'gone' };
 * ```
 */
export interface EngageConfig {
  readonly say: Reporter;
  readonly scheduler: SchedulerLike;
  /** Checked before engaging; `undefined` engages at once. */
  readonly probe: Probe | undefined;
  /** A probe answer slower than this counts as a failure (ms). */
  readonly probeTimeout: number;
  /** Delay before a failed probe is tried again (ms). */
  readonly retryInterval: number;
  /** The reason given when a candidate disappears from the desired set. */
  readonly removedReason: string;
}

interface Slot {
  readonly candidate: Candidate;
  cluster?: Cluster;
  engaged: boolean;
  attempt?: Subscription;
}

/** Probes until the cluster answers: each try is cut at `probeTimeout`, failures wait `retryInterval`. */
function untilAnswered(cluster: Cluster, cfg: EngageConfig, probe: Probe): Observable<unknown> {
  const once = defer(() => from(probe(cluster))).pipe(
    take(1),
    timeout({ first: cfg.probeTimeout, scheduler: cfg.scheduler, with: () => of(E.left(`no answer within ${cfg.probeTimeout} ms`)) }),
    catchError((err: unknown) => of(E.left(err instanceof Error ? err.message : String(err)))),
    tap((r) => {
      if (E.isLeft(r)) cfg.say({ type: 'waiting', cluster: cluster.name, reason: `${r.left}; retrying in ${cfg.retryInterval} ms` });
    }),
  );
  return once.pipe(
    repeat({ delay: () => timer(cfg.retryInterval, cfg.scheduler) }),
    filter(E.isRight),
    take(1),
  );
}

/**
 * Turns successive desired sets into FleetEvents: engages added candidates, disengages removed
 * ones, and replaces (disengaged, then engaged with a new client) those whose fingerprint changed.
 * A candidate whose build fails is reported as skipped, once per reason. The source completing
 * leaves the engaged clusters engaged; its errors are reported, never forwarded.
 *
 * @example
 * ```ts
 * desiredSets.pipe(engageCandidates({ say, scheduler, probe: undefined, probeTimeout: 10_000, retryInterval: 30_000, removedReason: 'gone' }));
 * ```
 * @param cfg - reporting, probing and timing.
 * @returns the operator.
 */
export function engageCandidates(cfg: EngageConfig): OperatorFunction<Desired, FleetEvent> {
  return (source) =>
    new RxObservable<FleetEvent>((subscriber) => {
      const slots = new Map<ClusterName, Slot>();
      let current: Desired = new Map();

      const release = (slot: Slot): void => {
        slot.attempt?.unsubscribe();
        if (slot.cluster !== undefined && slot.candidate.owned !== false) slot.cluster.client.close();
      };
      const drop = (name: ClusterName, reason: string): boolean => {
        const slot = slots.get(name);
        if (slot === undefined) return false;
        slots.delete(name);
        release(slot);
        if (!slot.engaged) return false;
        subscriber.next(disengaged(name, reason));
        cfg.say({ type: 'disengaged', cluster: name, reason });
        return true;
      };
      const engage = (slot: Slot, cluster: Cluster, replaced: string | undefined): void => {
        slot.engaged = true;
        subscriber.next(engaged(cluster));
        cfg.say(replaced === undefined ? { type: 'engaged', cluster: cluster.name } : { type: 'reengaged', cluster: cluster.name, reason: replaced });
      };
      const start = (c: Candidate, wasKnown: boolean): void => {
        const built = c.build();
        if (E.isLeft(built)) {
          drop(c.name, `skipped: ${built.left}`);
          slots.set(c.name, { candidate: c, engaged: false });
          cfg.say({ type: 'skipped', candidate: c.name, reason: built.left });
          return;
        }
        const replaced = wasKnown && drop(c.name, 'credentials or server changed') ? 'credentials or server changed' : undefined;
        const slot: Slot = { candidate: c, cluster: built.right, engaged: false };
        slots.set(c.name, slot);
        if (cfg.probe === undefined) {
          engage(slot, built.right, replaced);
          return;
        }
        slot.attempt = untilAnswered(built.right, cfg, cfg.probe).subscribe(() => {
          engage(slot, built.right, replaced);
        });
      };

      const sub = source.subscribe({
        next: (next) => {
          const diff = diffDesired(current, next);
          current = next;
          for (const name of diff.removed) drop(name, cfg.removedReason);
          for (const c of diff.changed) start(c, true);
          for (const c of diff.added) start(c, false);
        },
        error: (err: unknown) => {
          cfg.say({ type: 'error', reason: `discovery failed: ${err instanceof Error ? err.message : String(err)}` });
        },
      });
      return () => {
        sub.unsubscribe();
        for (const slot of slots.values()) release(slot);
        slots.clear();
      };
    });
}

/**
 * The default first-contact probe: `GET /version`, cut at `timeoutMs`. Any HTTP answer but 401
 * counts as contact (a 403 or 404 still proves the server is there and knows the credentials); 401,
 * TLS failures, unreachable servers and timeouts do not.
 *
 * @example
 * ```ts
 * engageCandidates({ ...cfg, probe: contactProbe(10_000) });
 * ```
 * @param timeoutMs - socket timeout of the request.
 * @returns the probe.
 */
export function contactProbe(timeoutMs: number): Probe {
  return (cluster) =>
    defer(() => cluster.client.raw({ method: 'GET', path: '/version', timeoutMs })).pipe(
      map((r) => {
        if (E.isRight(r)) return E.right(true);
        const failed = r.left._tag === 'Unauthorized' || r.left._tag === 'Tls' || r.left._tag === 'ClusterUnreachable' || r.left._tag === 'Transient' || r.left._tag === 'Timeout';
        return failed ? E.left(r.left.message) : E.right(true);
      }),
    );
}
