// The building block of cross-cluster flows: an event in one cluster enqueues keys anywhere.
import type { OperatorFunction } from 'rxjs';
import { mergeMap } from 'rxjs';
import type { ObjectKey } from '../core/key.js';
import type { KubeObject } from '../core/object.js';
import type { ResourceDescriptor } from '../core/resource.js';
import type { KeyedEvent } from '../streams/events.js';
import type { ObjectEvent, ReconcileInput } from './types.js';
import { enqueue } from './types.js';

/**
 * Maps each object event to enqueue requests for the keys `toKeys` names, in any cluster (a
 * Secret in a hub cluster can enqueue a key in every workload cluster). `clusterRemoved` passes
 * through, so a `reconcile` fed by this stream drops the keys of a cluster that left.
 *
 * `toKeys` runs in the stream: it should be fast and must not throw (a throw is a bug and errors
 * the stream).
 *
 * @example
 * ```ts
 * // Every change to a hub ConfigMap re-reconciles the Rollout of the same name in each cluster.
 * const fleet = createFleet(provider);
 * hubConfigMaps.pipe(
 *   mapToKeys(rollouts, (ev) => fleet.clusters().map((c) => objectKey(c.name, ev.key.namespace, ev.key.name))),
 *   reconcile(syncRollout),
 * );
 * ```
 * @see mapToOwner
 * @param resource - the resource of the keys (what the downstream `reconcile` reconciles).
 * @param toKeys - the keys an event concerns; duplicates collapse in `reconcile`.
 * @returns an operator from keyed events to reconcile input.
 */
export function mapToKeys<T extends KubeObject, O extends KubeObject>(
  resource: ResourceDescriptor<O>,
  toKeys: (event: ObjectEvent<T>) => Iterable<ObjectKey>,
): OperatorFunction<KeyedEvent<T>, ReconcileInput<O>> {
  return mergeMap((ev): ReconcileInput<O>[] => {
    if (ev.type === 'clusterRemoved') return [ev];
    const out: ReconcileInput<O>[] = [];
    for (const key of toKeys(ev)) out.push(enqueue(key, resource));
    return out;
  });
}
