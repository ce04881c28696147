// The failures of a watch, bounded: how long a server's Retry-After may hold a watch back, and when
// a watch that keeps failing stops looking merely "retrying" and is reported degraded. Kept apart
// from the state machine (watch-signals.ts), which only asks "how long do I wait" and "what do I
// report", so both rules read in one place.
import { ConfigError } from '../core/config-error.js';
import type { KubeError } from '../core/errors.js';
import type { WatchStreamOptions } from './watch-config.js';
import type { WatchHealth } from './watch-health.js';

/**
 * The bounds of a watch's failures, resolved from a {@link WatchStreamOptions} and checked.
 *
 * @example
 * ```ts
 * const limits: WatchLimits = { maxRetryAfterMs: 30_000, degradedAfterMs: 120_000 };
 * ```
 */
export interface WatchLimits {
  /** The longest wait a `Retry-After` can impose, in milliseconds. */
  readonly maxRetryAfterMs: number;
  /** How long a watch may fail without a success before its health says `degraded`, in milliseconds. */
  readonly degradedAfterMs: number;
}

/**
 * The limits of a watch: `maxRetryAfterMs` (default 30 000, like the sinks' cap) and
 * `degradedAfterMs` (default 120 000).
 *
 * @example
 * ```ts
 * watchLimits({ degradedAfterMs: 60_000 }); // { maxRetryAfterMs: 30_000, degradedAfterMs: 60_000 }
 * ```
 * @param config - the watch's options.
 * @returns the limits.
 * @throws ConfigError when `maxRetryAfterMs` is negative or not a number, or `degradedAfterMs` is not above 0.
 */
export function watchLimits(config: WatchStreamOptions): WatchLimits {
  const { maxRetryAfterMs = 30_000, degradedAfterMs = 120_000 } = config;
  // Checked once, where the watch is made: a NaN here would silently disable either bound.
  if (!(maxRetryAfterMs >= 0)) throw new ConfigError(`watch: maxRetryAfterMs must be a number ≥ 0, got ${maxRetryAfterMs}`);
  if (!(degradedAfterMs > 0)) throw new ConfigError(`watch: degradedAfterMs must be a number above 0, got ${degradedAfterMs}`);
  return { maxRetryAfterMs, degradedAfterMs };
}

/**
 * How long to wait after a failure: the backoff's delay, or for a 429 the server's `Retry-After`
 * when longer, counting a `Retry-After` for at most `maxRetryAfterMs` (a gateway answering
 * `Retry-After: 3600` must not stall a watch for an hour). At least 1 ms, so the loop never spins.
 *
 * @example
 * ```ts
 * retryDelayMs(kubeError('TooManyRequests', east, 'slow down', { retryAfterSeconds: 3600 }), 800, 30_000); // 30000
 * ```
 * @param err - the failure.
 * @param backoffMs - the backoff's delay for this attempt.
 * @param maxRetryAfterMs - the cap of `Retry-After`.
 * @returns milliseconds.
 */
export function retryDelayMs(err: KubeError, backoffMs: number, maxRetryAfterMs: number): number {
  const asked = err.type === 'TooManyRequests' ? Math.min((err.retryAfterSeconds ?? 0) * 1000, maxRetryAfterMs) : 0;
  return Math.max(1, backoffMs, asked);
}

/**
 * The failing fields of a health snapshot: nothing while the watch works, `failingSince` once it
 * fails, and `degraded: true` too once it has failed for `degradedAfterMs`.
 *
 * @example
 * ```ts
 * failingFields(1_000, 200_000, 120_000); // { failingSinceAt: 1000, degraded: true }
 * ```
 * @param failingSince - when the current run of failures began (undefined: the watch works).
 * @param now - the scheduler's time.
 * @param degradedAfterMs - the limit.
 * @returns the fields to lay over the snapshot.
 */
export function failingFields(failingSince: number | undefined, now: number, degradedAfterMs: number): { failingSinceAt?: number; degraded?: boolean } {
  if (failingSince === undefined) return {};
  return now - failingSince >= degradedAfterMs ? { failingSinceAt: failingSince, degraded: true } : { failingSinceAt: failingSince };
}

/**
 * Whether a watch is failing: backing off, or failing since its last successful list or line
 * (between retries it is briefly `listing` or `connected`, which proves nothing; `degraded`
 * included). What makes a cluster `unhealthy` on /readyz, and `rxfleet_watch_healthy` 0.
 *
 * @example
 * ```ts
 * watchFailing({ ...health, state: 'listing', failingSince: 1_000 }); // true: the retry has not answered yet
 * ```
 * @param h - the watch's latest health.
 * @returns true while it fails.
 */
export function watchFailing(h: WatchHealth): boolean {
  return h.state === 'backingOff' || h.failingSinceAt !== undefined || h.degraded === true;
}

/**
 * Whether a thrown value is already a {@link KubeError} (an injected source may throw anything).
 *
 * @example
 * ```ts
 * isKubeError(kubeError('Transient', east, 'reset')); // true
 * ```
 * @param e - what was thrown.
 * @returns true for a KubeError.
 */
export function isKubeError(e: unknown): e is KubeError {
  return typeof e === 'object' && e !== null && typeof (e as { type?: unknown }).type === 'string' && typeof (e as { message?: unknown }).message === 'string';
}
