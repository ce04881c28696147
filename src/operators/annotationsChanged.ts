// Reconcile when the object's annotations change (annotations are not part of `generation`).
import type { MonoTypeOperatorFunction } from 'rxjs';
import type { KubeObject } from '../core/object.js';
import { sameRecord } from './internal/records.js';
import { predicate } from './predicate.js';
import type { ReconcileInput } from './types.js';

/**
 * Passes an `applied` event only when `metadata.annotations` changed for its key (compared entry by
 * entry; absent equals empty). Metadata writes do not bump `generation`, so combine with
 * {@link generationChanged} through {@link predicate} when both matter. Deletes, removals and
 * enqueue requests always pass.
 *
 * @example
 * ```ts
 * namespaceEvents.pipe(annotationsChanged(), reconcile(fn));
 * ```
 * @see predicate
 * @returns the filter operator.
 */
export function annotationsChanged<T extends KubeObject>(): MonoTypeOperatorFunction<ReconcileInput<T>> {
  return predicate((o: T) => o.metadata.annotations, sameRecord);
}
