// From one cluster's watch events to fleet-wide keyed events: the key gains the cluster, listings
// become plain `applied` events (level-triggered: a relist is a resync), markers disappear.
import type { OperatorFunction } from 'rxjs';
import { mergeMap } from 'rxjs';
import type { ClusterName } from '../core/cluster.js';
import { keyOf } from '../core/key.js';
import type { KubeObject } from '../core/object.js';
import type { ResourceDescriptor } from '../core/resource.js';
import type { KeyedEvent, WatchEvent } from './events.js';

/**
 * Maps a cluster's (reflected) watch events to {@link KeyedEvent}s: `initApply` and `applied`
 * become `applied`, `deleted` stays `deleted`, `initStarted`/`initDone` are dropped.
 *
 * @example
 * ```ts
 * informer.events.pipe(toKeyedEvents(cluster.name, configMaps)).subscribe((ev) => queue.add(ev));
 * ```
 * @param cluster - the cluster the events come from.
 * @param resource - their resource, carried on every event.
 * @returns an operator from watch events to keyed events.
 */
export function toKeyedEvents<T extends KubeObject>(cluster: ClusterName, resource: ResourceDescriptor<T>): OperatorFunction<WatchEvent<T>, KeyedEvent<T>> {
  return (events) =>
    events.pipe(
      mergeMap((ev): KeyedEvent<T>[] => {
        switch (ev.type) {
          case 'initApply':
          case 'applied':
            return [{ type: 'applied', key: keyOf(cluster, ev.object), resource, object: ev.object }];
          case 'deleted':
            return [{ type: 'deleted', key: keyOf(cluster, ev.object), resource, object: ev.object }];
          case 'initStarted':
          case 'initDone':
            return [];
        }
      }),
    );
}
