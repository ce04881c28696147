// Test inputs for marble diagrams: keyed events and enqueue requests built from short strings, so a
// diagram's values dictionary reads like the scenario ("east/a applied", "east removed").
import { clusterName } from '../core/cluster.js';
import type { ObjectKey } from '../core/key.js';
import { objectKey } from '../core/key.js';
import type { KubeObject, ObjectMeta } from '../core/object.js';
import type { ResourceDescriptor } from '../core/resource.js';
import { apiVersionOf } from '../core/resource.js';
import type { EnqueueRequest } from '../operators/types.js';
import { enqueue } from '../operators/types.js';
import type { KeyedEvent } from '../streams/events.js';

/**
 * Extra fields of a test object: metadata to merge (name and namespace come from the ref) and any
 * top-level field such as `spec`.
 *
 * @example
 * ```ts
 * const fields: ObjectFields<ConfigMap> = { metadata: { generation: 2, labels: { app: 'web' } }, data: { k: 'v' } };
 * ```
 */
export type ObjectFields<T extends KubeObject> = Omit<Partial<T>, 'metadata'> & {
  /** Metadata of the object (labels, generation…); its name and namespace always come from the ref. */
  readonly metadata?: ObjectMeta;
};

/**
 * Builds keyed events of one resource. A `ref` is `'namespace/name'`, or `'name'` for a
 * cluster-scoped object; cluster names are plain strings.
 *
 * @example
 * ```ts
 * const ev = keyedEvents(configMaps);
 * const values = { a: ev.applied('east', 'default/a'), d: ev.deleted('east', 'default/a'), x: ev.removed('east') };
 * ```
 */
export interface KeyedEventBuilder<T extends KubeObject> {
  /** The key of `ref` in `cluster`. */
  key(cluster: string, ref: string): ObjectKey;
  /** A frozen object with `apiVersion`, `kind`, name and namespace filled in. */
  object(cluster: string, ref: string, fields?: ObjectFields<T>): T;
  /** An `applied` event of the object `ref` (`namespace/name`) in `cluster`. */
  applied(cluster: string, ref: string, fields?: ObjectFields<T>): KeyedEvent<T>;
  /** A `deleted` event of the object `ref` in `cluster`. */
  deleted(cluster: string, ref: string, fields?: ObjectFields<T>): KeyedEvent<T>;
  /** An enqueue request for the key of `ref` in `cluster`. */
  enqueue(cluster: string, ref: string): EnqueueRequest<T>;
  /** The `clusterRemoved` event of `cluster`. */
  removed(cluster: string): KeyedEvent<T>;
}

function split(ref: string): readonly [string, string] {
  const i = ref.indexOf('/');
  return i < 0 ? ['', ref] : [ref.slice(0, i), ref.slice(i + 1)];
}

/**
 * Makes a {@link KeyedEventBuilder} for a resource.
 *
 * @example
 * ```ts
 * const ev = keyedEvents(configMaps);
 * hot('a-b-x', { a: ev.applied('east', 'default/a'), b: ev.applied('west', 'default/a'), x: ev.removed('east') });
 * ```
 * @param resource - the resource of the objects.
 * @returns the builder.
 */
export function keyedEvents<T extends KubeObject>(resource: ResourceDescriptor<T>): KeyedEventBuilder<T> {
  const key = (cluster: string, ref: string): ObjectKey => {
    const [namespace, name] = split(ref);
    return objectKey(clusterName(cluster), namespace, name);
  };
  const object = (cluster: string, ref: string, fields?: ObjectFields<T>): T => {
    const k = key(cluster, ref);
    const metadata: ObjectMeta = Object.freeze({ ...fields?.metadata, name: k.name, ...(k.namespace === '' ? {} : { namespace: k.namespace }) });
    // The one cast of the kit: a test object has only the fields the test gives it.
    return Object.freeze({ apiVersion: apiVersionOf(resource), kind: resource.kind, ...fields, metadata }) as unknown as T;
  };
  return {
    key,
    object,
    applied: (cluster, ref, fields) => Object.freeze({ type: 'applied', key: key(cluster, ref), resource, object: object(cluster, ref, fields) }),
    deleted: (cluster, ref, fields) => Object.freeze({ type: 'deleted', key: key(cluster, ref), resource, object: object(cluster, ref, fields) }),
    enqueue: (cluster, ref) => enqueue(key(cluster, ref), resource),
    removed: (cluster) => Object.freeze({ type: 'clusterRemoved', cluster: clusterName(cluster) }),
  };
}
