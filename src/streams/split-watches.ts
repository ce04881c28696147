// A provider's shared watches: for clusters that are parts of one server (namespaces of a cluster,
// workspaces behind one kcp endpoint), one watch per resource and selection on the whole, split by
// cluster, made on first use and stopped when no cluster's view is subscribed.
import type { ClusterName } from '../core/cluster.js';
import type { KubeObject } from '../core/object.js';
import type { ResourceDescriptor } from '../core/resource.js';
import type { CacheView, Cluster, Selection } from './cluster.js';
import { selectionKey } from './informers.js';
import type { SplitCache } from './split-cache.js';
import { splitCache } from './split-cache.js';
import type { Indexer } from './store.js';
import type { WatchedConfig } from './watched.js';
import { watched } from './watched.js';

/**
 * Options of {@link splitWatches}: how to watch, and which cluster an object belongs to.
 *
 * @example
 * ```ts
 * const config: SplitWatchesConfig = { scopeOf: (o: KubeObject) => clusterName(o.metadata.namespace ?? '') };
 * ```
 */
export interface SplitWatchesConfig extends WatchedConfig {
  /** The cluster an object belongs to; `undefined` ignores it. */
  readonly scopeOf: (object: KubeObject) => ClusterName | undefined;
}

/**
 * The shared watches of one parent cluster.
 *
 * @example
 * ```ts
 * const view = shared.view(configMaps, {}, clusterName('team-a'));
 * ```
 */
export interface SplitWatches {
  /** `scope`'s view (named `as`) of the parent's watch of `resource` with `options`, made on first use. */
  view<T extends KubeObject>(
    resource: ResourceDescriptor<T>,
    options: Selection & { readonly indexers?: Readonly<Record<string, Indexer<T>>> },
    scope: ClusterName,
    as?: ClusterName,
  ): CacheView<T>;
}

/**
 * Makes the shared watches of a parent cluster. Each distinct (resource, selection) is one watch on
 * the parent, split with {@link splitCache}; it runs while any view of it is subscribed. The
 * number of watches is bounded by the selections asked for, not by the number of clusters.
 *
 * @example
 * ```ts
 * const shared = splitWatches(hub, { scopeOf: (o: KubeObject) => clusterName(o.metadata.namespace ?? '') });
 * const teamA: Cluster = { name: clusterName('team-a'), client, cache: { view: (r, o) => shared.view(r, o, clusterName('team-a')) } };
 * ```
 * @param parent - the cluster the shared watches run against (its client, its name in health before renaming).
 * @param config - watch options and the object → cluster function.
 * @returns the registry.
 */
export function splitWatches(parent: Cluster, config: SplitWatchesConfig): SplitWatches {
  const { scopeOf, ...how } = config;
  const caches = new Map<string, SplitCache<KubeObject>>();
  return {
    view<T extends KubeObject>(
      resource: ResourceDescriptor<T>,
      options: Selection & { readonly indexers?: Readonly<Record<string, Indexer<T>>> },
      scope: ClusterName,
      as?: ClusterName,
    ): CacheView<T> {
      const { indexers, ...selection } = options;
      const key = selectionKey(resource, selection);
      let cache = caches.get(key) as SplitCache<T> | undefined;
      if (cache === undefined) {
        const { events, health } = watched(parent, resource, selection, how);
        cache = splitCache<T>({ events, health, scopeOf, ...(indexers === undefined ? {} : { indexers }) });
        caches.set(key, cache);
      }
      return cache.view(scope, as);
    },
  };
}
