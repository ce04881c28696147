// The finalizer sinks in the shape `withFinalizer` takes, so a reconciler with a finalizer needs no
// glue: conflict-safe writes whose outcomes are already reconcile results.
import type { KubeObject } from '../core/object.js';
import type { ResourceDescriptor } from '../core/resource.js';
import type { FinalizerWrites } from '../operators/withFinalizer.js';
import type { SinkContext } from './context.js';
import { ensureFinalizer } from './ensure-finalizer.js';
import { removeFinalizer } from './remove-finalizer.js';
import { toAction } from './to-action.js';

/**
 * {@link ensureFinalizer} and {@link removeFinalizer} of one resource, as the {@link FinalizerWrites}
 * of `withFinalizer`; each outcome becomes an action as {@link toAction} reads it (a Conflict that
 * outlasted the retries is retried with the reconcile's backoff; an object that started deleting
 * before the finalizer went on is `terminal`, and the deletion's own event runs the cleanup).
 *
 * @example
 * ```ts
 * import { finalizerWrites } from 'rxfleet/sinks';
 * const reconciler = withFinalizer<Rollout>({ finalizer: 'demo.rxfleet.dev/cleanup', writes: finalizerWrites(sinkCtx, rollouts), apply: applyRollout, cleanup: deleteCopies });
 * ```
 * @param ctx - the sink context.
 * @param resource - the resource the reconciled objects belong to.
 * @param options - `dryRun` for both writes.
 * @returns the two writes.
 */
export function finalizerWrites<T extends KubeObject>(ctx: SinkContext, resource: ResourceDescriptor<T>, options: { readonly dryRun?: boolean } = {}): FinalizerWrites<T> {
  const dryRun = options.dryRun === undefined ? {} : { dryRun: options.dryRun };
  return {
    ensure: (key, finalizer) => ensureFinalizer(ctx, { key, resource, finalizer, ...dryRun }).pipe(toAction()),
    remove: (key, finalizer) => removeFinalizer(ctx, { key, resource, finalizer, ...dryRun }).pipe(toAction()),
  };
}
