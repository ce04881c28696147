// The one backoff of rxfleet: how long to wait before the next attempt, as a pure function of the
// attempt number and a random source, so tests can pin the jitter. Watches, provider retries,
// reconcile's per-key retries and the sinks' conflict and Retry-After spacing all use it.
import { ConfigError } from '../core/config-error.js';

/**
 * An exponential backoff: attempt `n` (0-based) may wait up to `min(maxMs, initialMs · factorⁿ)`,
 * and `jitter` says how much of that is random. Every option that takes a backoff takes this shape,
 * or a part of it laid over that option's defaults.
 *
 * @example
 * ```ts
 * const fast: Backoff = { initialMs: 100, factor: 2, maxMs: 5_000, resetAfterMs: 60_000 };
 * const steady: Backoff = { initialMs: 10, factor: 1, maxMs: 10, jitter: 0.1 }; // 9–10 ms each time
 * ```
 */
export interface Backoff {
  /** The first delay (its upper bound, when jittered). Above 0. */
  readonly initialMs: number;
  /** Growth of the delay per consecutive failure; 1 keeps it constant. At least 1. */
  readonly factor: number;
  /** The delay never grows past this. */
  readonly maxMs: number;
  /**
   * For long-lived loops (watches, provider retries): after this long without a failure, the next
   * failure starts again from `initialMs`. Reconcile ignores it: a success resets a key's backoff.
   */
  readonly resetAfterMs?: number;
  /**
   * The random fraction of each delay, from 0 to 1: the delay is uniform in
   * `[ceiling × (1 − jitter), ceiling]`, so `maxMs` stays a true bound. 1 is full jitter (AWS style),
   * which spreads the retries of many clients after a shared outage; 0 is a fixed delay.
   * Default 1.
   */
  readonly jitter?: number;
}

/**
 * client-go's reflector numbers (RELIABILITY.md "Watches"), for talking to an API server: 800 ms
 * initial, ×2, cap 30 s, full jitter, reset after 2 min healthy. The default of watches and of
 * provider retries.
 *
 * @example
 * ```ts
 * watchEvents(cluster, configMaps, { backoff: { maxMs: 10_000 } }); // the rest from defaultBackoff
 * ```
 */
export const defaultBackoff: Backoff = Object.freeze({ initialMs: 800, factor: 2, maxMs: 30_000, resetAfterMs: 120_000, jitter: 1 });

/**
 * Backoff for 401/403: credentials or RBAC rarely fix themselves within seconds, so a cluster that
 * refuses us is asked again slowly (up to every 5 min) instead of being dropped; its health says why.
 *
 * @example
 * ```ts
 * watchEvents(cluster, configMaps, { authBackoff: { maxMs: 60_000 } }); // the rest from defaultAuthBackoff
 * ```
 */
export const defaultAuthBackoff: Backoff = Object.freeze({ initialMs: 10_000, factor: 2, maxMs: 300_000, resetAfterMs: 120_000, jitter: 1 });

/**
 * The upper bound of the delay before attempt `attempt` (0-based), before jitter.
 *
 * @example
 * ```ts
 * backoffCeiling(defaultBackoff, 0); // 800
 * backoffCeiling(defaultBackoff, 10); // 30000
 * ```
 * @param config - the backoff.
 * @param attempt - consecutive failures so far, minus one.
 * @returns milliseconds.
 */
export function backoffCeiling(config: Backoff, attempt: number): number {
  // factor ** a long outage's attempt count overflows to Infinity, which the cap absorbs.
  const grown = config.initialMs * config.factor ** Math.max(0, attempt);
  return Number.isFinite(grown) ? Math.min(config.maxMs, grown) : config.maxMs;
}

/**
 * The delay before attempt `attempt`: uniform in `[ceiling × (1 − jitter), ceiling]` where the
 * ceiling is `min(maxMs, initialMs × factor^attempt)`. Not rounded: schedulers take fractional
 * milliseconds.
 *
 * @example
 * ```ts
 * backoffDelay(defaultBackoff, 2, () => 0.5); // 1600: full jitter, half of the 3200 ms ceiling
 * backoffDelay({ initialMs: 5, factor: 2, maxMs: 1_000_000, jitter: 0 }, 3); // 40
 * ```
 * @param config - the backoff.
 * @param attempt - consecutive failures so far, minus one.
 * @param random - a source of uniform numbers in [0, 1); `Math.random` by default. Unused without jitter.
 * @returns milliseconds.
 */
export function backoffDelay(config: Backoff, attempt: number, random: () => number = Math.random): number {
  const ceiling = backoffCeiling(config, attempt);
  const jitter = config.jitter ?? 1;
  if (jitter === 0) return ceiling;
  const r = Math.min(Math.max(random(), 0), 1);
  return ceiling * (1 - jitter + jitter * r);
}

/**
 * Checks a backoff once, where it is configured, so a bad one fails before anything runs rather
 * than as a hot retry loop later. Meant for a config laid over defaults: `{ ...defaults, ...given }`.
 *
 * @example
 * ```ts
 * const backoff = checkBackoff({ ...defaultBackoff, ...options.backoff }, 'myProvider: backoff');
 * ```
 * @param config - the backoff.
 * @param where - the option, for the message (e.g. `reconcile: backoff`).
 * @returns the same config, frozen.
 * @throws ConfigError when `initialMs` is not above 0, `factor` below 1, `maxMs` or `resetAfterMs`
 *   negative, or `jitter` outside [0, 1].
 */
export function checkBackoff(config: Backoff, where: string): Backoff {
  const bad = (name: string, rule: string, v: number): never => {
    throw new ConfigError(`${where}.${name} must be ${rule}, got ${v}`);
  };
  const { initialMs, factor, maxMs, resetAfterMs, jitter } = config;
  if (!(Number.isFinite(initialMs) && initialMs > 0)) bad('initialMs', 'a finite number above 0', initialMs);
  if (!(Number.isFinite(factor) && factor >= 1)) bad('factor', 'a finite number ≥ 1', factor);
  if (!(Number.isFinite(maxMs) && maxMs >= 0)) bad('maxMs', 'a finite number ≥ 0', maxMs);
  if (resetAfterMs !== undefined && !(resetAfterMs >= 0)) bad('resetAfterMs', 'a number ≥ 0', resetAfterMs);
  if (jitter !== undefined && !(jitter >= 0 && jitter <= 1)) bad('jitter', 'between 0 and 1', jitter);
  return Object.freeze({ ...config });
}
