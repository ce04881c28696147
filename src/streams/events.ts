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
  | { readonly type: 'initStarted' }
  | { readonly type: 'initApply'; readonly object: T }
  | { readonly type: 'initDone' }
  | { readonly type: 'applied'; readonly object: T }
  | { readonly type: 'deleted'; readonly object: T };

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
  | { readonly type: 'applied'; readonly key: ObjectKey; readonly resource: ResourceDescriptor<T>; readonly object: T }
  | { readonly type: 'deleted'; readonly key: ObjectKey; readonly resource: ResourceDescriptor<T>; readonly object: T }
  | { readonly type: 'clusterRemoved'; readonly cluster: ClusterName };
