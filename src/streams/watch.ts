// The front door of the streams layer: one resource in one cluster as a resilient, cold stream of
// watch events. The chain reads: cluster source → watch signals → events only.
import type { Observable, SchedulerLike } from 'rxjs';
import type { KubeObject } from '../core/object.js';
import type { ResourceDescriptor } from '../core/resource.js';
import type { Cluster, Selection } from './cluster.js';
import type { WatchEvent } from './events.js';
import { signalEvents } from './signal-events.js';
import type { WatchStreamOptions } from './watch-config.js';
import { watchSignals } from './watch-signals.js';
import type { ListerWatcher } from './watch-source.js';
import { clusterListerWatcher } from './watch-source.js';

/**
 * Options of {@link watchEvents}: the {@link WatchStreamOptions} knobs plus an optional injected source.
 *
 * @example
 * ```ts
 * const opts: WatchEventsOptions<ConfigMap> = { namespace: 'default', listerWatcher: fakeSource };
 * ```
 */
export interface WatchEventsOptions<T extends KubeObject = KubeObject> extends WatchStreamOptions, Selection {
  /** The list/watch calls; default: the cluster's client. */
  readonly listerWatcher?: ListerWatcher<T>;
  /** Drives every timer (backoff, inactivity) and every timestamp. Default `asyncScheduler`. */
  readonly scheduler?: SchedulerLike;
}

/**
 * Watches one resource in one cluster: a paginated (or streaming) list delivered as
 * `initStarted` / `initApply` … / `initDone`, then `applied` / `deleted` as they happen, with every
 * recovery rule of {@link watchSignals}. Cold: each subscriber opens its own requests (share them
 * with {@link createInformers}). Never errors; objects are deep-frozen, without managedFields.
 *
 * @example
 * ```ts
 * import { configMaps } from 'rxfleet';
 * watchEvents(cluster, configMaps, { namespace: 'default' }).subscribe((ev) => {
 *   if (ev.type === 'applied') console.log(ev.object.metadata.name);
 * });
 * ```
 * @see watchSignals for health snapshots alongside the events.
 * @param cluster - an engaged cluster.
 * @param resource - what to watch.
 * @param options - selectors, namespace, timings, injected source.
 * @returns the cold event stream.
 */
export function watchEvents<T extends KubeObject>(cluster: Cluster, resource: ResourceDescriptor<T>, options: WatchEventsOptions<T> = {}): Observable<WatchEvent<T>> {
  const { listerWatcher, ...config } = options;
  return watchSignals(listerWatcher ?? clusterListerWatcher(cluster, resource), { ...config, cluster: cluster.name, resource }).pipe(signalEvents());
}
