// The cache a controller's sinks may prove an apply needless from: the stores of the controller's
// own watches (its primary watch and its inputs), never another controller's. A watch of one's own
// is what makes the proof safe: any change after the cached version reaches the store as an event
// and wakes the controller again (see docs/guide: "Applies that send nothing").
import type { Observable } from 'rxjs';
import { filter, merge } from 'rxjs';
import type { ClusterName } from '../core/cluster.js';
import type { ObjectKey } from '../core/key.js';
import type { KubeObject } from '../core/object.js';
import type { ResourceDescriptor } from '../core/resource.js';
import { resourceId } from '../core/resource.js';
import type { SinkCache } from '../sinks/apply-cache.js';
import type { FleetView } from '../streams/cluster.js';
import type { Informer, Informers } from '../streams/informers.js';
import { watchFailing } from '../streams/watch-failing.js';
import type { WatchSpec } from './cluster-keeper.js';
import { selects } from './cluster-keeper.js';

/**
 * A {@link SinkCache} over a controller's declared watches: the object from the first of them that
 * watches its resource (same version) in its cluster and namespace, has listed, and holds it; and
 * while such a watch has not listed yet, its health until it has (or fails).
 *
 * @example
 * ```ts
 * const sinks = sinkContext({ clusters: fleet, fieldManager: 'ctl', cache: watchedCache(fleet, informers, mySpecs) });
 * ```
 * @param fleet - the live fleet.
 * @param informers - the run's informers.
 * @param specs - the controller's own watches (read at each lookup: inputs declare theirs late).
 * @returns the cache.
 */
export function watchedCache(fleet: FleetView, informers: Informers, specs: readonly WatchSpec[]): SinkCache {
  // The informers of the controller's watches that could hold the object.
  const informersOf = (name: ClusterName, resource: ResourceDescriptor, key: ObjectKey): Informer<KubeObject>[] => {
    const cluster = fleet.get(name);
    if (cluster === undefined) return [];
    const id = resourceId(resource);
    return specs.flatMap((spec) => {
      if (resourceId(spec.resource) !== id || spec.resource.version !== resource.version || !selects(spec, cluster)) return [];
      if (spec.options.namespace !== undefined && spec.options.namespace !== key.namespace) return [];
      const { clusterSelector: _c, indexers: _i, ...selection } = spec.options;
      return [informers.informer(cluster, spec.resource, selection)];
    });
  };
  return {
    get<T extends KubeObject>(name: ClusterName, resource: ResourceDescriptor<T>, key: ObjectKey): T | undefined {
      for (const { store } of informersOf(name, resource, key)) {
        if (!store.synced(name)) continue;
        const found = store.get(key);
        if (found !== undefined) return found as T;
      }
      return undefined;
    },
    listed(name: ClusterName, resource: ResourceDescriptor, key: ObjectKey): Observable<unknown> | undefined {
      const waits = informersOf(name, resource, key)
        .filter(({ store }) => !store.synced(name))
        .map(({ health }) => health.pipe(filter((h) => h.synced || watchFailing(h))));
      return waits.length === 0 ? undefined : merge(...waits);
    },
  };
}
