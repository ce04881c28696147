// Warm take-over: a standby (leader election) or a shard member keeps the watches of the clusters
// it could take over open, in the run's own informers, so that taking a cluster over costs a
// lease, not a list. The warm watches are reads on the provider's own clients and feed no work
// queue: a cluster reconciles, and writes, only once it is engaged here (ownedFleet) and its
// requests pass the fence. When it is, its informers are served from the warm ones (as a cache
// the provider keeps is served), so its listing is a replay of what is already held.
import type { Subscription } from 'rxjs';
import type { ClusterName } from '../../core/cluster.js';
import { ConfigError } from '../../core/config-error.js';
import type { KubeObject } from '../../core/object.js';
import type { ResourceDescriptor } from '../../core/resource.js';
import type { CacheView, CacheViewOptions, Cluster, ClusterCache } from '../../streams/cluster.js';
import type { Informers } from '../../streams/informers.js';
import { selectionKey } from '../../streams/informers.js';
import type { WatchSpec } from '../cluster-keeper.js';
import { selects } from '../cluster-keeper.js';

/**
 * How many clusters a replica keeps warm: the watches of at most `maxClusters` clusters of the
 * provider stay open whether this replica runs them or not (the first engaged by the provider
 * first). `false` keeps none: a take-over lists every cluster it takes.
 *
 * @example
 * ```ts
 * const warm: WarmCachesOption = { maxClusters: 1_000 };
 * ```
 */
export type WarmCachesOption =
  | false
  | {
      /** The most clusters whose watches stay open (a whole number ≥ 0); the first engaged are kept. */
      readonly maxClusters: number;
    };

/**
 * The warm watches of a replica.
 *
 * @example
 * ```ts
 * const warm = warmCaches(informers, specs, { maxClusters: 500 });
 * warm.keep(cluster);                  // on the provider's engaged
 * const cache = warm.cacheOf(cluster); // what its engagement here is served from
 * ```
 */
export interface WarmCaches {
  /** Opens the declared watches of a cluster the provider engaged (while the bound allows). */
  keep(cluster: Cluster): void;
  /** Closes them when the provider disengages it. */
  drop(name: ClusterName): void;
  /** The cache an engagement of `cluster` here reads: its warm watches, else the provider's own cache. */
  cacheOf(cluster: Cluster): ClusterCache | undefined;
  /** Clusters kept warm now. */
  size(): number;
  /** Clusters kept warm whose every warm watch has listed (a take-over of them lists nothing). */
  synced(): number;
  /** Closes every warm watch. */
  close(): void;
}

interface Warm {
  readonly cluster: Cluster;
  readonly keys: Set<string>;
  readonly listed: Set<string>;
  readonly subs: Subscription[];
}

/**
 * Keeps the declared watches of the provider's clusters open, up to a bound.
 *
 * @example
 * ```ts
 * const warm = warmCaches(informers, specs, { maxClusters: 500 });
 * ```
 * @param informers - the run's informers (the warm watches are theirs, shared with the engaged ones).
 * @param specs - every controller's declared watches (read when a cluster is kept).
 * @param option - the bound.
 * @param changed - called when the number of clusters kept or synced changes (the replica's gauges).
 * @returns the warm watches.
 * @throws ConfigError when `maxClusters` is not a whole number ≥ 0.
 */
export function warmCaches(informers: Informers, specs: readonly WatchSpec[], option: WarmCachesOption, changed: () => void = () => undefined): WarmCaches {
  const max = option === false ? 0 : option.maxClusters;
  if (!Number.isInteger(max) || max < 0) throw new ConfigError(`replicas.warmCaches.maxClusters ${String(max)}: expected a whole number >= 0`);
  const warm = new Map<ClusterName, Warm>();
  let synced = 0;
  const isSynced = (w: Warm): boolean => w.listed.size === w.keys.size;
  const drop = (name: ClusterName): void => {
    const w = warm.get(name);
    if (w === undefined) return;
    warm.delete(name);
    if (isSynced(w)) synced -= 1;
    for (const s of w.subs) s.unsubscribe();
    changed();
  };
  return {
    keep(cluster) {
      if (warm.get(cluster.name)?.cluster === cluster) return;
      drop(cluster.name);
      if (warm.size >= max) return;
      const w: Warm = { cluster, keys: new Set(), listed: new Set(), subs: [] };
      warm.set(cluster.name, w);
      const opened: { readonly key: string; readonly spec: WatchSpec }[] = [];
      for (const spec of specs) {
        if (!selects(spec, cluster)) continue;
        const key = selectionKey(spec.resource, spec.options);
        if (w.keys.has(key)) continue;
        w.keys.add(key);
        opened.push({ key, spec });
      }
      if (isSynced(w)) synced += 1;
      changed();
      // Keys first, then the watches: a listing replayed at once counts against every key.
      for (const { key, spec } of opened) {
        const { clusterSelector: _c, ...options } = spec.options;
        const sub = informers.informer(cluster, spec.resource, options).events.subscribe((ev) => {
          if (ev.type !== 'initDone' || w.listed.has(key) || warm.get(cluster.name) !== w) return;
          w.listed.add(key);
          if (isSynced(w)) {
            synced += 1;
            changed();
          }
        });
        w.subs.push(sub);
      }
    },
    drop,
    cacheOf(cluster) {
      const w = warm.get(cluster.name);
      const own = cluster.cache;
      if (w?.cluster !== cluster) return own;
      return {
        view: <T extends KubeObject>(resource: ResourceDescriptor<T>, options: CacheViewOptions<T>, as: ClusterName): CacheView<T> | undefined => {
          const { indexers: _i, ...selection } = options;
          if (as !== cluster.name || warm.get(cluster.name) !== w || !w.keys.has(selectionKey(resource, selection))) return own?.view(resource, options, as);
          // The warm informer of the provider's cluster, whose store is keyed by the same name.
          const { events, health, store } = informers.informer(cluster, resource, options);
          return { events, health, store };
        },
      };
    },
    size: () => warm.size,
    synced: () => synced,
    close() {
      for (const name of [...warm.keys()]) drop(name);
    },
  };
}

