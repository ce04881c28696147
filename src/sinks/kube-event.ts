// The reference to the object an events.k8s.io/v1 Event is about. The Event's type and resource
// are rxfleet/resources' own (`EventsV1Event`, `eventsV1Events`).
import type { KubeObject } from '../core/object.js';
import type { ResourceDescriptor } from '../core/resource.js';
import { apiVersionOf } from '../core/resource.js';
import type { ObjectReference } from '../resources/core-v1/types-3.js';

/**
 * The reference to put in `regarding` for an object of a resource.
 *
 * @example
 * ```ts
 * referenceTo(configMaps, cm); // { apiVersion: 'v1', kind: 'ConfigMap', namespace, name, uid, resourceVersion }
 * ```
 * @param r - the object's resource.
 * @param obj - the object.
 * @returns the reference.
 */
export function referenceTo(r: ResourceDescriptor, obj: KubeObject): ObjectReference {
  const m = obj.metadata;
  return {
    apiVersion: apiVersionOf(r),
    kind: r.kind,
    name: m.name ?? '',
    ...(r.namespaced && m.namespace !== undefined ? { namespace: m.namespace } : {}),
    ...(m.uid === undefined ? {} : { uid: m.uid }),
    ...(m.resourceVersion === undefined ? {} : { resourceVersion: m.resourceVersion }),
  };
}
