// The keyed fleet stream: one resource across every engaged cluster, as one stream of keyed events.
// Per cluster the chain reads: shared informer → cut at disengage → keyed → then `clusterRemoved`,
// as one subscriber per cluster (two subscriptions: its informer's events and its lifetime), not an
// operator chain each: a fleet of ten thousand clusters is ten thousand of these.
import { mergeMap, Observable, Subscription } from 'rxjs';
import type { ClusterName } from '../core/cluster.js';
import type { KubeObject } from '../core/object.js';
import type { ResourceDescriptor } from '../core/resource.js';
import type { KeyedEvent, WatchEvent } from './events.js';
import type { Fleet } from './fleet.js';
import type { InformerOptions, Informers } from './informers.js';
import { createInformers } from './informers.js';
import { keyedEventsOf } from './to-keyed-events.js';

/**
 * What `concat(events.pipe(takeUntil(lifetime), toKeyedEvents(cluster, resource)), of(clusterRemoved))`
 * emits, in one subscriber: the keyed events until `lifetime` emits or `events` completes (then the
 * events' subscription ends, and `clusterRemoved` follows), an error of either passed on.
 */
function clusterEvents<T extends KubeObject>(events: Observable<WatchEvent<T>>, lifetime: Observable<unknown>, cluster: ClusterName, resource: ResourceDescriptor<T>): Observable<KeyedEvent<T>> {
  return new Observable<KeyedEvent<T>>((subscriber) => {
    // Both subscriptions, ended together: at the end of the engagement before `clusterRemoved` goes out.
    const subs = new Subscription();
    let ended = false;
    const end = (): void => {
      if (ended) return;
      ended = true;
      subs.unsubscribe();
      subscriber.next({ type: 'clusterRemoved', cluster });
      subscriber.complete();
    };
    // As takeUntil: the lifetime first, so an engagement already over never subscribes its events.
    subs.add(
      lifetime.subscribe({
        next: end,
        error: (e: unknown) => {
          subscriber.error(e);
        },
      }),
    );
    if (subscriber.closed) return subs;
    const keyed = keyedEventsOf(cluster, resource);
    subs.add(
      events.subscribe({
        next: (ev) => {
          let out: readonly KeyedEvent<T>[];
          try {
            out = keyed(ev);
          } catch (e: unknown) {
            subscriber.error(e);
            return;
          }
          // Indexed, as in emit-each.ts: the per-event path.
          // eslint-disable-next-line @typescript-eslint/prefer-for-of -- see above
          for (let i = 0; i < out.length; i++) {
            const e = out[i];
            if (subscriber.closed) return;
            if (e !== undefined) subscriber.next(e);
          }
        },
        error: (e: unknown) => {
          subscriber.error(e);
        },
        complete: end,
      }),
    );
    return subs;
  });
}

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
    mergeMap(({ cluster, lifetime }) => clusterEvents(informers.informer(cluster, resource, selection).events, lifetime, cluster.name, resource)),
  );
}
