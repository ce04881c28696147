// Cleanup before deletion completes, as a reconciler wrapper: the finalizer is added before any
// apply logic runs, and removed only after cleanup succeeded.
import type { ObservableInput } from 'rxjs';
import { concatMap, defer, from, last, map, of } from 'rxjs';
import type { ObjectKey } from '../core/key.js';
import type { KubeObject } from '../core/object.js';
import type { Action } from './actions.js';
import { done, error, isAction } from './actions.js';
import type { ReconcileContext, ReconcileRequest, Reconciler } from './types.js';

/**
 * Options of {@link withFinalizer}. `ensure` and `remove` perform the writes (`ensureFinalizer` and
 * `removeFinalizer` from `rxfleet/sinks`, or a client patch); whatever they emit last is their
 * result, and an fp-ts `Left` or an error counts as failure (the reconcile then fails, with the
 * Left's value as cause, and is retried with backoff).
 *
 * @example
 * ```ts
 * const finalizer = 'demo.rxfleet.dev/cleanup';
 * const config: FinalizerConfig<Rollout> = {
 *   finalizer,
 *   ensure: (key) => ensureFinalizer(sinkCtx, { key, resource: rollouts, finalizer }),
 *   remove: (key) => removeFinalizer(sinkCtx, { key, resource: rollouts, finalizer }),
 *   apply: applyRollout,
 *   cleanup: deleteCopiesEverywhere,
 * };
 * ```
 */
export interface FinalizerConfig<T extends KubeObject> {
  readonly finalizer: string;
  /** Adds the finalizer to the object. */
  readonly ensure: (key: ObjectKey, object: T) => ObservableInput<unknown>;
  /** Removes the finalizer, which lets the deletion complete. */
  readonly remove: (key: ObjectKey, object: T) => ObservableInput<unknown>;
  /** The apply logic, run when the object is not being deleted and carries the finalizer. */
  readonly apply: Reconciler<T>;
  /** The cleanup, run when the object is being deleted; the finalizer is removed once it is `done`. */
  readonly cleanup: Reconciler<T>;
}

const isLeft = (v: unknown): boolean => typeof v === 'object' && v !== null && (v as { _tag?: unknown })._tag === 'Left';

// Runs a write; a Left result becomes a failed reconcile carrying the Left's value.
function write(run: () => ObservableInput<unknown>): ObservableInput<Action> {
  return defer(run).pipe(
    last(null, undefined),
    map((r): Action => (isLeft(r) ? error((r as { left: unknown }).left) : done())),
  );
}

function actions(out: Action | ObservableInput<Action>): ObservableInput<Action> {
  return defer(() => (isAction(out) ? of(out) : from(out))).pipe(last(null, done()));
}

/**
 * Wraps apply and cleanup logic with a finalizer, so cleanup (e.g. deleting copies in other
 * clusters, where owner references cannot reach) runs before the object disappears:
 *
 * - object gone (`undefined`): `done()`; nothing can be cleaned up any more.
 * - being deleted (`deletionTimestamp`) and carrying the finalizer: run `cleanup`; when it answers
 *   `done`, call `remove` and answer `done()`. Any other answer (requeue, error) is returned as
 *   is, with the finalizer kept.
 * - being deleted without the finalizer: `done()`; a finalizer is never added to a deleting object.
 * - otherwise: `ensure` the finalizer if it is missing, then run `apply` in the same reconcile
 *   (no round trip through the watch).
 *
 * @example
 * ```ts
 * events.pipe(reconcile(withFinalizer({ finalizer: 'example.com/copies', ensure: addFinalizer, remove: dropFinalizer, apply: applyRollout, cleanup })));
 * ```
 * @param config - the finalizer name, the two writes, and the apply and cleanup reconcilers.
 * @returns the wrapped reconciler.
 */
export function withFinalizer<T extends KubeObject>(config: FinalizerConfig<T>): Reconciler<T> {
  return (request: ReconcileRequest<T>, context: ReconcileContext) => {
    const object = request.object;
    if (object === undefined) return done();
    const has = (object.metadata.finalizers ?? []).includes(config.finalizer);
    if (object.metadata.deletionTimestamp !== undefined) {
      if (!has) return done();
      return from(actions(config.cleanup(request, context))).pipe(
        concatMap((a) => (a._tag === 'done' ? write(() => config.remove(request.key, object)) : of(a))),
      );
    }
    if (has) return config.apply(request, context);
    return from(write(() => config.ensure(request.key, object))).pipe(
      concatMap((a) => (a._tag === 'done' ? actions(config.apply(request, context)) : of(a))),
    );
  };
}
