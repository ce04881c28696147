// `reconcile`'s options resolved once, when the operator is made: defaults filled in, and every
// number checked, so a bad config fails where it is written rather than at the first event.
import type { Logger } from 'pino';
import { pino } from 'pino';
import type { SchedulerLike } from 'rxjs';
import { asyncScheduler } from 'rxjs';
import type { ClusterName } from '../../core/cluster.js';
import { ConfigError } from '../../core/config-error.js';
import type { ObjectKey } from '../../core/key.js';
import type { KubeObject } from '../../core/object.js';
import type { Backoff } from '../../streams/backoff.js';
import { checkBackoff } from '../../streams/backoff.js';
import type { FleetView } from '../../streams/cluster.js';
import type { RateLimit } from '../../core/token-bucket.js';
import { checkRateLimit } from '../../core/token-bucket.js';
import type { QueueObserver } from '../queue-observer.js';
import type { ReconcileOptions } from '../reconcile.js';
import type { QueueDepth } from '../types.js';
import type { DebounceSpan } from './debounce-window.js';

/**
 * `reconcile`'s config with every default applied.
 *
 * @example
 * ```ts
 * const s: EngineSettings<ConfigMap> = {
 *   concurrency: 10, perClusterConcurrency: 9, lendIdleWorkers: true, clusterGate: undefined, observer: undefined, debounce: undefined, backoff: { initialMs: 5, factor: 2, maxMs: 1_000_000, jitter: 0 },
 *   authBackoff: { initialMs: 5_000, factor: 2, maxMs: 300_000, jitter: 0.5 }, rateLimit: { qps: 10, burst: 100 },
 *   lookup: undefined, fleet: undefined, logger: pino(), scheduler: asyncScheduler, onDepth: undefined,
 * };
 * ```
 */
export interface EngineSettings<T extends KubeObject> {
  readonly concurrency: number;
  /** At most `concurrency`. */
  readonly perClusterConcurrency: number;
  /** See `QueueOptions.lendIdleWorkers`. */
  readonly lendIdleWorkers: boolean;
  /** How many ms until a cluster may start another reconcile (0: now); see `ReconcileOptions.clusterGate`. */
  readonly clusterGate: ((cluster: ClusterName) => number) | undefined;
  readonly observer: QueueObserver | undefined;
  readonly debounce: DebounceSpan | undefined;
  readonly backoff: Backoff;
  /** The backoff of a reconcile the server refused with 401 or 403; see `ReconcileOptions.authBackoff`. */
  readonly authBackoff: Backoff;
  readonly rateLimit: RateLimit | undefined;
  readonly lookup: ((key: ObjectKey) => T | undefined) | undefined;
  readonly fleet: FleetView | undefined;
  readonly logger: Logger;
  readonly scheduler: SchedulerLike;
  readonly onDepth: ((depth: QueueDepth) => void) | undefined;
}

let silent: Logger | undefined;

// controller-runtime's per-item exponential rate limiter: 5 ms × 2 per failure, capped at 1000 s.
const reconcileBackoff: Backoff = { initialMs: 5, factor: 2, maxMs: 1_000_000, jitter: 0 };

// A reconcile the server refused with 401 or 403: 5 s, ×2, capped at 5 min (from the 7th retry,
// 5 min 15 s after the first refusal), each step uniform in its upper half. RBAC or credentials
// fixed at run time are picked up within one step, so at most 5 min later; a refused key costs one
// request per 2.5–5 min once capped (1,000 refused keys: about 4.4 requests/s), where the 5 ms
// start of `backoff` sends each key 11 requests in its first 10 s. The jitter spreads the keys of
// one listing, refused together, over half of each step instead of one burst per step.
const reconcileAuthBackoff: Backoff = { initialMs: 5_000, factor: 2, maxMs: 300_000, jitter: 0.5 };

/**
 * The default per-cluster cap: every worker but one. One busy cluster then always leaves a worker
 * free, so a quiet cluster's key starts at once, and a wave that reaches one cluster first is served
 * by nearly every worker in the order it arrived, as multicluster-runtime's first-come queue serves
 * it (half the workers, the default until 2026-11-27, made that cluster's keys wait about twice as
 * long: bench/README.md, tenth figures). A controller of a single cluster that wants every worker
 * sets `perClusterConcurrency` to `concurrency`; one that wants a flood held to a smaller share sets less.
 *
 * @example `defaultPerCluster(10) // 9`
 * @param concurrency - the queue's concurrency.
 * @returns the cap.
 */
export function defaultPerCluster(concurrency: number): number {
  return Math.max(1, concurrency - 1);
}

/**
 * Resolves and checks a {@link ReconcileOptions}.
 *
 * @example
 * ```ts
 * const s = engineSettings<ConfigMap>({ concurrency: 4, debounce: { waitMs: 50 } }); // maxWaitMs 500
 * ```
 * @param c - the config.
 * @returns the settings.
 * @throws ConfigError for a concurrency or per-cluster concurrency that is not a positive integer,
 *   a negative debounce, or a backoff or rate limit out of range.
 */
export function engineSettings<T extends KubeObject>(c: ReconcileOptions<T>): EngineSettings<T> {
  const concurrency = c.concurrency ?? 10;
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new ConfigError(`reconcile: concurrency must be a positive integer, got ${concurrency}`);
  const perCluster = c.perClusterConcurrency ?? defaultPerCluster(concurrency);
  if (!Number.isInteger(perCluster) || perCluster < 1) throw new ConfigError(`reconcile: perClusterConcurrency must be a positive integer, got ${perCluster}`);
  const waitMs = c.debounce?.waitMs ?? 0;
  if (!Number.isFinite(waitMs) || waitMs < 0) throw new ConfigError(`reconcile: debounce.waitMs must be a finite number ≥ 0, got ${waitMs}`);
  silent ??= pino({ level: 'silent' });
  return {
    concurrency,
    perClusterConcurrency: Math.min(perCluster, concurrency),
    lendIdleWorkers: c.lendIdleWorkers ?? true,
    clusterGate: c.clusterGate,
    observer: c.observer,
    // A zero wait is no debounce at all.
    debounce: waitMs === 0 ? undefined : { waitMs, maxWaitMs: Math.max(waitMs, c.debounce?.maxWaitMs ?? waitMs * 10) },
    backoff: checkBackoff({ ...reconcileBackoff, ...c.backoff }, 'reconcile: backoff'),
    authBackoff: checkBackoff({ ...reconcileAuthBackoff, ...c.authBackoff }, 'reconcile: authBackoff'),
    rateLimit: c.rateLimit === undefined ? undefined : checkRateLimit(c.rateLimit, 'reconcile: rateLimit'),
    lookup: c.lookup,
    fleet: c.fleet,
    logger: c.logger ?? silent,
    scheduler: c.scheduler ?? asyncScheduler,
    onDepth: c.onDepth,
  };
}
