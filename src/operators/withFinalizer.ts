// Cleanup before deletion completes, as a reconciler wrapper: the finalizer is added before any
// apply logic runs, and removed only after cleanup succeeded.
import type { ObservableInput } from 'rxjs';
import { concatMap, defer, from, last, of } from 'rxjs';
import type { ObjectKey } from '../core/key.js';
import type { KubeObject } from '../core/object.js';
import type { Action } from './actions.js';
import { done, isAction } from './actions.js';
import type { ReconcileContext, ReconcileRequest, Reconciler } from './types.js';

/**
 * The two writes {@link withFinalizer} makes, each answering with the {@link Action} it amounts to:
 * `done()` once the finalizer is on (or off), anything else fails the reconcile with that action.
 * `finalizerWrites(ctx, resource)` from `rxfleet/sinks` is one (conflict-safe, and it never adds a
 * finalizer to an object being deleted); a test or a client patch can be another.
 *
 * @example
 * ```ts
 * const writes: FinalizerWrites<Rollout> = {
 *   ensure: (key, finalizer) => ensureFinalizer(sinkCtx, { key, resource: rollouts, finalizer }).pipe(toAction()),
 *   remove: (key, finalizer) => removeFinalizer(sinkCtx, { key, resource: rollouts, finalizer }).pipe(toAction()),
 * };
 * ```
 */
export interface FinalizerWrites<T extends KubeObject> {
  /** Adds `finalizer` to the object (`object` is the one being reconciled). */
  ensure(key: ObjectKey, finalizer: string, object: T): ObservableInput<Action>;
  /** Removes `finalizer`, which lets the deletion complete. */
  remove(key: ObjectKey, finalizer: string, object: T): ObservableInput<Action>;
}

/**
 * Options of {@link withFinalizer}.
 *
 * @example
 * ```ts
 * const config: WithFinalizerOptions<Rollout> = {
 *   finalizer: 'demo.rxfleet.dev/cleanup',
 *   writes: finalizerWrites(sinkCtx, rollouts),
 *   apply: applyRollout,
 *   cleanup: deleteCopiesEverywhere,
 * };
 * ```
 */
export interface WithFinalizerOptions<T extends KubeObject> {
  /** The finalizer's name in `metadata.finalizers`, qualified by a domain you own, e.g. `example.com/cleanup`. */
  readonly finalizer: string;
  /** How the finalizer is added and removed. */
  readonly writes: FinalizerWrites<T>;
  /** The apply logic, run when the object is not being deleted and carries the finalizer. */
  readonly apply: Reconciler<T>;
  /** The cleanup, run when the object is being deleted; the finalizer is removed once it is `done`. */
  readonly cleanup: Reconciler<T>;
}

// What a reconciler or a write answered last; nothing at all is `done`.
function lastAction(out: Action | ObservableInput<Action>): ObservableInput<Action> {
  return defer(() => (isAction(out) ? of(out) : from(out))).pipe(last(null, done()));
}

/**
 * Wraps apply and cleanup logic with a finalizer, so cleanup (e.g. deleting copies in other
 * clusters, where owner references cannot reach) runs before the object disappears:
 *
 * - object gone (`undefined`): `done()`; nothing can be cleaned up any more.
 * - being deleted (`deletionTimestamp`) and carrying the finalizer: run `cleanup`; when it answers
 *   `done`, remove the finalizer and answer what the removal answers. Any other answer of the
 *   cleanup (requeue, error) is returned as is, with the finalizer kept.
 * - being deleted without the finalizer: `done()`; a finalizer is never added to a deleting object.
 * - otherwise: add the finalizer if it is missing, then run `apply` in the same reconcile (no
 *   round trip through the watch); if adding fails, its answer is the reconcile's.
 *
 * @example
 * ```ts
 * events.pipe(reconcile(withFinalizer({ finalizer: 'example.com/copies', writes: finalizerWrites(sinkCtx, rollouts), apply: applyRollout, cleanup })));
 * ```
 * @see FinalizerWrites
 * @param config - the finalizer name, the two writes, and the apply and cleanup reconcilers.
 * @returns the wrapped reconciler.
 */
export function withFinalizer<T extends KubeObject>(config: WithFinalizerOptions<T>): Reconciler<T> {
  return (request: ReconcileRequest<T>, context: ReconcileContext) => {
    const object = request.object;
    if (object === undefined) return done();
    const has = (object.metadata.finalizers ?? []).includes(config.finalizer);
    if (object.metadata.deletionTimestamp !== undefined) {
      if (!has) return done();
      return from(lastAction(config.cleanup(request, context))).pipe(
        concatMap((a) => (a.type === 'done' ? lastAction(config.writes.remove(request.key, config.finalizer, object)) : of(a))),
      );
    }
    if (has) return config.apply(request, context);
    return from(lastAction(config.writes.ensure(request.key, config.finalizer, object))).pipe(
      concatMap((a) => (a.type === 'done' ? lastAction(config.apply(request, context)) : of(a))),
    );
  };
}
