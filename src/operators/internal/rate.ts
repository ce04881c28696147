// The arithmetic of retry pacing, kept pure so it can be tested without time: exponential backoff
// per key and a token bucket for the whole queue.

/**
 * Per-key exponential backoff: `base × factor^(failures-1)`, capped at `max` (milliseconds).
 *
 * @example
 * ```ts
 * const p: BackoffPolicy = { base: 5, factor: 2, max: 1_000_000 }; // controller-runtime's defaults
 * ```
 */
export interface BackoffPolicy {
  readonly base: number;
  readonly factor: number;
  readonly max: number;
}

/**
 * The delay before retry number `failures` (1 after the first failure).
 *
 * @example
 * ```ts
 * import * as rate from './rate.js'; // not the public (jittered) `backoffDelay` of rxfleet
 * rate.backoffDelay(1, { base: 5, factor: 2, max: 1_000_000 }); // 5
 * rate.backoffDelay(3, { base: 5, factor: 2, max: 1_000_000 }); // 20
 * ```
 * @param failures - consecutive failures so far (≥ 1).
 * @param p - the policy.
 * @returns the delay in milliseconds.
 */
export function backoffDelay(failures: number, p: BackoffPolicy): number {
  // factor ** large overflows to Infinity, which Math.min caps.
  return Math.min(p.max, p.base * p.factor ** Math.max(0, failures - 1));
}

/**
 * An overall rate limit: `qps` tokens per second, at most `burst` saved up.
 *
 * @example
 * ```ts
 * const limit: RateLimit = { qps: 10, burst: 100 }; // controller-runtime's bucket
 * ```
 */
export interface RateLimit {
  readonly qps: number;
  readonly burst: number;
}

/**
 * The state of a token bucket: tokens available at time `last`.
 *
 * @example
 * ```ts
 * // Not the public `TokenBucket` of rxfleet/sinks: this one is a plain value, advanced by `takeToken`.
 * const { bucket, wait } = takeToken({ tokens: 100, last: 0 }, { qps: 10, burst: 100 }, 0); // full: wait 0, 99 tokens left
 * ```
 */
export interface TokenBucket {
  readonly tokens: number;
  readonly last: number;
}

/**
 * Tries to take one token at time `now`.
 *
 * @example
 * ```ts
 * const r = takeToken({ tokens: 0, last: 0 }, { qps: 10, burst: 1 }, 50);
 * r.wait; // 50: the next token is due 100 ms after the last refill
 * ```
 * @param bucket - the bucket.
 * @param limit - qps and burst.
 * @param now - the current time in milliseconds.
 * @returns the new bucket and `wait`: 0 when a token was taken, else milliseconds until one is due.
 */
export function takeToken(bucket: TokenBucket, limit: RateLimit, now: number): { readonly bucket: TokenBucket; readonly wait: number } {
  const refilled = Math.min(limit.burst, bucket.tokens + (Math.max(0, now - bucket.last) * limit.qps) / 1000);
  if (refilled >= 1) return { bucket: { tokens: refilled - 1, last: now }, wait: 0 };
  return { bucket: { tokens: refilled, last: now }, wait: Math.max(1, Math.ceil(((1 - refilled) * 1000) / limit.qps)) };
}
