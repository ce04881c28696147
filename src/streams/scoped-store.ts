// One cluster's window onto a store shared by many: reads see only that cluster's objects, and keys
// use the cluster's fleet name even where the shared store knows it by another (a kcp workspace
// engaged under its path is stored under its logical name).
import type { ClusterName } from '../core/cluster.js';
import type { ObjectKey } from '../core/key.js';
import { formatKey, objectKey, parseKey } from '../core/key.js';
import type { KubeObject } from '../core/object.js';
import type { Store, StoreView } from './store.js';

// A class, not an object literal: a literal with a \`size\` getter is made in dictionary mode by V8
// (~0.45 KiB each, two per cluster: 9 MiB at 10,000 kcp workspaces, measured); here \`size\` is on
// the prototype and the methods stay detachable arrow functions.
class ScopedView<T extends KubeObject> implements StoreView<T> {
  protected readonly shared: StoreView<T>;
  protected readonly scope: ClusterName;
  protected readonly as: ClusterName;
  protected readonly scopeOf: (o: T) => ClusterName | undefined;

  constructor(shared: StoreView<T>, scope: ClusterName, as: ClusterName, scopeOf: (o: T) => ClusterName | undefined) {
    this.shared = shared;
    this.scope = scope;
    this.as = as;
    this.scopeOf = scopeOf;
  }

  readonly get = (key: ObjectKey | string): T | undefined => {
    const k = typeof key === 'string' ? parseKey(key) : key;
    return k?.cluster === this.as ? this.shared.get(formatKey(objectKey(this.scope, k.namespace, k.name))) : undefined;
  };

  readonly list = (): readonly T[] => this.shared.byIndex('cluster', this.scope);

  readonly byIndex = (index: string, value: string): readonly T[] => {
    if (index === 'cluster') return value === this.as ? this.list() : [];
    return this.shared.byIndex(index, value).filter((o) => this.scopeOf(o) === this.scope);
  };

  get size(): number {
    return this.list().length;
  }
}

class ScopedStore<T extends KubeObject> extends ScopedView<T> implements Store<T> {
  private readonly store: Store<T>;

  constructor(store: Store<T>, scope: ClusterName, as: ClusterName, scopeOf: (o: T) => ClusterName | undefined) {
    super(store, scope, as, scopeOf);
    this.store = store;
  }

  readonly synced = (cluster: ClusterName): boolean => cluster === this.as && this.store.synced(this.scope);

  readonly snapshot = (): StoreView<T> => new ScopedView(this.store.snapshot(), this.scope, this.as, this.scopeOf);
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
  return new ScopedStore(shared, scope, as, scopeOf);
}
