// The events streams emit. Per cluster and resource: WatchEvent. Across the fleet: KeyedEvent.

import type { ClusterName } from '../core/cluster.js';
import type { ObjectKey } from '../core/key.js';
import type { KubeObject } from '../core/object.js';
import type { ResourceDescriptor } from '../core/resource.js';

/**
 * What a watch of one resource in one cluster emits, in the style of kube-rs' watcher:
 *
 * - `initStarted`: a (re)list begins. Consumers that rebuild state start a fresh buffer here.
 * - `initApply`: one object of that listing.
 * - `initDone`: the listing is complete; objects buffered since `initStarted` are the whole state.
 *   A store replaces its content here and emits a delete for each object that vanished.
 * - `applied`: an object was added or modified after the listing.
 * - `deleted`: an object was deleted after the listing (its last known state).
 *
 * Objects are frozen; `managedFields` is stripped unless asked for.
 *
 * @example
 * ```ts
 * const ev: WatchEvent<ConfigMap> = { type: 'applied', object: cm };
 * ```
 */
export type WatchEvent<T extends KubeObject = KubeObject> =
  | {
      /** A (re)list begins: consumers that rebuild state start a fresh buffer. */
      readonly type: 'initStarted';
    }
  | {
      /** One object of the listing in progress. */
      readonly type: 'initApply';
      /** The listed object (frozen). */
      readonly object: T;
    }
  | {
      /** The listing is complete: the objects since `initStarted` are the whole state. */
      readonly type: 'initDone';
    }
  | {
      /** An object was added or modified after the listing. */
      readonly type: 'applied';
      /** Its new state (frozen). */
      readonly object: T;
    }
  | {
      /** An object was deleted after the listing. */
      readonly type: 'deleted';
      /** Its last known state (frozen). */
      readonly object: T;
    };

/**
 * One change to one object somewhere in the fleet, or the removal of a whole cluster. The key
 * carries the cluster, so the same namespace/name in two clusters never collides.
 *
 * - `applied` / `deleted`: the object's latest state (for `deleted`, its last known state).
 * - `clusterRemoved`: the cluster left the fleet; every key of it is gone at once. No per-object
 *   deletes are sent, and nothing from that engagement follows. If the same name is engaged
 *   again (a credential change is disengage + engage), its events start afresh with a listing.
 *
 * @example
 * ```ts
 * const ev: KeyedEvent<ConfigMap> = { type: 'applied', key, resource: configMaps, object: cm };
 * ```
 */
export type KeyedEvent<T extends KubeObject = KubeObject> =
  | {
      /** An object was listed, added or modified. */
      readonly type: 'applied';
      /** The object's cluster, namespace and name. */
      readonly key: ObjectKey;
      /** The resource (group, version, kind) the object belongs to. */
      readonly resource: ResourceDescriptor<T>;
      /** Its latest state (frozen). */
      readonly object: T;
    }
  | {
      /** An object was deleted (or vanished in a relist). */
      readonly type: 'deleted';
      /** The object's cluster, namespace and name. */
      readonly key: ObjectKey;
      /** The resource (group, version, kind) the object belongs to. */
      readonly resource: ResourceDescriptor<T>;
      /** Its last known state (frozen). */
      readonly object: T;
    }
  | {
      /** The cluster left the fleet: every key of it is gone at once, with no per-object deletes. */
      readonly type: 'clusterRemoved';
      /** The fleet name of the cluster removed. */
      readonly cluster: ClusterName;
    };
