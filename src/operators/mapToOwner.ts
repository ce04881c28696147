// Watches of owned objects wake their owner: a Pod event enqueues its ReplicaSet, in the same cluster.
import type { OperatorFunction } from 'rxjs';
import type { OwnerReference } from '../core/object.js';
import { objectKey } from '../core/key.js';
import type { KubeObject } from '../core/object.js';
import type { ResourceDescriptor } from '../core/resource.js';
import type { KeyedEvent } from '../streams/events.js';
import { mapToKeys } from './mapToKeys.js';
import type { ReconcileInput } from './types.js';

function groupOf(apiVersion: string): string {
  const i = apiVersion.indexOf('/');
  return i < 0 ? '' : apiVersion.slice(0, i);
}

/**
 * Maps each object event to an enqueue request for each owner of the given resource listed in
 * the object's `ownerReferences` (matched by kind and API group, any version). The owner key is
 * in the same cluster (owner references cannot cross clusters) and, for a namespaced owner, the
 * same namespace. `clusterRemoved` passes through.
 *
 * @example
 * ```ts
 * const input = merge(fleetWatch(fleet, rollouts), fleetWatch(fleet, pods).pipe(mapToOwner(rollouts, { controllerOnly: true })));
 * input.pipe(reconcile(reconcileRollout));
 * ```
 * @see mapToKeys
 * @param owner - the owner's resource.
 * @param options - `controllerOnly`: follow only the reference with `controller: true`.
 * @returns an operator from keyed events to reconcile input.
 */
export function mapToOwner<T extends KubeObject, O extends KubeObject>(
  owner: ResourceDescriptor<O>,
  options: { readonly controllerOnly?: boolean } = {},
): OperatorFunction<KeyedEvent<T>, ReconcileInput<O>> {
  const matches = (ref: OwnerReference) =>
    ref.kind === owner.kind && groupOf(ref.apiVersion) === owner.group && (options.controllerOnly !== true || ref.controller === true);
  return mapToKeys(owner, (ev) =>
    (ev.object.metadata.ownerReferences ?? [])
      .filter(matches)
      .map((ref) => objectKey(ev.key.cluster, owner.namespaced ? ev.key.namespace : '', ref.name)),
  );
}
