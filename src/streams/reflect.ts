// The reflector: writes a watch into a store and passes the events on, with the deletes a relist
// implies added just before `initDone`. The store is updated before an event goes downstream, so a
// reconciler woken by an event always reads at least that state.
import type { MonoTypeOperatorFunction } from 'rxjs';
import type { ClusterName } from '../core/cluster.js';
import type { KubeObject } from '../core/object.js';
import { emitEach } from './emit-each.js';
import type { WatchEvent } from './events.js';
import type { StoreWriter } from './store.js';

/**
 * Reflects one cluster's watch events into a store. Downstream sees the same events, except that a
 * `deleted` for an object the store does not hold is dropped (no duplicate deletes) and, at each
 * `initDone`, one `deleted` per object of that cluster that vanished since the previous listing
 * comes first.
 *
 * @example
 * ```ts
 * const store = createStore<ConfigMap>();
 * watchEvents(cluster, configMaps).pipe(reflect(store, cluster.name)).subscribe((ev) => {
 *   if (ev.type === 'deleted') console.log('gone:', ev.object.metadata.name);
 * });
 * ```
 * @param store - the store to write.
 * @param cluster - the cluster the events come from (part of every key).
 * @returns an operator over {@link WatchEvent}s.
 */
export function reflect<T extends KubeObject>(store: StoreWriter<T>, cluster: ClusterName): MonoTypeOperatorFunction<WatchEvent<T>> {
  return (events) => events.pipe(emitEach((ev: WatchEvent<T>) => store.apply(cluster, ev)));
}
