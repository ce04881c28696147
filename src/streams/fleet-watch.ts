// The keyed fleet stream: one resource across every engaged cluster, as one stream of keyed events.
// Per cluster the chain reads: shared informer → cut at disengage → keyed → then `clusterRemoved`.
import type { Observable } from 'rxjs';
import { concat, mergeMap, of, takeUntil } from 'rxjs';
import type { KubeObject } from '../core/object.js';
import type { ResourceDescriptor } from '../core/resource.js';
import type { KeyedEvent } from './events.js';
import type { Fleet } from './fleet.js';
import type { InformerOptions, Informers } from './informers.js';
import { createInformers } from './informers.js';
import { toKeyedEvents } from './to-keyed-events.js';

/**
 * Options of {@link fleetWatch}: the selection and indexes of each cluster's informer, and the
 * registry to take informers from (share one registry between pipelines to share watches).
 *
 * @example
 * ```ts
 * const opts: FleetWatchOptions<ConfigMap> = { namespace: 'default', informers };
 * ```
 */
export interface FleetWatchOptions<T extends KubeObject> extends InformerOptions<T> {
  /** Default: a registry private to this stream, with default watch options. */
  readonly informers?: Informers;
}

/**
 * Watches one resource in every cluster of the fleet as one stream of {@link KeyedEvent}s. Keys
 * carry the cluster, so the same namespace/name in two clusters never collides. Each cluster's
 * watch is independent: one that cannot be reached or refuses us (401/403) only shows in its
 * informer's health. When a cluster is disengaged its watch is unsubscribed at once (cache dropped
 * when no one else uses it), one `clusterRemoved` is emitted and nothing of that engagement follows.
 *
 * @example
 * ```ts
 * const fleet = createFleet(staticProvider([east, west]));
 * fleetWatch(fleet, configMaps, { namespace: 'default' }).subscribe((ev) => {
 *   if (ev.type !== 'clusterRemoved') console.log(formatKey(ev.key), ev.type);
 * });
 * ```
 * @param fleet - the engaged clusters.
 * @param resource - what to watch in each.
 * @param options - selection, indexes, informer registry.
 * @returns the merged keyed stream; never errors unless the provider does.
 */
export function fleetWatch<T extends KubeObject>(fleet: Fleet, resource: ResourceDescriptor<T>, options: FleetWatchOptions<T> = {}): Observable<KeyedEvent<T>> {
  const { informers = createInformers(), ...selection } = options;
  return fleet.engagements.pipe(
    mergeMap(({ cluster, lifetime }) =>
      concat(
        informers.informer(cluster, resource, selection).events.pipe(takeUntil(lifetime), toKeyedEvents(cluster.name, resource)),
        of<KeyedEvent<T>>({ type: 'clusterRemoved', cluster: cluster.name }),
      ),
    ),
  );
}
