// Where a write meets the work queue: a sink's result becomes the reconcile result, by the error's
// class, so a reconciler ends with `.pipe(toAction())` instead of converting by hand.
import type { OperatorFunction } from 'rxjs';
import { reduce } from 'rxjs';
import type { KubeError } from '../core/errors.js';
import { isDenied } from '../core/denied.js';
import { isRetryable } from '../core/errors.js';
import type { Either } from '../internal/fp.js';
import { E } from '../internal/fp.js';
import type { Action } from '../operators/actions.js';
import { done, error, terminal } from '../operators/actions.js';
import type { WriteError } from './result.js';

// A later reconcile re-reads the object, which is what a Conflict needs (isRetryable leaves it out
// because a plain resend of the same request would conflict again). A 401/403 the server answered
// can be fixed while we run (RBAC, credentials): retried, on the queue's slow `authBackoff`.
const retryable = (e: KubeError | WriteError): boolean => {
  if (e.type === 'Conflict' || isDenied(e)) return true;
  // Refusals decided by a sink: the same write would be refused again.
  if (e.type === 'NoStatusSubresource' || e.type === 'Terminating' || e.type === 'RecipeFailed') return false;
  return isRetryable({ ...e, type: e.type });
};

/**
 * The reconcile result a write amounts to: a `Right` is `done()`; a `Left` is `error(cause)`
 * (retried with backoff, after the server's Retry-After when it sent one) when trying again later
 * may succeed without a change to the object, else `terminal(cause)` (reported once; the next
 * change to the object runs the key again).
 *
 * Retried:
 * - Transient (5xx), Timeout, TooManyRequests, ClusterUnreachable (`isRetryable`): the same
 *   request may succeed later;
 * - Conflict: the next reconcile re-reads the object and writes from what it finds;
 * - Forbidden (403) and Unauthorized (401) as answered by the server: RBAC, admission policies,
 *   quotas and credentials are changed while controllers run, so the key is retried on the
 *   queue's slow `authBackoff` (from 5 s up to every 5 min by default), and under `run` its
 *   cluster is `unhealthy` on /readyz until the key gets through.
 *
 * Terminal, because the same write would fail the same way until the object (or the controller)
 * changes, and retrying thousands of such keys would only cost requests:
 * - Invalid (422), BadRequest (400): the object or request is wrong (a field, a patch);
 * - NotFound (404): the object, its namespace or its resource is gone or not there; a watch of
 *   it announces its return (watch the namespace, or the resource, to be woken for it);
 * - MethodNotAllowed (405): the resource does not take that verb, a code fix;
 * - AlreadyExists (409 on create), Gone, Decode, InvalidConfig, Tls, NotEngaged, Unknown;
 * - a sink's refusal (NoStatusSubresource, Terminating, RecipeFailed), and a Forbidden made on
 *   this side without a server's answer (a tenant guard, a sync policy): decisions, not answers.
 *
 * @example
 * ```ts
 * const sync: Reconciler<ConfigMap> = async (req, ctx) => {
 *   if (req.object === undefined) return done();
 *   return actionOf(await firstValueFrom(apply(sinks, { cluster: req.cluster, resource: configMaps, object: req.object })));
 * };
 * ```
 * @see toAction for the operator form.
 * @param result - a sink's outcome, or any client result.
 * @returns the action.
 */
export function actionOf(result: Either<KubeError | WriteError, unknown>): Action {
  if (E.isRight(result)) return done();
  const cause = result.left;
  if (!retryable(cause)) return terminal(cause);
  return cause.retryAfterSeconds === undefined ? error(cause) : error(cause, { retryAfterMs: cause.retryAfterSeconds * 1000 });
}

const rank = (a: Action): number => (a.type === 'done' ? 0 : a.type === 'error' && !a.terminal ? 2 : 1);

/**
 * Ends a reconciler's writes: turns the outcomes of a sink (one write, or many with the `…Each`
 * operators) into the one {@link Action} the reconcile answers, when they are all in. Each outcome
 * is read as {@link actionOf} reads it (which failures are retried, which are terminal, and why:
 * see there; a 403 or 401 from the server is retried on the slow `authBackoff`), and the most
 * pressing wins: a failure worth retrying, else a terminal failure (the first of its kind is the
 * cause), else `done()`. No outcome is `done()`.
 *
 * @example
 * ```ts
 * const hello: ControllerReconciler<ConfigMap> = (req, ctx) => {
 *   if (req.object === undefined) return done();
 *   return apply(ctx.sinks, { cluster: req.cluster, resource: configMaps, object: reply(req.object) }).pipe(toAction());
 * };
 * ```
 * @see actionOf
 * @returns an operator from sink outcomes to one action.
 */
export function toAction(): OperatorFunction<Either<KubeError | WriteError, unknown>, Action> {
  return reduce<Either<KubeError | WriteError, unknown>, Action>((worst, result) => {
    const next = actionOf(result);
    return rank(next) > rank(worst) ? next : worst;
  }, done());
}
