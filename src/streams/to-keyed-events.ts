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
  const applied = (object: T): KeyedEvent<T> => ({ type: 'applied', key: keyOf(cluster, object), resource, object });
  const none: readonly KeyedEvent<T>[] = [];
  return (events) =>
    defer(() => {
      // The listing in progress, per subscription: undefined outside a listing.
      let listing: Map<string, KeyedEvent<T>> | undefined;
      return events.pipe(
        emitEach((ev: WatchEvent<T>): readonly KeyedEvent<T>[] => {
          switch (ev.type) {
            case 'initStarted':
              listing = new Map();
              return none;
            case 'initApply': {
              const key = keyOf(cluster, ev.object);
              const out: KeyedEvent<T> = { type: 'applied', key, resource, object: ev.object };
              if (listing === undefined) return [out];
              listing.set(formatKey(key), out);
              return none;
            }
            case 'initDone': {
              const done = [...(listing?.values() ?? [])];
              listing = undefined;
              return done;
            }
            case 'applied':
              return [applied(ev.object)];
            case 'deleted':
              return [{ type: 'deleted', key: keyOf(cluster, ev.object), resource, object: ev.object }];
          }
        }),
      );
    });
}
