// From one cluster's watch events to fleet-wide keyed events: the key gains the cluster, listings
// become plain `applied` events (level-triggered: a relist is a resync), markers disappear.
import type { OperatorFunction } from 'rxjs';
import { defer } from 'rxjs';
import type { ClusterName } from '../core/cluster.js';
import { formatKey, keyOf } from '../core/key.js';
import type { KubeObject } from '../core/object.js';
import type { ResourceDescriptor } from '../core/resource.js';
import { emitEach } from './emit-each.js';
import type { KeyedEvent, WatchEvent } from './events.js';

const none: readonly never[] = [];

/**
 * The per-subscription state of {@link toKeyedEvents}: a function from each watch event of one
 * cluster to the keyed events it releases (see there). Use one per subscription; `fleetWatch`
 * calls it directly, with no operator chain per cluster.
 *
 * @example
 * ```ts
 * const keyed = keyedEventsOf(cluster.name, configMaps);
 * keyed({ type: 'initStarted' }); // []
 * ```
 * @param cluster - the cluster the events come from.
 * @param resource - their resource, carried on every event.
 * @returns the stateful projection of one subscription.
 */
export function keyedEventsOf<T extends KubeObject>(cluster: ClusterName, resource: ResourceDescriptor<T>): (ev: WatchEvent<T>) => readonly KeyedEvent<T>[] {
  const applied = (object: T): KeyedEvent<T> => ({ type: 'applied', key: keyOf(cluster, object), resource, object });
  // The objects of the listing in progress, as they came: undefined outside a listing. Only the
  // objects are held until `initDone` (not a keyed event, key and key string each): thousands of
  // clusters listing at once held all three for every object.
  let listing: T[] | undefined;
  return (ev) => {
    switch (ev.type) {
      case 'initStarted':
        listing = [];
        return none;
      case 'initApply':
        if (listing === undefined) return [applied(ev.object)];
        listing.push(ev.object);
        return none;
      case 'initDone': {
        const listed = listing ?? [];
        listing = undefined;
        // Latest per key, in the order each key first came.
        const done = new Map<string, KeyedEvent<T>>();
        for (const object of listed) {
          const key = keyOf(cluster, object);
          done.set(formatKey(key), { type: 'applied', key, resource, object });
        }
        return [...done.values()];
      }
      case 'applied':
        return [applied(ev.object)];
      case 'deleted':
        return [{ type: 'deleted', key: keyOf(cluster, ev.object), resource, object: ev.object }];
    }
  };
}

/**
 * Maps a cluster's (reflected) watch events to {@link KeyedEvent}s: `initApply` and `applied`
 * become `applied`, `deleted` stays `deleted`, `initStarted`/`initDone` are dropped.
 *
 * The objects of a listing are held back until its `initDone` and then emitted together (latest
 * per key). A reflected store replaces its content only at `initDone`, so a reconciler woken by a
 * listed object must not run before then: reading the store it would find the object missing (on
 * a first list) or stale (on a relist) and act on a state that is not the cluster's. Deletes for
 * objects that vanished during a gap come first, as the store emits them before `initDone`.
 *
 * @example
 * ```ts
 * const informer = createInformers().informer(cluster, configMaps);
 * informer.events.pipe(toKeyedEvents(cluster.name, configMaps)).subscribe((ev) => console.log(ev.type));
 * ```
 * @param cluster - the cluster the events come from.
 * @param resource - their resource, carried on every event.
 * @returns an operator from watch events to keyed events.
 */
export function toKeyedEvents<T extends KubeObject>(cluster: ClusterName, resource: ResourceDescriptor<T>): OperatorFunction<WatchEvent<T>, KeyedEvent<T>> {
  return (events) => defer(() => events.pipe(emitEach(keyedEventsOf(cluster, resource))));
}
