// How one watch request ended, for the counters of its health. An interruption is a watch that was
// open (the server answered 2xx and its stream began) and then ended early or failed. Every server
// ends every watch at the `timeoutSeconds` the request asked for (jittered per request, 5 to 10
// minutes): that renewal is routine and counted nowhere but `reconnects`, so a healthy watch has no
// interruption at any age. A request that never opened (no connection, a TLS failure, no answer in
// time, an answer other than 2xx) is a failed attempt, not an interruption: it is counted with the
// requests (`rxfleet_requests_total{verb="watch",result=...}`) and in the watch's health (failing,
// then degraded), so a cluster that stays down counts none. Kept apart from the state machine
// (watch-signals.ts), which only asks "what was this end", so the rule reads in one place.
import type { KubeError } from '../core/errors.js';

/** A watch that ends cleanly this fast without a single line is a server refusing in disguise. */
export const SHORT_WATCH_MS = 1_000;

// The client starts its clock before the server starts the request's timeout, so a renewal never
// comes early by the client's clock; the slack covers millisecond rounding and small clock steps.
const RENEWAL_SLACK_MS = 250;

/**
 * What ended a watch request's stream: a clean close, a failure already counted elsewhere (a 410
 * Gone is a relist; a server refusing streaming lists switches to list-then-watch), a failure once
 * the watch was open (a cut connection, an ERROR event, an undecodable line, the inactivity
 * timeout), or a failure before it opened (see {@link failedEnding}).
 *
 * @example
 * ```ts
 * const ending: WatchEnding = 'unopened'; // e.g. connect ECONNREFUSED
 * ```
 */
export type WatchEnding = 'clean' | 'counted' | 'failed' | 'unopened';

/**
 * How a failed watch request ended: `failed` if it was open when it failed (a line had come, or
 * the error carries the 2xx status the server had answered: the transport keeps it on a stream cut
 * after its headers), else `unopened` (no connection, TLS, no headers in time, a non-2xx answer).
 *
 * @example
 * ```ts
 * failedEnding(kubeError('ClusterUnreachable', east, 'connect ECONNREFUSED'), 0); // 'unopened'
 * failedEnding(kubeError('Transient', east, 'cut', { code: 200 }), 0); // 'failed'
 * ```
 * @param err - what the request failed with.
 * @param lines - lines the server had sent on it.
 * @returns its ending.
 */
export function failedEnding(err: KubeError, lines: number): 'failed' | 'unopened' {
  const opened = lines > 0 || (err.code !== undefined && err.code >= 200 && err.code < 300);
  return opened ? 'failed' : 'unopened';
}

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
 * - `refusal`: a clean close within a second without a line: a failure to back off from, and an
 *   interruption (the server answered 2xx, then ended the watch at once).
 * - `interruption`: an open watch that failed, or closed cleanly before its `timeoutSeconds`.
 * - `failedAttempt`: a request that never opened: a failure of the connection or of the server's
 *   answer, counted with the requests and in the watch's health, not as an interruption.
 * - `counted`: a failure counted elsewhere (a 410 Gone as a relist; streaming lists refused).
 *
 * @example
 * ```ts
 * watchEnd({ ending: 'clean', elapsedMs: 60_000, timeoutSeconds: 450, lines: 3 }); // 'interruption'
 * watchEnd({ ending: 'unopened', elapsedMs: 2, timeoutSeconds: 450, lines: 0 }); // 'failedAttempt'
 * ```
 * @param facts - how and when the request ended.
 * @returns its kind of end.
 */
export function watchEnd(facts: WatchEndFacts): 'renewal' | 'refusal' | 'interruption' | 'failedAttempt' | 'counted' {
  if (facts.ending === 'counted') return 'counted';
  if (facts.ending === 'unopened') return 'failedAttempt';
  if (facts.ending === 'failed') return 'interruption';
  if (facts.lines === 0 && facts.elapsedMs < SHORT_WATCH_MS) return 'refusal';
  return facts.elapsedMs >= facts.timeoutSeconds * 1_000 - RENEWAL_SLACK_MS ? 'renewal' : 'interruption';
}
