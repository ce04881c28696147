// One cluster's window onto a store shared by many: reads see only that cluster's objects, and keys
// use the cluster's fleet name even where the shared store knows it by another (a kcp workspace
// engaged under its path is stored under its logical name).
import type { ClusterName } from '../core/cluster.js';
import type { ObjectKey } from '../core/key.js';
import { formatKey, objectKey, parseKey } from '../core/key.js';
import type { KubeObject } from '../core/object.js';
import type { Store, StoreView } from './store.js';

function scopedView<T extends KubeObject>(shared: StoreView<T>, scope: ClusterName, as: ClusterName, scopeOf: (o: T) => ClusterName | undefined): StoreView<T> {
  const inScope = (key: ObjectKey | string): string | undefined => {
    const k = typeof key === 'string' ? parseKey(key) : key;
    return k?.cluster === as ? formatKey(objectKey(scope, k.namespace, k.name)) : undefined;
  };
  const mine = (): readonly T[] => shared.byIndex('cluster', scope);
  return {
    get: (key) => {
      const k = inScope(key);
      return k === undefined ? undefined : shared.get(k);
    },
    list: mine,
    byIndex: (index, value) => {
      if (index === 'cluster') return value === as ? mine() : [];
      return shared.byIndex(index, value).filter((o) => scopeOf(o) === scope);
    },
    get size() {
      return mine().length;
    },
  };
}

/**
 * The {@link Store} of one cluster inside a shared store: `get` takes keys with the cluster's
 * name `as`, `list` and `byIndex` return only objects of `scope`, `synced` answers for `as`.
 *
 * @example
 * ```ts
 * const teamA = scopedStore(shared, clusterName('team-a'), clusterName('team-a'), (o: KubeObject) => clusterName(o.metadata.namespace ?? ''));
 * teamA.get(objectKey(clusterName('team-a'), 'team-a', 'settings'));
 * ```
 * @param shared - the store every cluster's objects are in, keyed by scope.
 * @param scope - the name the shared store files this cluster's objects under.
 * @param as - the cluster's fleet name (in keys and `synced`).
 * @param scopeOf - the scope of an object (to filter custom indexes).
 * @returns the cluster's store.
 */
export function scopedStore<T extends KubeObject>(shared: Store<T>, scope: ClusterName, as: ClusterName, scopeOf: (o: T) => ClusterName | undefined): Store<T> {
  const live = scopedView(shared, scope, as, scopeOf);
  return {
    get: live.get,
    list: live.list,
    byIndex: live.byIndex,
    get size() {
      return live.size;
    },
    synced: (cluster) => cluster === as && shared.synced(scope),
    snapshot: () => scopedView(shared.snapshot(), scope, as, scopeOf),
  };
}
