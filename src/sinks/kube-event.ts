// The Event objects of events.k8s.io/v1 as rxfleet writes them: the resource, its shape, and the
// reference to the object an Event is about.
import type { KubeObject } from '../core/object.js';
import type { ResourceDescriptor } from '../core/resource.js';
import { apiVersionOf, resource } from '../core/resource.js';

/**
 * A reference to the object an Event is about.
 *
 * @example
 * ```ts
 * const ref: ObjectReference = { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'a', uid: 'u-1' };
 * ```
 */
export interface ObjectReference {
  /** API group and version of the object, e.g. `v1` or `apps/v1`. */
  readonly apiVersion: string;
  /** Kind of the object, e.g. `ConfigMap`. */
  readonly kind: string;
  /** Name of the object. */
  readonly name: string;
  /** Namespace of the object; absent for a cluster-scoped one (its Events then go to `default`). */
  readonly namespace?: string;
  /** UID of the object, telling it apart from a later namesake; absent when not known. */
  readonly uid?: string;
  /** The object's resourceVersion the Event is about; absent when not known. */
  readonly resourceVersion?: string;
}

/**
 * An `events.k8s.io/v1` Event.
 *
 * @example
 * ```ts
 * const count = (event: EventsV1Event) => event.series?.count ?? 1;
 * ```
 */
export interface EventsV1Event extends KubeObject {
  /** When the first occurrence was observed, as an RFC 3339 time with microseconds. */
  readonly eventTime: string;
  /** Present once the Event stands for repeated occurrences; absent for a single one. */
  readonly series?: {
    /** Occurrences so far, the first included. */
    readonly count: number;
    /** When the latest occurrence was observed (RFC 3339, microseconds). */
    readonly lastObservedTime: string;
  };
  /** The controller that emitted the Event, as a qualified name, e.g. `example.com/my-controller`. */
  readonly reportingController: string;
  /** The replica of that controller that emitted it, e.g. its pod name. */
  readonly reportingInstance: string;
  /** What the controller did or failed to do to the object, e.g. `Apply`. */
  readonly action: string;
  /** Why, in UpperCamelCase, e.g. `Synced` or `SyncFailed`. */
  readonly reason: string;
  /** Human-readable details (≤ 1 kB); absent when there are none. */
  readonly note?: string;
  /** `Warning` for something a person should look at, `Normal` otherwise. */
  readonly type: 'Normal' | 'Warning';
  /** The object the Event is about. */
  readonly regarding: ObjectReference;
  /** A second object involved (e.g. the Node a Pod was scheduled to); absent when there is none. */
  readonly related?: ObjectReference;
}

/** The `events.k8s.io/v1` Event resource. @example `client.list(eventsV1Events, { namespace: 'default' })` */
export const eventsV1Events: ResourceDescriptor<EventsV1Event> = resource<EventsV1Event>({ group: 'events.k8s.io', version: 'v1', plural: 'events', kind: 'Event', namespaced: true });

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
