// A provider's shared watches: for clusters that are parts of one server (namespaces of a cluster,
// workspaces behind one kcp endpoint), one watch per resource and selection on the whole, split by
// cluster, made on first use and stopped when no cluster's view is subscribed.
import type { SchedulerLike } from 'rxjs';
import type { ClusterName } from '../core/cluster.js';
import type { KubeObject } from '../core/object.js';
import type { ResourceDescriptor } from '../core/resource.js';
import type { CacheView, CacheViewOptions, Cluster } from './cluster.js';
import { selectionKey } from './informers.js';
import { listPacer } from './list-pacing.js';
import type { SplitCache } from './split-cache.js';
import { splitCache } from './split-cache.js';
import type { WatchesOptions } from './watched.js';
import { watched } from './watched.js';

/**
 * Options of {@link splitWatches}: how to watch, and which cluster an object belongs to.
 *
 * @example
 * ```ts
 * const config: SplitWatchesOptions = { scopeOf: (o: KubeObject) => clusterName(o.metadata.namespace ?? '') };
 * ```
 */
export interface SplitWatchesOptions extends WatchesOptions {
  /** The cluster an object belongs to; `undefined` ignores it. */
  readonly scopeOf: (object: KubeObject) => ClusterName | undefined;
  /** Whether a cluster's objects are kept (default all); see `SplitCacheOptions.accepts` and {@link SplitWatches.rescope}. */
  readonly accepts?: (scope: ClusterName) => boolean;
  /** Drives every timer and timestamp of the parent's watches and of the split caches. Default `asyncScheduler`. */
  readonly scheduler?: SchedulerLike;
}

/**
 * The shared watches of one parent cluster: a view per (resource, selection, cluster), each backed
 * by the one watch of that resource and selection on the parent.
 *
 * @example
 * ```ts
 * const teamA = shared.view(configMaps, { labelSelector: 'app=web' }, clusterName('team-a'), clusterName('ns#team-a'));
 * teamA.events.subscribe(); // starts the parent's one watch of web ConfigMaps, if not running yet
 * ```
 */
export interface SplitWatches {
  /**
   * `scope`'s view of the parent's watch of `resource` with `options` (made on first use), named
   * `as` in its health and store keys: pass the name `ClusterCache.view` was given, never a name
   * kept from when the cluster was made (a composition may have renamed it since).
   */
  view<T extends KubeObject>(
    resource: ResourceDescriptor<T>,
    options: CacheViewOptions<T>,
    scope: ClusterName,
    as: ClusterName,
  ): CacheView<T>;
  /** Applies a change of `accepts` to every shared watch (`SplitCache.rescope`): releases the clusters no longer kept, relists for those kept now. */
  rescope(): void;
}

/**
 * Serves many clusters from one server's watches: what a provider uses when its clusters are parts
 * of one API server (namespaces of a cluster, workspaces behind one kcp endpoint, tenants selected
 * by a label), so that N clusters cost one watch per resource and selection instead of N.
 *
 * Give each engaged {@link Cluster} a `cache` whose `view(resource, selection, name)` asks
 * `shared.view(resource, selection, scope, name)`: informers (and so `controller`, `fleetWatch`,
 * `createInformers`) ask a cluster's cache before opening a watch of their own, and read the view
 * instead. Each distinct (resource, selection) is one watch on `parent`, split by `scopeOf` (the
 * cluster an object belongs to) with {@link splitCache}; it starts when the first cluster's view
 * is subscribed and stops when the last unsubscribes. A view's events, health and store have the
 * informer's contract: a listing, then live changes; the shared watch's health under the name the
 * view was asked for; the cluster's objects only, keyed with that name. The name comes from the
 * caller (informers pass the engaged cluster's), so a cluster renamed after its provider made it
 * (`withPrefix`, `multiProvider`) is served under its new name. Return `undefined` from `view` for
 * what the shared watches cannot serve (a selection the parent cannot watch cluster-wide): that
 * cluster then watches on its own.
 *
 * @example
 * ```ts
 * // A provider of one cluster per tenant label value, all on one server.
 * const tenantOf = (o: KubeObject) => (o.metadata.labels?.['tenant'] === undefined ? undefined : clusterName(o.metadata.labels['tenant']));
 * const tenants = (hub: Cluster, names: readonly string[]): Provider => {
 *   const shared = splitWatches(hub, { scopeOf: tenantOf });
 *   return from(
 *     names.map((t) => {
 *       const name = clusterName(t);
 *       return engaged({ name, client: hub.client, labels: { tenant: t }, cache: { view: (r, selection, as) => shared.view(r, selection, name, as) } });
 *     }),
 *   );
 * };
 * ```
 * @param parent - the cluster the shared watches run against (its client; its name in health before a view renames it).
 * @param config - how to watch (timeouts, backoff, `listerWatcherFor`) and `scopeOf`, the object → cluster function.
 * @returns the shared watches, made on first use.
 */
export function splitWatches(parent: Cluster, config: SplitWatchesOptions): SplitWatches {
  const { scopeOf, accepts, listsPerServer, ...rest } = config;
  const how = { ...rest, listPacer: config.listPacer ?? listPacer(listsPerServer) };
  const caches = new Map<string, SplitCache<KubeObject>>();
  return {
    view<T extends KubeObject>(
      resource: ResourceDescriptor<T>,
      options: CacheViewOptions<T>,
      scope: ClusterName,
      as: ClusterName,
    ): CacheView<T> {
      const { indexers, keepManagedFieldsOf, ...selection } = options;
      // The Apply entries kept: the provider's own choice and what this view asks for (its
      // controllers' field managers); a view asking for other managers gets a watch of its own.
      const keep = keepManagedFieldsOf === undefined || keepManagedFieldsOf.length === 0 ? undefined : [...new Set([...(rest.keepManagedFieldsOf ?? []), ...keepManagedFieldsOf])].sort();
      const key = keep === undefined ? selectionKey(resource, selection) : `${selectionKey(resource, selection)}\0${keep.join('\0')}`;
      let cache = caches.get(key) as SplitCache<T> | undefined;
      if (cache === undefined) {
        const { events, health } = watched(parent, resource, selection, keep === undefined ? how : { ...how, keepManagedFieldsOf: keep });
        cache = splitCache<T>({ events, health, scopeOf, ...(accepts === undefined ? {} : { accepts }), ...(how.scheduler === undefined ? {} : { scheduler: how.scheduler }), ...(indexers === undefined ? {} : { indexers }) });
        caches.set(key, cache);
      }
      return cache.view(scope, as);
    },
    rescope() {
      for (const cache of caches.values()) cache.rescope();
    },
  };
}
