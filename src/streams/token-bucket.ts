// The one token bucket of rxfleet (QPS and burst, like client-go's flowcontrol): the sinks' per-cluster
// request limit and reconcile's limit on starts. Its clock and waits are a scheduler's, so it runs
// in virtual time.
import type { SchedulerLike } from 'rxjs';
import { Observable } from 'rxjs';
import { ConfigError } from '../core/config-error.js';

/**
 * A token bucket's size and rate: `burst` tokens may go at once, then `qps` per second.
 *
 * @example
 * ```ts
 * const limits: RateLimitConfig = { qps: 5, burst: 10 }; // client-go's rest.Config defaults
 * ```
 */
export interface RateLimitConfig {
  /** Tokens added per second (> 0). */
  readonly qps: number;
  /** Bucket size: tokens that may be taken back to back (≥ 1). */
  readonly burst: number;
}

/**
 * A running token bucket. Tokens are reserved (like Go's `rate.Limiter.Reserve`): the balance may
 * go negative, and a negative balance is the queue of reservations not yet due, so concurrent
 * callers are served in order without a polling timer.
 *
 * @example
 * ```ts
 * bucket.take().pipe(concatMap(() => client.get(configMaps, 'a'))).subscribe();
 * ```
 */
export interface TokenBucket {
  /**
   * Emits once (then completes) when the caller may go. Callers are served in the order they
   * subscribe; unsubscribing before the emission gives the token back.
   */
  take(): Observable<void>;
  /**
   * Reserves the next token at once, for a caller that schedules its own wake-up.
   *
   * @returns milliseconds until the token is due: 0 when it may be used now.
   */
  reserve(): number;
  /** Gives back a reserved token that will not be used. */
  giveBack(): void;
}

/**
 * Checks a rate limit where it is configured, so a bad one fails before anything runs.
 *
 * @example
 * ```ts
 * checkRateLimit({ qps: 10, burst: 100 }, 'reconcile: rateLimit');
 * ```
 * @param config - QPS and burst.
 * @param where - the option, for the message.
 * @returns the same config.
 * @throws ConfigError when qps is not a positive finite number or burst is below 1.
 */
export function checkRateLimit(config: RateLimitConfig, where: string): RateLimitConfig {
  if (!(config.qps > 0) || !Number.isFinite(config.qps)) throw new ConfigError(`${where}.qps must be a positive number, got ${config.qps}`);
  if (!(config.burst >= 1)) throw new ConfigError(`${where}.burst must be at least 1, got ${config.burst}`);
  return config;
}

/**
 * Creates a token bucket, full.
 *
 * @example
 * ```ts
 * const bucket = tokenBucket({ qps: 10, burst: 2 }, asyncScheduler);
 * // five takes at once: granted at 0, 0, 100, 200 and 300 ms
 * ```
 * @param config - QPS and burst.
 * @param scheduler - clock and timer.
 * @returns the bucket.
 * @throws ConfigError when qps is not positive or burst is below 1.
 */
export function tokenBucket(config: RateLimitConfig, scheduler: SchedulerLike): TokenBucket {
  const { qps, burst } = checkRateLimit(config, 'rateLimit');
  const perToken = 1000 / qps;
  let tokens = burst;
  let last = scheduler.now();
  const refill = (): void => {
    const now = scheduler.now();
    tokens = Math.min(burst, tokens + (now - last) / perToken);
    last = now;
  };
  const reserve = (): number => {
    refill();
    tokens -= 1;
    // Whole milliseconds, rounded up so the token is due when the wait ends; the epsilon keeps a
    // float error of the refill from adding a millisecond.
    return tokens >= 0 ? 0 : Math.ceil(-tokens * perToken - 1e-9);
  };
  const giveBack = (): void => {
    refill();
    tokens = Math.min(burst, tokens + 1);
  };
  return {
    reserve,
    giveBack,
    take: () =>
      new Observable<void>((subscriber) => {
        const wait = reserve();
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
          if (!granted) giveBack();
        };
      }),
  };
}
