// The central operator: a fleet-wide work queue expressed as an RxJS operator. Events say which key
// to look at; the reconciler reads the latest state and answers with an Action; outcomes come out.
import type { Logger } from 'pino';
import type { OperatorFunction, SchedulerLike } from 'rxjs';
import { Observable } from 'rxjs';
import type { ClusterName } from '../core/cluster.js';
import type { FleetView } from '../streams/cluster.js';
import type { ObjectKey } from '../core/key.js';
import type { KubeObject } from '../core/object.js';
import type { Backoff } from '../streams/backoff.js';
import type { RateLimit } from '../core/token-bucket.js';
import { runEngine } from './internal/engine.js';
import { engineSettings } from './internal/engine-settings.js';
import type { DebounceOptions } from './debounceByKey.js';
import type { QueueObserver } from './queue-observer.js';
import type { Outcome, QueueDepth, ReconcileInput, Reconciler } from './types.js';

/**
 * How a controller's work queue runs: concurrency, per-cluster share, debounce, backoff and an overall
 * rate limit (`ControllerSpec.queue`, testing's `runController({ queue })`). Times are milliseconds.
 *
 * @example
 * ```ts
 * const queue: QueueOptions = { concurrency: 4, perClusterConcurrency: 2, lendIdleWorkers: true, debounce: { waitMs: 100, maxWaitMs: 1_000 } };
 * ```
 */
export interface QueueOptions {
  /** Reconciles running at once, across all keys and clusters. Default 10. */
  readonly concurrency?: number;
  /**
   * Reconciles of one cluster running at once while another cluster has a key waiting. Default
   * `concurrency - 1` (at least 1): one busy cluster can never hold every worker, so a quiet
   * cluster's key finds a free one instead of waiting for a busy cluster's reconcile to end, and a
   * wave that reaches one cluster first runs on all workers but one. A smaller cap holds a flood to
   * a smaller share; idle workers beyond it are then lent (`lendIdleWorkers`). A controller of a
   * single cluster gets all its workers with `perClusterConcurrency: concurrency`. Values above
   * `concurrency` mean no cap.
   */
  readonly perClusterConcurrency?: number;
  /**
   * Whether a cluster at its `perClusterConcurrency` may borrow workers no other cluster wants.
   * Default true: while no cluster under its cap has a key ready, an idle worker runs the oldest
   * key of a cluster at its cap, always leaving one worker idle for a cluster that has none; a
   * cluster over its cap takes no further worker while another cluster has a key waiting, so the
   * borrowed workers come back as its reconciles end. A wave that reaches one cluster first is
   * then served by every worker but one, as a queue without a cap would. `false` makes the cap
   * hard: a cluster never runs more than `perClusterConcurrency` reconciles at once, even with the
   * other workers idle (to bound what one cluster's API server sees, a `rateLimit` per cluster is
   * the more direct tool).
   */
  readonly lendIdleWorkers?: boolean;
  /**
   * Trailing debounce per key: a key runs `waitMs` after its last change, but no later than
   * `maxWaitMs` (default 10 × `waitMs`) after the first change of the window, so an object that
   * changes constantly is still reconciled. Off by default (and with `waitMs: 0`).
   */
  readonly debounce?: DebounceOptions;
  /**
   * Per-key exponential backoff on error, laid over controller-runtime's defaults: `initialMs` 5,
   * `factor` 2, capped at `maxMs` 1 000 000 (1000 s), `jitter` 0. No jitter by default: keys fail
   * at their own times, and a fixed sequence is what an operator reading the logs expects.
   * `resetAfterMs` does not apply: a success resets a key's backoff.
   */
  readonly backoff?: Partial<Backoff>;
  /**
   * Per-key backoff of a reconcile whose error is a request the API server refused for who we
   * are: a `KubeError` or sink `WriteError` answered 403 Forbidden (RBAC, an admission policy, a
   * quota) or 401 Unauthorized (credentials not yet rotated in). `toAction` retries those, as
   * `error(cause)` does, and the key waits this backoff instead of `backoff`, so a grant or new
   * credentials given while the controller runs are picked up without a change to the object.
   * Default `initialMs` 5 000 (5 s), `factor` 2, `maxMs` 300 000 (5 min, reached on the 7th
   * retry), `jitter` 0.5: a fixed RBAC is noticed within one step (at most 5 min), and a refused
   * key costs one request per 2.5–5 min once capped (1,000 refused keys: about 4.4 requests/s).
   * A lower `maxMs` picks a fix up sooner for more requests; a higher one the other way round.
   * A server's Retry-After still wins for one retry. Under `run`, the cluster is `unhealthy` on
   * /readyz while any of its keys waits here.
   */
  readonly authBackoff?: Partial<Backoff>;
  /**
   * An overall token bucket on reconcile starts (e.g. `{ qps: 10, burst: 100 }`). Off by default:
   * see {@link reconcile} for why.
   */
  readonly rateLimit?: RateLimit;
}

/**
 * Options of {@link reconcile}: the {@link QueueOptions} and what the caller wires in (the latest
 * state of a key, the fleet, the logger, the scheduler, metrics hooks, per-cluster admission). Times
 * are milliseconds of the given scheduler.
 *
 * @example
 * ```ts
 * const config: ReconcileOptions<ConfigMap> = {
 *   concurrency: 4,
 *   perClusterConcurrency: 2,
 *   // e.g. a per-cluster client-side rate limit: ms until the cluster has a token again.
 *   clusterGate: (cluster: ClusterName) => (throttled.has(cluster) ? 1_000 : 0),
 *   debounce: { waitMs: 100, maxWaitMs: 1_000 },
 *   backoff: { initialMs: 5, maxMs: 1_000_000 },
 *   lookup: (key) => store.get(key),
 * };
 * ```
 */
export interface ReconcileOptions<T extends KubeObject = KubeObject> extends QueueOptions {
  /**
   * Admission per cluster: asked before a key of `cluster` takes a worker, answers how many ms
   * until that cluster may start another reconcile (0: now). A cluster that must wait sits out
   * (its keys stay queued), takes no worker, and is asked again after the delay (capped at 60 s) on the queue's
   * timer; the other clusters' keys keep flowing. Meant for a per-cluster client-side rate limit:
   * a throttled cluster then never blocks a worker the others could use. Called once per start
   * (keep it O(1)); it must not throw.
   */
  readonly clusterGate?: (cluster: ClusterName) => number;
  /** Reads the latest state of a key when its reconcile starts (e.g. a store's `get`). */
  readonly lookup?: (key: ObjectKey) => T | undefined;
  /** Handed to reconcilers as `context.fleet`. */
  readonly fleet?: FleetView;
  /** Parent of each reconcile's child logger. Default: a silent logger. */
  readonly logger?: Logger;
  /** Drives every timer and measures durations. Default `asyncScheduler`. */
  readonly scheduler?: SchedulerLike;
  /** Called after every change of queue state, for a depth gauge. */
  readonly onDepth?: (depth: QueueDepth) => void;
  /** Hooks for workqueue metrics (adds, retries, queue latency, running work): see {@link QueueObserver}. */
  readonly observer?: QueueObserver;
}

/**
 * Runs a reconciler over a stream of keyed events and enqueue requests, as a work queue, and
 * emits one {@link Outcome} per finished reconcile.
 *
 * Guarantees, per subscription:
 * - **Collapse**: a key has at most one pending entry; events for a pending key only update the
 *   object it will be given.
 * - **One at a time per key**: a key never runs twice at once. A key that changes while it runs
 *   runs exactly once more when the run ends (immediately, or after the debounce), whatever the
 *   result, and any backoff or requeue that run asked for is replaced by that rerun.
 * - **Concurrency**: at most `concurrency` reconciles run at once, at most `perClusterConcurrency`
 *   of them for one cluster while another cluster has a key waiting (always, with
 *   `lendIdleWorkers: false`).
 * - **Order and fairness**: ready keys wait in one FIFO lane per cluster, and a free worker goes to
 *   the cluster whose oldest ready key has waited longest: first come, first served across
 *   clusters, so a wave that reaches the clusters one after another is served in the order it
 *   arrived and no cluster's keys wait behind later ones. Keys readied in one burst (a take-over,
 *   a list replay: one synchronous run, until the scheduler next runs anything) count as one
 *   instant and go round-robin across their clusters: every cluster's first key of the burst
 *   before any cluster's second. Fairness is the cap: a cluster at
 *   `perClusterConcurrency` sits out until one of its reconciles ends, so with the default cap a
 *   flooded cluster always leaves one worker free, and a quiet cluster's key starts on it at once,
 *   however old the flood's backlog. Workers no
 *   other cluster wants are lent to a cluster at its cap, all but one (`lendIdleWorkers`).
 * - **Admission** (optional): a cluster its `clusterGate` holds back takes no worker; its keys
 *   wait in its lane while other clusters' keys run, and it is asked again when its delay ends.
 * - **Debounce** (optional): trailing, per key, with a max wait (see {@link ReconcileOptions}).
 * - **Backoff**: an `error` result retries the key after `initialMs × factor^(n-1)` ms (n consecutive
 *   failures, capped at `maxMs`), or after the error's `retryAfterMs`. A success (`done`, `requeue`)
 *   resets n. A change to the key during the wait runs it at once; n is kept. An error the server
 *   answered 401 or 403 waits the slower `authBackoff` instead (same n).
 * - **Requeue**: `requeueAfter(ms)` runs the key again after ms (a change runs it sooner).
 * - **Terminal**: never retried; the next change runs the key again.
 * - **Rate limit** (optional): a token bucket gates every start. Off by default: backoff already
 *   stops hot loops per key, and one global 10 qps bucket (controller-runtime's default, which it
 *   applies to retries) would throttle a whole fleet to the pace of one cluster.
 * - **Cluster removal**: on `clusterRemoved`, the cluster's ready keys, debounce windows and
 *   retry timers are dropped silently; its running reconciles are aborted (`context.signal`) and
 *   reported once as `dropped`, never retried.
 * - **Bounded memory**: state is kept only for keys that are ready, running, debouncing or waiting
 *   for a retry or requeue; a key that finishes with nothing scheduled is forgotten. One heap of
 *   deadlines and one scheduled action serve every timer.
 * - **Completion** is a graceful shutdown: when the input completes, open debounce windows close
 *   at once, ready and running keys finish (including reruns), scheduled retries and requeues are
 *   dropped, then the output completes. Unsubscribing instead stops at once: timers are cancelled
 *   and running reconciles aborted.
 *
 * Errors are outcomes, never an RxJS error: a reconciler that throws, rejects or errors yields an
 * `error` outcome. Only an error of the input itself is forwarded.
 *
 * @example
 * ```ts
 * const outcomes = fleetWatch(fleet, configMaps).pipe(
 *   reconcile<ConfigMap>((req, ctx) => {
 *     if (req.object === undefined) return done();
 *     ctx.logger.info('syncing');
 *     return defer(() => copyToEveryCluster(req.object, ctx.fleet)).pipe(map(() => done()));
 *   }, { concurrency: 4, debounce: { waitMs: 50, maxWaitMs: 500 } }),
 * );
 * outcomes.subscribe((o) => metrics.record(o));
 * ```
 * @see ReconcileOptions
 * @param fn - the reconciler.
 * @param config - concurrency (total and per cluster), cluster gate, debounce, backoff, rate limit,
 *   lookup, fleet, logger, scheduler, depth and observer hooks.
 * @returns an operator from {@link ReconcileInput} to {@link Outcome}.
 * @throws ConfigError (when called) for a concurrency or per-cluster concurrency that is not a positive integer, a negative
 *   debounce, or a backoff or rate limit out of range.
 */
export function reconcile<T extends KubeObject>(fn: Reconciler<T>, config: ReconcileOptions<T> = {}): OperatorFunction<ReconcileInput<T>, Outcome> {
  const s = engineSettings(config);
  return (source) => new Observable<Outcome>((subscriber) => runEngine(source, subscriber, fn, s));
}
