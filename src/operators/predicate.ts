// Event filters: pass an applied event only when the part of the object a controller cares about
// changed since the last event for that key (controller-runtime's predicates, as an operator).
import type { MonoTypeOperatorFunction } from 'rxjs';
import { defer, filter } from 'rxjs';
import { formatKey } from '../core/key.js';
import type { KubeObject } from '../core/object.js';
import { forgetCluster } from './internal/keys.js';
import type { ReconcileInput } from './types.js';

/**
 * Passes an `applied` event only when `select(object)` differs (by `equals`) from the value
 * selected from the previous event for the same key; the first event of a key always passes.
 * Deletes, cluster removals and enqueue requests always pass.
 *
 * Memory: one selected value per live object, forgotten on delete and when its cluster is
 * removed; select something small (a generation, not the whole object).
 *
 * @example
 * ```ts
 * // Reconcile only when the spec's image changes (or on delete).
 * events.pipe(predicate((d: Deployment) => d.spec.template.spec.containers[0]?.image), reconcile(fn));
 * ```
 * @see generationChanged
 * @param select - the part of the object that matters.
 * @param equals - when two selected values count as unchanged; default `Object.is`.
 * @returns the filter operator.
 */
export function predicate<T extends KubeObject, V>(
  select: (object: T) => V,
  equals: (a: V, b: V) => boolean = Object.is,
): MonoTypeOperatorFunction<ReconcileInput<T>> {
  return (source) =>
    defer(() => {
      const seen = new Map<string, V>();
      return source.pipe(
        filter((ev) => {
          if (ev.type === 'clusterRemoved') {
            forgetCluster(seen, ev.cluster);
            return true;
          }
          if (ev.type === 'enqueue') return true;
          const id = formatKey(ev.key);
          if (ev.type === 'deleted') {
            seen.delete(id);
            return true;
          }
          const value = select(ev.object);
          const known = seen.has(id);
          const prev = seen.get(id);
          seen.set(id, value);
          return !known || !equals(prev as V, value);
        }),
      );
    });
}
