// Reconnect backoff for watches: how long to wait before the next attempt, as a pure function of
// the attempt number and a random source, so tests can pin the jitter.

/**
 * An exponential backoff with full jitter (AWS style): attempt `n` waits a uniform random time in
 * `[0, min(maxMs, initialMs · factor^n)]`.
 *
 * @example
 * ```ts
 * const fast: BackoffConfig = { initialMs: 100, factor: 2, maxMs: 5_000, resetAfterMs: 60_000 };
 * ```
 */
export interface BackoffConfig {
  /** Upper bound of the first delay. */
  readonly initialMs: number;
  /** Growth of the upper bound per consecutive failure. */
  readonly factor: number;
  /** The upper bound never grows past this. */
  readonly maxMs: number;
  /** After this long without a failure, the next failure starts again from `initialMs`. */
  readonly resetAfterMs: number;
}

/**
 * client-go's reflector numbers (RELIABILITY.md "Watches"): 800 ms initial, ×2, cap 30 s, reset
 * after 2 min healthy.
 *
 * @example
 * ```ts
 * watch(cluster, configMaps, { backoff: { ...defaultBackoff, maxMs: 10_000 } });
 * ```
 */
export const defaultBackoff: BackoffConfig = Object.freeze({ initialMs: 800, factor: 2, maxMs: 30_000, resetAfterMs: 120_000 });

/**
 * Backoff for 401/403: credentials or RBAC rarely fix themselves within seconds, so a cluster that
 * refuses us is asked again slowly (up to every 5 min) instead of being dropped; its health says why.
 *
 * @example
 * ```ts
 * watch(cluster, configMaps, { authBackoff: { ...defaultAuthBackoff, maxMs: 60_000 } });
 * ```
 */
export const defaultAuthBackoff: BackoffConfig = Object.freeze({ initialMs: 10_000, factor: 2, maxMs: 300_000, resetAfterMs: 120_000 });

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
export function backoffCeiling(config: BackoffConfig, attempt: number): number {
  // Compare in log space so a long outage cannot overflow to Infinity.
  const grown = config.initialMs * Math.pow(config.factor, Math.min(attempt, 64));
  return Math.min(config.maxMs, Number.isFinite(grown) ? grown : config.maxMs);
}

/**
 * The jittered delay before attempt `attempt`: uniform in `[0, backoffCeiling(config, attempt)]`.
 * Full jitter spreads the reconnects of many watches after a shared outage (a restarted API server)
 * instead of sending them back in lock-step.
 *
 * @example
 * ```ts
 * backoffDelay(defaultBackoff, 2, () => 0.5); // 1600
 * ```
 * @param config - the backoff.
 * @param attempt - consecutive failures so far, minus one.
 * @param random - a source of uniform numbers in [0, 1); `Math.random` in production.
 * @returns milliseconds, rounded down.
 */
export function backoffDelay(config: BackoffConfig, attempt: number, random: () => number): number {
  const r = Math.min(Math.max(random(), 0), 1);
  return Math.floor(r * backoffCeiling(config, attempt));
}
