// Removes a finalizer, conflict-safe: the last step of a cleanup, after which the server may
// delete the object. A missing object or an absent finalizer is success with no change.
import type { Observable, OperatorFunction } from 'rxjs';
import type { KubeObject } from '../core/object.js';
import { readModifyWrite } from './conflict-retry.js';
import type { SinkContext } from './context.js';
import type { FinalizerWrite } from './ensure-finalizer.js';
import type { SinkOperatorOptions } from './operator.js';
import { writeEach } from './operator.js';
import type { WriteOutcome } from './result.js';

/**
 * Removes a finalizer from an object. Unlike a JSON patch by index, the conflict-retry loop
 * removes it by name from the latest object, so other controllers' finalizers are never touched.
 * Requests: GET then PUT, or the PUT alone when `current` is given.
 *
 * @example
 * ```ts
 * import { removeFinalizer } from 'rxfleet/sinks';
 * removeFinalizer(ctx, { key, resource: rollouts, finalizer: 'rollouts.demo.rxfleet.dev/cleanup' }).subscribe(report);
 * ```
 * @param ctx - the sink context.
 * @param write - the object and the finalizer.
 * @returns one outcome (`object` is undefined when the object was already gone), then completes; never errors.
 */
export function removeFinalizer<T extends KubeObject>(ctx: SinkContext, write: FinalizerWrite<T>): Observable<WriteOutcome<T>> {
  const { finalizer } = write;
  return readModifyWrite(
    ctx,
    write.resource,
    write.key,
    (current) => {
      const finalizers = current.metadata.finalizers ?? [];
      if (!finalizers.includes(finalizer)) return { type: 'unchanged' };
      return { type: 'write', object: { ...current, metadata: { ...current.metadata, finalizers: finalizers.filter((f) => f !== finalizer) } } };
    },
    { missing: 'unchanged', ...(write.dryRun === undefined ? {} : { dryRun: write.dryRun }), current: write.current },
  );
}

/**
 * The operator form of {@link removeFinalizer}.
 *
 * @example
 * ```ts
 * cleanedUp.pipe(removeFinalizerEach(ctx)).subscribe(report);
 * ```
 * @param ctx - the sink context.
 * @param config - concurrency.
 * @returns an operator from writes to outcomes.
 */
export function removeFinalizerEach<T extends KubeObject>(ctx: SinkContext, config?: SinkOperatorOptions): OperatorFunction<FinalizerWrite<T>, WriteOutcome<T>> {
  return writeEach((w: FinalizerWrite<T>) => removeFinalizer(ctx, w), config);
}
