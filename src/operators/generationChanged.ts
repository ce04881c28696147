// The most common filter: reconcile on spec changes, not on the status writes a controller makes.
import type { MonoTypeOperatorFunction } from 'rxjs';
import type { KubeObject } from '../core/object.js';
import { predicate } from './predicate.js';
import type { ReconcileInput } from './types.js';

/**
 * Passes an `applied` event only when `metadata.generation` changed for its key: the API server
 * bumps it on spec writes, not on status or metadata writes, so a controller's own status updates
 * do not wake it. Objects without a generation (ConfigMaps) pass only their first event. Deletes,
 * removals and enqueue requests always pass.
 *
 * @example
 * ```ts
 * rolloutEvents.pipe(generationChanged(), reconcile(fn));
 * ```
 * @see predicate
 * @returns the filter operator.
 */
export function generationChanged<T extends KubeObject>(): MonoTypeOperatorFunction<ReconcileInput<T>> {
  return predicate((o: T) => o.metadata.generation);
}
