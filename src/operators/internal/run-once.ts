// One reconcile, from the queue's side: call the reconciler, and report exactly one Action however
// it answers — a value, an ObservableInput of actions (the last counts), a throw, a rejection.
import type { Subscription } from 'rxjs';
import { from } from 'rxjs';
import { isDenied } from '../../core/denied.js';
import { isFenced } from '../../core/fenced.js';
import type { KubeObject } from '../../core/object.js';
import type { Action } from '../actions.js';
import { done, error, isAction } from '../actions.js';
import type { Backoff } from '../../streams/backoff.js';
import { backoffDelay } from '../../streams/backoff.js';
import type { OutcomeResult, ReconcileContext, ReconcileRequest, Reconciler } from '../types.js';

/**
 * Runs a reconciler and calls `finish` once with its answer; errors of every kind become `error`
 * actions.
 *
 * @example
 * ```ts
 * e.inner = runOnce(fn, request, ctx, (action: Action) => finish(e, run, action));
 * ```
 * @param fn - the reconciler.
 * @param request - what it reconciles.
 * @param ctx - its context.
 * @param finish - called once, possibly before this returns.
 * @returns the subscription to an asynchronous answer, to cancel it; `undefined` when it answered at once.
 */
export function runOnce<T extends KubeObject>(fn: Reconciler<T>, request: ReconcileRequest<T>, ctx: ReconcileContext, finish: (action: Action) => void): Subscription | undefined {
  let last: Action | undefined;
  try {
    const out = fn(request, ctx);
    if (isAction(out)) {
      finish(out);
      return undefined;
    }
    return from(out).subscribe({
      next: (a) => {
        last = a;
      },
      error: (err: unknown) => {
        finish(error(err));
      },
      complete: () => {
        finish(last === undefined ? done() : isAction(last) ? last : error(new TypeError('reconciler emitted a value that is not an Action')));
      },
    });
  } catch (err) {
    finish(error(err));
    return undefined;
  }
}

/**
 * What a finished run means for its key.
 *
 * @example
 * ```ts
 * const s: Settled = { result: 'error', failures: 1, retryAfterMs: 5, cause: new Error('boom') };
 * ```
 */
export interface Settled {
  readonly result: OutcomeResult;
  /** Consecutive failures of the key, this run included. */
  readonly failures: number;
  /** When to run the key again (ms), if the action asks for it. */
  readonly retryAfterMs: number | undefined;
  readonly cause: unknown;
}

/**
 * The two per-key backoffs a failed reconcile can wait: `backoff` for most failures, `authBackoff`
 * (slower) for a request the server refused with 401 or 403.
 *
 * @example
 * ```ts
 * const b: RetryBackoffs = { backoff: { initialMs: 5, factor: 2, maxMs: 1_000_000, jitter: 0 }, authBackoff: { initialMs: 5_000, factor: 2, maxMs: 300_000, jitter: 0.5 } };
 * ```
 */
export interface RetryBackoffs {
  readonly backoff: Backoff;
  readonly authBackoff: Backoff;
}

/**
 * Reads an action: a success (`done`, `requeue`) or a terminal error resets the failure count; an
 * error retries after its `retryAfter`, or after the per-key backoff of the grown count: the slow
 * `authBackoff` when the server refused a request of the reconcile with 401 or 403 (`isDenied`:
 * RBAC or credentials fixed at run time are picked up without a change to the object, at a cost of
 * one request per key per backoff step), else `backoff`. An error whose cause is a write the
 * replica's fence refused is `dropped`, terminal or not: ownership of its cluster moved (lease
 * lost, or handed over), the cluster is leaving this replica, and whoever runs it next reconciles
 * the key from its first list; here it is neither retried nor a failure.
 *
 * @example
 * ```ts
 * const slow = { initialMs: 5_000, factor: 2, maxMs: 300_000, jitter: 0 };
 * settle(error('boom'), 2, { backoff: { initialMs: 5, factor: 2, maxMs: 1_000_000, jitter: 0 }, authBackoff: slow }).retryAfterMs; // 20
 * ```
 * @param action - what the reconciler answered.
 * @param failures - consecutive failures of the key before this run.
 * @param backoffs - the per-key backoffs.
 * @returns the outcome's result, the new failure count and the retry delay.
 */
export function settle(action: Action, failures: number, backoffs: RetryBackoffs): Settled {
  if (action.type === 'done') return { result: 'done', failures: 0, retryAfterMs: undefined, cause: undefined };
  if (action.type === 'requeue') return { result: 'requeue', failures: 0, retryAfterMs: action.retryAfterMs, cause: undefined };
  if (isFenced(action.cause)) return { result: 'dropped', failures: 0, retryAfterMs: undefined, cause: action.cause };
  if (action.terminal) return { result: 'terminal', failures: 0, retryAfterMs: undefined, cause: action.cause };
  const backoff = isDenied(action.cause) ? backoffs.authBackoff : backoffs.backoff;
  return { result: 'error', failures: failures + 1, retryAfterMs: action.retryAfterMs ?? backoffDelay(backoff, failures), cause: action.cause };
}
