// The central operator: a fleet-wide work queue expressed as an RxJS operator. Events say which key
// to look at; the reconciler reads the latest state and answers with an Action; outcomes come out.
import type { Logger } from 'pino';
import { pino } from 'pino';
import type { OperatorFunction, SchedulerLike } from 'rxjs';
import { asyncScheduler, Observable } from 'rxjs';
import type { FleetView } from '../client/cluster.js';
import type { ObjectKey } from '../core/key.js';
import type { KubeObject } from '../core/object.js';
import type { EngineSettings } from './internal/engine.js';
import { runEngine } from './internal/engine.js';
import type { Outcome, QueueDepth, ReconcileInput, Reconciler } from './types.js';

/**
 * Options of {@link reconcile}. Times are milliseconds of the given scheduler.
 *
 * @example
 * ```ts
 * const config: ReconcileConfig<ConfigMap> = {
 *   concurrency: 4,
 *   debounce: { wait: 100, maxWait: 1_000 },
 *   backoff: { base: 5, max: 1_000_000 },
 *   lookup: (key) => store.get(key),
 * };
 * ```
 */
export interface ReconcileConfig<T extends KubeObject = KubeObject> {
  /** Reconciles running at once, across all keys and clusters. Default 10. */
  readonly concurrency?: number;
  /**
   * Trailing debounce per key: a key runs `wait` ms after its last change, but no later than
   * `maxWait` ms (default 10 × `wait`) after the first change of the window, so an object that
   * changes constantly is still reconciled. Off by default.
   */
  readonly debounce?: { readonly wait: number; readonly maxWait?: number };
  /** Per-key exponential backoff on error: `base` (default 5 ms) × `factor` (2) per failure, capped at `max` (1000 s). */
  readonly backoff?: { readonly base?: number; readonly factor?: number; readonly max?: number };
  /**
   * An overall token bucket on reconcile starts (e.g. `{ qps: 10, burst: 100 }`). Off by default:
   * see {@link reconcile} for why.
   */
  readonly rateLimit?: { readonly qps: number; readonly burst: number };
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
}

let silent: Logger | undefined;

function positive(name: string, v: number, allowZero = false): number {
  if (!Number.isFinite(v) || v < 0 || (!allowZero && v === 0)) throw new RangeError(`reconcile: ${name} must be a finite number > ${allowZero ? '= ' : ''}0, got ${v}`);
  return v;
}

function settings<T extends KubeObject>(c: ReconcileConfig<T>): EngineSettings<T> {
  const concurrency = positive('concurrency', c.concurrency ?? 10);
  if (!Number.isInteger(concurrency)) throw new RangeError(`reconcile: concurrency must be an integer, got ${concurrency}`);
  const wait = c.debounce === undefined ? 0 : positive('debounce.wait', c.debounce.wait, true);
  const base = positive('backoff.base', c.backoff?.base ?? 5);
  const factor = positive('backoff.factor', c.backoff?.factor ?? 2);
  const max = positive('backoff.max', c.backoff?.max ?? 1_000_000);
  silent ??= pino({ level: 'silent' });
  return {
    concurrency,
    debounce: wait === 0 ? undefined : { wait, maxWait: Math.max(wait, c.debounce?.maxWait ?? wait * 10) },
    backoff: { base, factor: Math.max(1, factor), max },
    rateLimit:
      c.rateLimit === undefined ? undefined : { qps: positive('rateLimit.qps', c.rateLimit.qps), burst: Math.max(1, positive('rateLimit.burst', c.rateLimit.burst)) },
    lookup: c.lookup,
    fleet: c.fleet,
    logger: c.logger ?? silent,
    scheduler: c.scheduler ?? asyncScheduler,
    onDepth: c.onDepth,
  };
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
 * - **Concurrency**: at most `concurrency` reconciles run at once.
 * - **Fairness**: ready keys wait in one FIFO lane per cluster, and a free slot goes to the next
 *   lane in round-robin order (one key per turn). A key that becomes ready at position p of its
 *   cluster's lane starts within p × C starts, where C is the number of clusters with ready keys:
 *   a quiet cluster's only key waits at most one turn per other busy cluster, however many keys
 *   a noisy cluster has queued.
 * - **Debounce** (optional): trailing, per key, with a max wait (see {@link ReconcileConfig}).
 * - **Backoff**: an `error` result retries the key after `base × factor^(n-1)` ms (n consecutive
 *   failures, capped at `max`), or after the error's `retryAfter`. A success (`done`, `requeue`)
 *   resets n. A change to the key during the wait runs it at once; n is kept.
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
 *     ctx.log.info('syncing');
 *     return defer(() => copyToEveryCluster(req.object, ctx.fleet)).pipe(map(() => done()));
 *   }, { concurrency: 4, debounce: { wait: 50, maxWait: 500 } }),
 * );
 * outcomes.subscribe((o) => metrics.record(o));
 * ```
 * @see ReconcileConfig
 * @param fn - the reconciler.
 * @param config - concurrency, debounce, backoff, rate limit, lookup, fleet, logger, scheduler.
 * @returns an operator from {@link ReconcileInput} to {@link Outcome}.
 * @throws RangeError (when called) for a config with negative, zero or non-finite numbers.
 */
export function reconcile<T extends KubeObject>(fn: Reconciler<T>, config: ReconcileConfig<T> = {}): OperatorFunction<ReconcileInput<T>, Outcome> {
  const s = settings(config);
  return (source) => new Observable<Outcome>((subscriber) => runEngine(source, subscriber, fn, s));
}
