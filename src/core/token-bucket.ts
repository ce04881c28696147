// The one token bucket of rxfleet (QPS and burst, like client-go's flowcontrol): each cluster's
// client-side request limit (which a server's 429 Retry-After pauses) and reconcile's limit on
// starts. Its clock and waits are a scheduler's, so it runs in virtual time.
import type { SchedulerLike } from 'rxjs';
import { map, Observable } from 'rxjs';
import { ConfigError } from './config-error.js';

/**
 * A token bucket's size and rate: `burst` tokens may go at once, then `qps` per second.
 *
 * @example
 * ```ts
 * const limits: RateLimit = { qps: 5, burst: 10 }; // client-go's rest.Config defaults
 * ```
 */
export interface RateLimit {
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
   * Like `take`, bounded: emits `true` when the caller may go, or `false` (then completes) as soon
   * as it is known that no token is due within `maxWaitMs` of the subscription: at once when the
   * reservation falls due later, or when a pause pushes it past that. A `false` gives its token back.
   */
  takeWithin(maxWaitMs: number): Observable<boolean>;
  /**
   * Reserves the next token at once, for a caller that schedules its own wake-up.
   *
   * @returns milliseconds until the token is due: 0 when it may be used now.
   */
  reserve(): number;
  /** Gives back a reserved token that will not be used. */
  giveBack(): void;
  /**
   * Grants nothing for `ms` from now (a server's 429 Retry-After): takes due inside the pause wait
   * for a new token after it, and the bucket refills from empty when it ends, so what queued up
   * during the pause leaves at the bucket's rate, not in one burst. A shorter pause than one under
   * way changes nothing.
   */
  pause(ms: number): void;
  /** Milliseconds until a `take` made now would be granted (0: at once); reserves nothing. */
  delayMs(): number;
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
export function checkRateLimit(config: RateLimit, where: string): RateLimit {
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
export function tokenBucket(config: RateLimit, scheduler: SchedulerLike): TokenBucket {
  const { qps, burst } = checkRateLimit(config, 'rateLimit');
  const perToken = 1000 / qps;
  let tokens = burst;
  let last = scheduler.now();
  let pausedUntil = -Infinity;
  const refill = (): void => {
    const now = scheduler.now();
    tokens = Math.min(burst, tokens + (now - last) / perToken);
    last = now;
  };
  // Whole milliseconds, rounded up so the token is due when the wait ends; the epsilon keeps a
  // float error of the refill from adding a millisecond.
  const dueIn = (balance: number): number => (balance >= 0 ? 0 : Math.ceil(-balance * perToken - 1e-9));
  const reserve = (): number => {
    refill();
    tokens -= 1;
    return dueIn(tokens);
  };
  const giveBack = (): void => {
    refill();
    tokens = Math.min(burst, tokens + 1);
  };
  const paused = (): boolean => scheduler.now() < pausedUntil;
  // One bounded take: reserve; when the token falls due inside a pause that began meanwhile, the
  // token is spent and the next one reserved; past the deadline, the reservation goes back.
  const bounded = (maxWaitMs: number): Observable<boolean> =>
    new Observable<boolean>((subscriber) => {
      const deadline = scheduler.now() + maxWaitMs;
      let held = false;
      let action: { unsubscribe(): void } | undefined;
      const settle = (granted: boolean): void => {
        subscriber.next(granted);
        subscriber.complete();
      };
      const attempt = (): void => {
        const wait = reserve();
        if (wait === 0 && !paused()) {
          settle(true);
          return;
        }
        if (scheduler.now() + wait > deadline) {
          giveBack();
          settle(false);
          return;
        }
        held = true;
        action = scheduler.schedule(() => {
          held = false;
          // A token due inside a pause that began after it was reserved is spent; wait for the next.
          if (paused()) attempt();
          else settle(true);
        }, wait);
      };
      attempt();
      return () => {
        action?.unsubscribe();
        if (held) giveBack();
      };
    });
  return {
    reserve,
    giveBack,
    take: () => bounded(Infinity).pipe(map(() => undefined)),
    takeWithin: bounded,
    pause(ms) {
      if (!(ms > 0)) return;
      const until = scheduler.now() + ms;
      if (until <= pausedUntil) return;
      pausedUntil = until;
      refill();
      // The next reservation falls due at `until` (or later, behind those already queued), and the
      // balance restarts from empty there: no burst when the pause ends.
      tokens = Math.min(tokens, 1 - ms / perToken);
    },
    delayMs() {
      refill();
      return dueIn(tokens - 1);
    },
  };
}
