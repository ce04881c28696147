// The storage of one in-memory cluster: objects with their field ownership, one resourceVersion
// counter, and a bounded change log that watches replay from and follow.
import type { Observable } from 'rxjs';
import { Subject } from 'rxjs';
import type { ClusterName } from '../core/cluster.js';
import type { KubeObject } from '../core/object.js';
import type { ResourceDescriptor } from '../core/resource.js';
import { resourceId } from '../core/resource.js';
import { freezeJson } from './json-fields.js';
import type { ManagedSet } from './ssa-merge.js';

/**
 * One stored object and who owns which of its fields.
 *
 * @example
 * ```ts
 * const s: StoredObject | undefined = state.get(configMaps, 'default', 'a');
 * ```
 */
export interface StoredObject {
  /** The object as the server would return it (frozen, with `managedFields`). */
  readonly object: KubeObject;
  /** Field ownership by manager. */
  readonly sets: readonly ManagedSet[];
}

/**
 * One change of the store, as a watch reports it.
 *
 * @example
 * ```ts
 * state.changes.subscribe((c: StoreChange) => console.log(c.type, c.object.metadata.name));
 * ```
 */
export interface StoreChange {
  /** What happened to the object. */
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED';
  /** {@link resourceId} of the object's resource. */
  readonly resource: string;
  /** The object after the change (its last state for `DELETED`). */
  readonly object: KubeObject;
  /** The resourceVersion of the change. */
  readonly rv: number;
}

/**
 * The state of one in-memory cluster.
 *
 * @example
 * ```ts
 * const state = clusterState(clusterName('east'), () => 0, () => 'uid-1');
 * ```
 */
export interface ClusterState {
  /** The cluster's fleet name. */
  readonly cluster: ClusterName;
  /** The latest resourceVersion handed out. */
  rv(): number;
  /** One object. */
  get(r: ResourceDescriptor, namespace: string, name: string): StoredObject | undefined;
  /** Every object of a resource (in one namespace when given), by namespace then name. */
  list(r: ResourceDescriptor, namespace?: string): StoredObject[];
  /**
   * Stores an object with a fresh resourceVersion and logs the change; with `remove`, removes it
   * (logging `next`, else the stored object, as its last state).
   */
  commit(r: ResourceDescriptor, namespace: string, name: string, next: KubeObject | undefined, sets: readonly ManagedSet[], remove?: boolean): KubeObject;
  /** The logged changes of a resource after `rv`, or `'gone'` when the log no longer reaches back that far. */
  since(r: ResourceDescriptor, rv: number): readonly StoreChange[] | 'gone';
  /** Every change, synchronously, as it is committed. */
  readonly changes: Observable<StoreChange>;
  /** The scheduler's time as an RFC 3339 timestamp (seconds, as the server stamps). */
  timestamp(): string;
  /** A new uid, unique in the fleet. */
  uid(): string;
}

/** How many changes the log keeps by default; a watch resuming from before them gets 410 Gone, as after etcd compaction. */
export const changeLogSize = 1000;

/**
 * Makes the empty state of one cluster.
 *
 * @example
 * ```ts
 * let n = 0;
 * const state = clusterState(clusterName('east'), () => scheduler.now(), () => `uid-${++n}`);
 * ```
 * @param cluster - the cluster's name.
 * @param now - the clock (ms), e.g. the scheduler's `now`.
 * @param uid - makes uids (shared by the fleet, so no two clusters hand out the same one).
 * @param history - how many changes the log keeps.
 * @returns the state.
 */
export function clusterState(cluster: ClusterName, now: () => number, uid: () => string, history: number = changeLogSize): ClusterState {
  const objects = new Map<string, Map<string, StoredObject>>();
  const log: StoreChange[] = [];
  const changes = new Subject<StoreChange>();
  let rv = 0;
  const bucket = (r: ResourceDescriptor): Map<string, StoredObject> => {
    const id = resourceId(r);
    let m = objects.get(id);
    if (m === undefined) objects.set(id, (m = new Map<string, StoredObject>()));
    return m;
  };
  const slot = (namespace: string, name: string): string => `${namespace}/${name}`;
  return {
    cluster,
    rv: () => rv,
    get: (r, namespace, name) => bucket(r).get(slot(r.namespaced ? namespace : '', name)),
    list: (r, namespace) =>
      [...bucket(r).entries()]
        .filter(([, s]) => namespace === undefined || namespace === '' || !r.namespaced || s.object.metadata.namespace === namespace)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([, s]) => s),
    commit(r, namespace, name, next, sets, remove = next === undefined) {
      const m = bucket(r);
      const key = slot(r.namespaced ? namespace : '', name);
      const before = m.get(key);
      rv++;
      const last = next ?? before?.object ?? { metadata: {} };
      const object = freezeJson({ ...last, metadata: { ...last.metadata, resourceVersion: String(rv) } });
      if (remove) m.delete(key);
      else m.set(key, { object, sets });
      const change: StoreChange = Object.freeze({ type: remove ? 'DELETED' : before === undefined ? 'ADDED' : 'MODIFIED', resource: resourceId(r), object, rv });
      log.push(change);
      if (log.length > history) log.shift();
      changes.next(change);
      return object;
    },
    since(r, from) {
      const first = log[0];
      if (first !== undefined && from < first.rv - 1) return 'gone';
      const id = resourceId(r);
      return log.filter((c) => c.rv > from && c.resource === id);
    },
    changes: changes.asObservable(),
    timestamp: () => new Date(Math.floor(now() / 1000) * 1000).toISOString().replace('.000Z', 'Z'),
    uid,
  };
}
