// Rate limit for repeated log lines: the same failure retried every few seconds must not flood a
// shared log backend, yet the count of what was held back must not be lost. Pure and clock-injected,
// so tests use a fake clock and never sleep.

/**
 * What to do with one occurrence of a keyed line.
 *
 * @example
 * ```ts
 * const d: LogDecision = limiter.admit('east|NotFound|configmaps "a" not found');
 * if (d.type === 'log') log.warn({ repeated: d.repeated }, 'reconcile failed');
 * ```
 */
export type LogDecision =
  | {
      /** Log this occurrence. */
      readonly type: 'log';
      /** How many identical occurrences were suppressed since the key's last logged line (0 for the first). */
      readonly repeated: number;
    }
  | {
      /** Drop this occurrence; it is counted into the next logged line's `repeated`. */
      readonly type: 'suppress';
    };

/**
 * Options of {@link createLogLimiter}.
 *
 * @example
 * ```ts
 * const opts: LogLimiterOptions = { windowMs: 30_000, maxKeys: 1_000, now: () => Date.now() };
 * ```
 */
export interface LogLimiterOptions {
  /** At most one line per key per window, in ms (default 30 s). */
  readonly windowMs?: number;
  /** Keys tracked at most; the least recently seen is forgotten first (default 1,000). */
  readonly maxKeys?: number;
  /** The clock, in ms (default `Date.now`). */
  readonly now?: () => number;
}

/**
 * Decides, per key, which occurrences of a repeated line are logged.
 *
 * @example
 * ```ts
 * const limiter: LogLimiter = createLogLimiter();
 * limiter.admit('east|Conflict|the object has been modified');
 * ```
 */
export interface LogLimiter {
  /**
   * Records one occurrence of `key` and says whether to log it. The first occurrence is logged;
   * later ones within `windowMs` of the last logged line are suppressed and counted; the first one
   * after the window is logged with that count. A burst's trailing suppressed occurrences are only
   * reported if the key occurs again (no timer: the limiter never logs on its own).
   */
  readonly admit: (key: string) => LogDecision;
  /** How many keys are tracked now (at most `maxKeys`). */
  readonly size: () => number;
}

interface Entry {
  loggedAt: number;
  suppressed: number;
}

/**
 * Creates a {@link LogLimiter}: one line per key per window, with the count of the suppressed ones,
 * in bounded memory (an LRU of at most `maxKeys` keys; a forgotten key starts afresh).
 *
 * @example
 * ```ts
 * let t = 0;
 * const limiter = createLogLimiter({ windowMs: 30_000, now: () => t });
 * limiter.admit('k'); // { type: 'log', repeated: 0 }
 * t = 5_000;
 * limiter.admit('k'); // { type: 'suppress' }
 * t = 31_000;
 * limiter.admit('k'); // { type: 'log', repeated: 1 }
 * ```
 * @param options - window, key cap and clock.
 * @returns the limiter.
 */
export function createLogLimiter(options: LogLimiterOptions = {}): LogLimiter {
  const windowMs = options.windowMs ?? 30_000;
  const maxKeys = Math.max(1, options.maxKeys ?? 1_000);
  const now = options.now ?? Date.now;
  // A Map iterates in insertion order: re-inserting on each use makes the first key the least recent.
  const entries = new Map<string, Entry>();
  const admit = (key: string): LogDecision => {
    const t = now();
    const entry = entries.get(key);
    if (entry !== undefined) entries.delete(key);
    if (entry !== undefined && t - entry.loggedAt < windowMs) {
      entry.suppressed += 1;
      entries.set(key, entry);
      return { type: 'suppress' };
    }
    entries.set(key, { loggedAt: t, suppressed: 0 });
    if (entries.size > maxKeys) {
      const oldest = entries.keys().next();
      if (oldest.done !== true) entries.delete(oldest.value);
    }
    return { type: 'log', repeated: entry?.suppressed ?? 0 };
  };
  return { admit, size: () => entries.size };
}
