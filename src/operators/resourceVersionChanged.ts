// Drops events that carry no change at all: the replays of a relist or a watch reconnect.
import type { MonoTypeOperatorFunction } from 'rxjs';
import type { KubeObject } from '../core/object.js';
import { predicate } from './predicate.js';
import type { ReconcileInput } from './types.js';

/**
 * Passes an `applied` event only when `metadata.resourceVersion` changed for its key, which drops
 * the replays a relist or a watch reconnect produces for unchanged objects. Deletes, removals and
 * enqueue requests always pass.
 *
 * @example
 * ```ts
 * events.pipe(resourceVersionChanged(), reconcile(fn));
 * ```
 * @see predicate
 * @returns the filter operator.
 */
export function resourceVersionChanged<T extends KubeObject>(): MonoTypeOperatorFunction<ReconcileInput<T>> {
  return predicate((o: T) => o.metadata.resourceVersion);
}
