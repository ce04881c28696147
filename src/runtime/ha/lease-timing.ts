// The three durations of leader election and sharding, and the rule that keeps them safe: a holder
// stops writing (renew deadline) well before anyone else may take its Lease over (lease duration).
import { ConfigError } from '../../core/config-error.js';

/**
 * How long a Lease lasts, how long its holder keeps writing without a successful renew, and how
 * often it renews or retries. Same meaning as client-go's `LeaseDuration`, `RenewDeadline` and
 * `RetryPeriod`.
 *
 * @example
 * ```ts
 * const fast: LeaseTiming = { leaseDurationMs: 4_000, renewDeadlineMs: 3_000, retryPeriodMs: 500 };
 * ```
 */
export interface LeaseTiming {
  /** How long others wait, after they last saw the Lease change, before taking it over. */
  readonly leaseDurationMs: number;
  /** How long the holder may go without a successful renew (counted from when that renew was sent) before it stops writing. */
  readonly renewDeadlineMs: number;
  /** How often the holder renews, and a candidate retries; also the timeout of each Lease request. */
  readonly retryPeriodMs: number;
}

/**
 * controller-runtime's defaults: 15 s lease duration, 10 s renew deadline, 2 s retry period. The
 * 5 s between deadline and duration is the margin for a clock that runs up to a third slow, and
 * for the time a request spends in flight.
 *
 * @example
 * ```ts
 * leaseTiming({ ...defaultLeaseTiming, retryPeriodMs: 1_000 });
 * ```
 */
export const defaultLeaseTiming: LeaseTiming = Object.freeze({ leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 });

// client-go's own factor: a deadline shorter than 1.2 retry periods leaves no room for one retry.
const JITTER_FACTOR = 1.2;

/**
 * Fills the defaults in and checks client-go's rule: leaseDuration > renewDeadline > 1.2 ×
 * retryPeriod > 0, with finite numbers. Anything else could let two holders write at once, or
 * lose the Lease between two renews, so it is refused at start.
 *
 * @example
 * ```ts
 * leaseTiming();                                                 // the defaults
 * leaseTiming({ leaseDurationMs: 4_000, renewDeadlineMs: 3_000, retryPeriodMs: 500 });
 * leaseTiming({ renewDeadlineMs: 20_000 });                      // throws ConfigError: renew deadline 20000 ms must be less than lease duration 15000 ms
 * ```
 * @param t - the durations to change; the rest are {@link defaultLeaseTiming}'s.
 * @returns the complete, frozen timing.
 * @throws ConfigError naming the offending values.
 */
export function leaseTiming(t: Partial<LeaseTiming> = {}): LeaseTiming {
  const timing: LeaseTiming = {
    leaseDurationMs: t.leaseDurationMs ?? defaultLeaseTiming.leaseDurationMs,
    renewDeadlineMs: t.renewDeadlineMs ?? defaultLeaseTiming.renewDeadlineMs,
    retryPeriodMs: t.retryPeriodMs ?? defaultLeaseTiming.retryPeriodMs,
  };
  const { leaseDurationMs: d, renewDeadlineMs: r, retryPeriodMs: p } = timing;
  const bad = (why: string): ConfigError =>
    new ConfigError(`lease timing: ${why} (leaseDurationMs ${d}, renewDeadlineMs ${r}, retryPeriodMs ${p}); client-go's rule is leaseDuration > renewDeadline > 1.2 × retryPeriod > 0`);
  for (const [name, v] of Object.entries(timing)) {
    if (typeof v !== 'number' || !Number.isFinite(v)) throw bad(`${name} must be a finite number of milliseconds, got ${String(v)}`);
  }
  if (p <= 0) throw bad(`retry period ${p} ms must be positive`);
  if (r <= JITTER_FACTOR * p) throw bad(`renew deadline ${r} ms must be more than 1.2 × retry period ${p} ms = ${JITTER_FACTOR * p} ms`);
  if (d <= r) throw bad(`renew deadline ${r} ms must be less than lease duration ${d} ms`);
  return Object.freeze(timing);
}
