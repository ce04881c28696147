// How one watch request ended, for the counters of its health. Every server ends every watch at the
// `timeoutSeconds` the request asked for (jittered per request, 5 to 10 minutes): that renewal is
// routine and counted nowhere but `reconnects`, so a healthy watch has no interruption at any age.
// Anything else — an early clean close (a proxy's idle timeout, a server going away), a cut
// connection, an error, the inactivity timeout — is an interruption. Kept apart from the state
// machine (watch-signals.ts), which only asks "what was this end", so the rule reads in one place.

/** A watch that ends cleanly this fast without a single line is a server refusing in disguise. */
export const SHORT_WATCH_MS = 1_000;

// The client starts its clock before the server starts the request's timeout, so a renewal never
// comes early by the client's clock; the slack covers millisecond rounding and small clock steps.
const RENEWAL_SLACK_MS = 250;

/**
 * What ended a watch request's stream: a clean close, a failure already counted elsewhere (a 410
 * Gone is a relist; a server refusing streaming lists switches to list-then-watch), or any other
 * failure (errors, cut connections, undecodable lines, the inactivity timeout).
 *
 * @example
 * ```ts
 * const ending: WatchEnding = 'clean';
 * ```
 */
export type WatchEnding = 'clean' | 'counted' | 'failed';

/**
 * The facts of one ended watch request.
 *
 * @example
 * ```ts
 * const facts: WatchEndFacts = { ending: 'clean', elapsedMs: 450_000, timeoutSeconds: 450, lines: 12 };
 * ```
 */
export interface WatchEndFacts {
  /** How its stream ended. */
  readonly ending: WatchEnding;
  /** From just before the request was sent to its end, by the watch's scheduler. */
  readonly elapsedMs: number;
  /** The `timeoutSeconds` this request asked the server for. */
  readonly timeoutSeconds: number;
  /** Lines the server sent on it (events, bookmarks). */
  readonly lines: number;
}

/**
 * What a watch request's end was:
 * - `renewal`: a clean close at (or after) the `timeoutSeconds` it asked for: routine.
 * - `refusal`: a clean close within a second without a line: a failure to back off from, and an interruption.
 * - `interruption`: any other failure, or a clean close before its `timeoutSeconds`.
 * - `counted`: a failure counted elsewhere (a 410 Gone as a relist; streaming lists refused).
 *
 * @example
 * ```ts
 * watchEnd({ ending: 'clean', elapsedMs: 60_000, timeoutSeconds: 450, lines: 3 }); // 'interruption'
 * ```
 * @param facts - how and when the request ended.
 * @returns its kind of end.
 */
export function watchEnd(facts: WatchEndFacts): 'renewal' | 'refusal' | 'interruption' | 'counted' {
  if (facts.ending === 'counted') return 'counted';
  if (facts.ending === 'failed') return 'interruption';
  if (facts.lines === 0 && facts.elapsedMs < SHORT_WATCH_MS) return 'refusal';
  return facts.elapsedMs >= facts.timeoutSeconds * 1_000 - RENEWAL_SLACK_MS ? 'renewal' : 'interruption';
}
