// Client-side rate limiting of one cluster's requests: a token bucket (QPS and burst, like
// client-go's flowcontrol) whose clock and waits are the scheduler's, so it runs in virtual time.
import type { SchedulerLike } from 'rxjs';
import { Observable } from 'rxjs';

/**
 * A token bucket: `burst` requests may go at once, then `qps` per second.
 *
 * @example
 * ```ts
 * const limits: RateLimitConfig = { qps: 5, burst: 10 }; // client-go's rest.Config defaults
 * ```
 */
export interface RateLimitConfig {
  /** Tokens added per second (> 0). */
  readonly qps: number;
  /** Bucket size: requests allowed back to back (≥ 1). */
  readonly burst: number;
}

/**
 * A running token bucket.
 *
 * @example
 * ```ts
 * bucket.take().pipe(concatMap(() => client.get(configMaps, 'a'))).subscribe();
 * ```
 */
export interface TokenBucket {
  /**
   * Emits once (then completes) when the caller may send one request. Callers are served in the
   * order they subscribe; unsubscribing before the emission gives the token back.
   */
  take(): Observable<void>;
}

/**
 * Creates a token bucket. Each `take()` reserves the next free slot at once (like Go's
 * `rate.Limiter.Reserve`), so concurrent callers queue in order without a polling timer.
 *
 * @example
 * ```ts
 * import { tokenBucket } from 'rxfleet/sinks';
 * const bucket = tokenBucket({ qps: 10, burst: 2 }, asyncScheduler);
 * // five takes at once: granted at 0, 0, 100, 200 and 300 ms
 * ```
 * @param config - QPS and burst.
 * @param scheduler - clock and timer.
 * @returns the bucket.
 * @throws TypeError when qps is not positive or burst is below 1.
 */
export function tokenBucket(config: RateLimitConfig, scheduler: SchedulerLike): TokenBucket {
  if (!(config.qps > 0) || !Number.isFinite(config.qps)) throw new TypeError(`rate limit qps must be a positive number, got ${config.qps}`);
  if (!(config.burst >= 1)) throw new TypeError(`rate limit burst must be at least 1, got ${config.burst}`);
  const perToken = 1000 / config.qps;
  // Tokens may go negative: a negative balance is the queue of reservations not yet due.
  let tokens = config.burst;
  let last = scheduler.now();
  const refill = (): void => {
    const now = scheduler.now();
    tokens = Math.min(config.burst, tokens + (now - last) / perToken);
    last = now;
  };
  return {
    take: () =>
      new Observable<void>((subscriber) => {
        refill();
        tokens -= 1;
        const wait = tokens >= 0 ? 0 : -tokens * perToken;
        if (wait === 0) {
          subscriber.next();
          subscriber.complete();
          return undefined;
        }
        let granted = false;
        const action = scheduler.schedule(() => {
          granted = true;
          subscriber.next();
          subscriber.complete();
        }, wait);
        return () => {
          action.unsubscribe();
          if (!granted) {
            refill();
            tokens = Math.min(config.burst, tokens + 1);
          }
        };
      }),
  };
}
