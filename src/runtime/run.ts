// Running a controller: provider → fleet → shared informers → inputs → reconcile → sinks, with
// health, metrics, logs, and a graceful stop. The order of teardown matters: the input stops
// first (reconcile drains), the watches and the provider stay up until the drain ends (in-flight
// reconciles still read caches and write through the fleet), then everything is unsubscribed.
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { Observable, SchedulerLike, Subscription } from 'rxjs';
import { asyncScheduler, catchError, distinctUntilChanged, EMPTY, filter, finalize, identity, ignoreElements, merge, mergeMap, NEVER, Subject, takeUntil, tap, timer } from 'rxjs';
import type { Cluster } from '../client/cluster.js';
import type { ClusterName } from '../core/cluster.js';
import type { ObjectKey } from '../core/key.js';
import { formatKey } from '../core/key.js';
import type { KubeObject } from '../core/object.js';
import type { ResourceDescriptor } from '../core/resource.js';
import { resourceId } from '../core/resource.js';
import { reconcile } from '../operators/reconcile.js';
import type { Outcome, ReconcileContext, ReconcileRequest } from '../operators/types.js';
import { sinkContext } from '../sinks/context.js';
import type { Fleet } from '../streams/fleet.js';
import { createFleet } from '../streams/fleet.js';
import { fleetWatch } from '../streams/fleet-watch.js';
import type { Store } from '../streams/store.js';
import { createInformers } from '../streams/informers.js';
import type { Controller, ControllerContext, ControllerSource, ControllerWatchOptions, FleetWatcher } from './controller.js';
import type { StopReason } from './errors.js';
import { ConfigError, exitCodes } from './errors.js';
import type { HealthView } from './health.js';
import { healthTracker, unservedMessage } from './health.js';
import type { ProbeServerOptions } from './http.js';
import { startProbeServer } from './http.js';
import { instrumentedFleet } from './instrument.js';
import { controllerLogger, defaultLogger } from './logging.js';
import type { ControllerMetrics } from './metrics.js';
import { controllerMetrics } from './metrics.js';
import type { SignalTarget } from './signals.js';
import { onStopSignals } from './signals.js';

/**
 * Options of {@link run}.
 *
 * @example
 * ```ts
 * const opts: RunOptions = { http: { port: 8081 }, shutdownDeadlineMs: 10_000, logger: pino() };
 * ```
 */
export interface RunOptions {
  /** The root logger (default: JSON to stderr, level from `LOG_LEVEL`). */
  readonly logger?: Logger;
  /** The probe and metrics server, or `false` for none. Default `{ host: '127.0.0.1', port: 0 }`. */
  readonly http?: ProbeServerOptions | false;
  /** Stop gracefully on SIGTERM/SIGINT (a second signal stops at once). Default `true` (`process`). */
  readonly signals?: boolean | SignalTarget;
  /** How long a graceful stop waits for in-flight reconciles before aborting them. Default 30 000 ms. */
  readonly shutdownDeadlineMs?: number;
  /** Drives the queue's timers, the watches and the deadline. Default `asyncScheduler`. */
  readonly scheduler?: SchedulerLike;
  /** Register the metrics here instead of on a fresh registry (to serve several controllers). */
  readonly registry?: Registry;
  /** Called with every finished reconcile from the very first (before `run` resolves). Must not throw. */
  readonly onOutcome?: (outcome: Outcome) => void;
}

/**
 * How a run ended.
 *
 * @example
 * ```ts
 * const r: RunResult = await handle.done;
 * process.exitCode = r.code;
 * ```
 */
export interface RunResult {
  /** Why the run ended. */
  readonly reason: StopReason;
  /** The process exit code for `reason` (see {@link exitCodes}). */
  readonly code: number;
  /** What happened, in one sentence (also logged). */
  readonly message: string;
  /** Reconciles aborted by the deadline (0 unless `reason` is `deadline`). */
  readonly aborted: number;
}

/**
 * A running controller.
 *
 * @example
 * ```ts
 * const handle = await run(c);
 * console.log(`probes on ${handle.url ?? 'nowhere'}`);
 * const result = await handle.stop();
 * ```
 */
export interface RunHandle {
  /** The controller's name. */
  readonly name: string;
  /** `http://127.0.0.1:<port>` of the probe server, when there is one. */
  readonly url: string | undefined;
  /** Readiness and per-cluster health, as served on /readyz. */
  readonly health: HealthView;
  /** The metrics, as served on /metrics. */
  readonly metrics: ControllerMetrics;
  /** Every finished reconcile from now on (hot: see `RunOptions.onOutcome` for all of them). Completes at the end. */
  readonly outcomes: Observable<Outcome>;
  /** The live fleet. */
  readonly fleet: Fleet;
  /** Stops taking new work, lets running reconciles finish within the deadline, then tears down. */
  stop(options?: { readonly deadlineMs?: number }): Promise<RunResult>;
  /** Resolves when the run has ended and everything is released. Never rejects. */
  readonly done: Promise<RunResult>;
}

interface WatchSpec {
  readonly resource: ResourceDescriptor;
  readonly options: ControllerWatchOptions<KubeObject>;
}

const selected = (spec: WatchSpec, cluster: Cluster): boolean => spec.options.clusters?.(cluster) ?? true;

// The fleet as a given watch sees it: only the clusters it selects.
function narrowed(fleet: Fleet, spec: WatchSpec): Fleet {
  if (spec.options.clusters === undefined) return fleet;
  return { ...fleet, engagements: fleet.engagements.pipe(filter((e) => selected(spec, e.cluster))) };
}

function describeCause(cause: unknown): string {
  if (typeof cause === 'object' && cause !== null && 'message' in cause && typeof cause.message === 'string') return cause.message;
  return String(cause);
}

/**
 * Runs a controller until it is stopped (by {@link RunHandle.stop} or a signal). On start: the
 * probe server listens, the provider is subscribed, each engaged cluster gets its watches (shared
 * informers) and a child logger, and keys flow into `reconcile` (the primary ones from the
 * controller's `source` instead of a watch when it has one, with `req.object` from its `lookup`).
 * A cluster whose watch fails (no route, 401/403, the resource not served there) is reported
 * unhealthy with what to fix; the others keep working. On stop: the input ends, running and ready keys finish (retries are dropped), and
 * after `shutdownDeadlineMs` whatever still runs is aborted; then the watches, the provider (which
 * disengages every cluster) and the server are released.
 *
 * @example
 * ```ts
 * const handle = await run(c, { http: { port: 8081 } });
 * await firstValueFrom(handle.health.changes.pipe(filter((r) => r.ready)));
 * const result = await handle.stop();
 * console.log(result.reason, result.code); // 'clean' 0
 * ```
 * @see main to run and exit with the result's code.
 * @param c - the controller.
 * @param options - logger, probe server, signals, shutdown deadline, scheduler.
 * @returns the handle once the server listens and the pipeline is subscribed.
 * @throws ConfigError (as a rejection) when the probe server's port cannot be bound.
 */
export async function run<T extends KubeObject>(c: Controller<T>, options: RunOptions = {}): Promise<RunHandle> {
  const scheduler = options.scheduler ?? asyncScheduler;
  const deadlineMs = options.shutdownDeadlineMs ?? 30_000;
  const log = controllerLogger(options.logger ?? defaultLogger(), c.name);
  const metrics = controllerMetrics(c.name, options.registry);
  const health = healthTracker();

  const http = options.http === false ? undefined : options.http ?? {};
  const server =
    http === undefined
      ? undefined
      : await startProbeServer(health, metrics.registry, http).catch((err: unknown) => {
          throw new ConfigError(`controller "${c.name}": cannot serve probes on ${http.host ?? '127.0.0.1'}:${http.port ?? 0} (${describeCause(err)}); pass another \`http.port\` or \`http: false\``);
        });

  const fleet = createFleet(c.provider);
  const informers = createInformers({ ...c.watchConfig, scheduler });
  const specs: WatchSpec[] = [];
  const watch: FleetWatcher = (resource, opts = {}) => {
    const spec: WatchSpec = { resource, options: opts as ControllerWatchOptions<KubeObject> };
    specs.push(spec);
    const { clusters: _c, ...selection } = opts;
    return fleetWatch(narrowed(fleet, spec), resource, { ...selection, informers });
  };
  const sinks = sinkContext({ ...c.sinks, fleet: instrumentedFleet(fleet, (cl, verb, result) => {
      metrics.write(cl, verb, result);
    }), fieldManager: c.fieldManager, scheduler });

  const primaryOptions = c.watch ?? {};
  const storeOf = (name: ClusterName): Store<T> | undefined => {
    const cluster = fleet.get(name);
    if (cluster === undefined || !selected({ resource: c.resource, options: primaryOptions as ControllerWatchOptions<KubeObject> }, cluster)) return undefined;
    return informers.informer(cluster, c.resource, primaryOptions).store;
  };
  // With a source, no primary watch is opened: its events are the primary stream, its lookup the reads.
  const source: ControllerSource<T> | undefined = c.source;
  // Keyed events of a listing arrive once the store holds it (toKeyedEvents), so lookup reads the store.
  const primary = (source === undefined ? watch(c.resource, primaryOptions) : source.events).pipe(c.filter ?? identity);
  // How the source's readiness shows among a cluster's watches (distinct from a watch of the same resource).
  const sourceId = `${resourceId(c.resource)} (source)`;
  const { synced: sourceSynced } = source ?? {};
  const extra = c.inputs?.({ watch, fleet, informers, sinks, log }) ?? [];

  // Keeps every watch of an engaged cluster open (so caches outlive the input during a drain) and
  // turns its health into readiness, metrics and logs.
  const keeper = fleet.engagements.pipe(
    mergeMap(({ cluster, lifetime }) => {
      const mine = specs.filter((s) => selected(s, cluster));
      const ids = [...new Set(mine.map((s) => resourceId(s.resource)))];
      const clog = log.child({ cluster: cluster.name });
      // The source counts for readiness where it serves and can say whether it has synced.
      const fromSource = sourceSynced !== undefined && (source?.clusters?.(cluster) ?? true) ? sourceSynced : undefined;
      const expected = fromSource === undefined ? ids : [...ids, sourceId];
      health.engage(cluster.name, expected);
      metrics.engaged(fleet.clusters().length);
      clog.info({ labels: cluster.labels ?? {}, watches: expected }, 'cluster engaged');
      const perWatch = mine.map((s) => {
        const inf = informers.informer(cluster, s.resource, s.options);
        return merge(
          inf.events.pipe(ignoreElements()),
          inf.health.pipe(
            tap((h) => {
              const before = health.watch(h);
              metrics.watch(h, before);
              if (h.synced && before?.synced !== true) clog.info({ resource: h.resource }, 'cache synced');
              if (h.state === 'backingOff' && before?.state !== 'backingOff') {
                const err = h.lastError;
                if (err?._tag === 'NotFound' && !h.synced) clog.error({ resource: h.resource }, `cluster unhealthy: ${unservedMessage(h.resource)}`);
                else clog.warn({ resource: h.resource, error: err?._tag, reason: err?.message }, 'watch failing, retrying with backoff');
              }
              if (h.state === 'connected' && before?.state === 'backingOff') clog.info({ resource: h.resource }, 'watch recovered');
            }),
            ignoreElements(),
          ),
        );
      });
      const sourceHealth =
        fromSource === undefined
          ? EMPTY
          : fromSource(cluster.name).pipe(
              distinctUntilChanged(),
              tap((synced) => {
                // Not a watch of the runtime's: no metrics, but the same place in the report.
                const before = health.watch({ cluster: cluster.name, resource: sourceId, state: synced ? 'connected' : 'listing', synced, relists: 0, reconnects: 0 });
                if (synced) clog.info({ resource: sourceId }, 'source synced');
                else if (before?.synced === true) clog.warn({ resource: sourceId }, 'source no longer synced');
              }),
              catchError((err: unknown) => {
                health.watch({ cluster: cluster.name, resource: sourceId, state: 'listing', synced: false, relists: 0, reconnects: 0 });
                clog.error({ resource: sourceId, reason: describeCause(err) }, 'source readiness failed; the cluster stays not ready');
                return EMPTY;
              }),
              ignoreElements(),
            );
      // NEVER keeps a cluster that no watch selects (e.g. a downstream target) tracked until its
      // lifetime ends; an empty merge would complete at once and report it disengaged.
      return merge(NEVER, sourceHealth, ...perWatch).pipe(
        takeUntil(lifetime),
        finalize(() => {
          health.disengage(cluster.name);
          metrics.forget(cluster.name, ids);
          metrics.engaged(fleet.clusters().length);
          clog.info('cluster disengaged');
        }),
      );
    }),
  );

  const wrapped = (req: ReconcileRequest<T>, ctx: ReconcileContext): ReturnType<Controller<T>['reconcile']> => {
    // The engine's context computes log and signal lazily (getters): delegate, do not spread.
    const full: ControllerContext = {
      fleet,
      sinks,
      attempt: ctx.attempt,
      get log() {
        return ctx.log;
      },
      get signal() {
        return ctx.signal;
      },
    };
    return c.reconcile(req, full);
  };
  const lookup = source?.lookup ?? ((key: ObjectKey): T | undefined => storeOf(key.cluster)?.get(key));

  const stopRequested = new Subject<void>();
  const outcomes = new Subject<Outcome>();
  let running = 0;
  let finished = false;
  // Read through a function: `finish` runs in callbacks, which flow analysis does not see.
  const ended = (): boolean => finished;
  let resolveDone: (r: RunResult) => void = () => undefined;
  const done = new Promise<RunResult>((resolve) => {
    resolveDone = resolve;
  });
  const subs: Subscription[] = [];
  let uninstallSignals: () => void = () => undefined;

  const finish = (reason: StopReason, message: string, aborted = 0): void => {
    if (finished) return;
    finished = true;
    health.phase('stopped');
    for (const s of subs.splice(0).reverse()) s.unsubscribe();
    uninstallSignals();
    outcomes.complete();
    const result: RunResult = Object.freeze({ reason, code: exitCodes[reason], message, aborted });
    const level = reason === 'clean' ? 'info' : 'error';
    log[level]({ reason, code: result.code, aborted }, `stopped: ${message}`);
    void (server?.close() ?? Promise.resolve()).then(() => {
      resolveDone(result);
    });
  };

  let stopping = false;
  const stop = (opts: { readonly deadlineMs?: number } = {}): Promise<RunResult> => {
    const limit = opts.deadlineMs ?? deadlineMs;
    if (!stopping) {
      stopping = true;
      health.phase('stopping');
      log.info({ running, deadlineMs: limit }, 'stopping: no new work; waiting for running reconciles');
      stopRequested.next();
    }
    if (!finished) {
      const cut = (): void => {
        finish('deadline', `the shutdown deadline (${limit} ms) cut ${running} running reconcile(s); they were aborted`, running);
      };
      if (limit <= 0) cut();
      else subs.push(timer(limit, scheduler).subscribe(cut));
    }
    return done;
  };

  subs.push(
    keeper.subscribe({
      error: (err: unknown) => {
        health.broken();
        finish('failed', `the provider failed: ${describeCause(err)}`);
      },
    }),
  );
  subs.push(
    merge(primary, ...extra)
      .pipe(
        takeUntil(stopRequested),
        reconcile<T>(wrapped, {
          ...c.queue,
          lookup,
          fleet,
          logger: log,
          scheduler,
          onDepth: (d) => {
            running = d.running;
            metrics.depth(d);
          },
        }),
      )
      .subscribe({
        next: (o) => {
          metrics.outcome(o);
          const fields = { cluster: o.cluster, key: formatKey(o.key), result: o.result, attempt: o.attempt, ms: o.duration };
          if (o.result === 'error') log.warn({ ...fields, retryIn: o.retryIn, reason: describeCause(o.error) }, 'reconcile failed');
          else if (o.result === 'terminal') log.error({ ...fields, reason: describeCause(o.error) }, 'reconcile failed for good (terminal)');
          else log.debug(fields, 'reconciled');
          options.onOutcome?.(o);
          outcomes.next(o);
        },
        error: (err: unknown) => {
          health.broken();
          finish('failed', `the pipeline failed: ${describeCause(err)}`);
        },
        complete: () => {
          finish('clean', 'every in-flight reconcile finished');
        },
      }),
  );
  if (!ended()) health.phase('running');

  const signals = options.signals ?? true;
  if (signals !== false && !ended()) {
    const target: SignalTarget = signals === true ? process : signals;
    uninstallSignals = onStopSignals(
      target,
      (signal) => {
        log.info({ signal }, 'signal received: stopping gracefully (send it again to stop at once)');
        void stop();
      },
      (signal) => {
        log.warn({ signal }, 'second signal: stopping at once');
        void stop({ deadlineMs: 0 });
      },
    );
  }
  log.info({ url: server?.url, fieldManager: c.fieldManager, resource: resourceId(c.resource) }, 'controller running');

  return {
    name: c.name,
    url: server?.url,
    health,
    metrics,
    outcomes: outcomes.asObservable(),
    fleet,
    stop,
    done,
  };
}

