// One watch with its health beside it: what an informer reflects into its own store, and what a
// split cache divides among clusters. Kept in one place so both watch the same way.
import type { Observable, SchedulerLike } from 'rxjs';
import { BehaviorSubject, defer, filter, tap } from 'rxjs';
import type { KubeObject } from '../core/object.js';
import type { ResourceDescriptor } from '../core/resource.js';
import type { Cluster, Selection } from './cluster.js';
import type { WatchEvent } from './events.js';
import type { ListPacer } from './list-pacing.js';
import { signalEvents } from './signal-events.js';
import type { WatchStreamOptions } from './watch-config.js';
import type { WatchHealth } from './watch-health.js';
import { watchSignals } from './watch-signals.js';
import type { ListerWatcher } from './watch-source.js';
import { clusterListerWatcher } from './watch-source.js';

/**
 * How to watch, whatever is watched: the {@link WatchStreamOptions} without the selection (namespace and
 * selectors come from whoever asks), and `listerWatcherFor`, which makes the list/watch calls. Informers,
 * shared watches and every provider's `managementWatch` take it.
 *
 * @example
 * ```ts
 * const how: WatchesOptions = { inactivityTimeoutMs: 150_000 };
 * ```
 */
export interface WatchesOptions extends WatchStreamOptions {
  /** Builds the list/watch calls; default: the cluster's client. */
  readonly listerWatcherFor?: <T extends KubeObject>(cluster: Cluster, resource: ResourceDescriptor<T>) => ListerWatcher<T>;
  /**
   * At most this many lists (plain or streaming, relists included) at once per server origin,
   * shared by every cluster on it (kcp workspaces, namespaces of one server); a watch waiting for
   * its turn is `listing` and not synced. Default 8 (`defaultListsPerServer`). Used by
   * `createInformers` and `splitWatches` to make their {@link ListPacer}.
   */
  readonly listsPerServer?: number;
  /** A pacer to share among several registries instead of one of their own; `listsPerServer` is then ignored. */
  readonly listPacer?: ListPacer;
}

/**
 * A cold watch of one selection and the latest health of its current run. Each subscription to
 * `events` is a watch; share it.
 *
 * @example
 * ```ts
 * const { events, health } = watched(hub, configMaps, { labelSelector: 'app=web' }, {});
 * events.pipe(share()).subscribe();
 * ```
 * @param cluster - where to watch.
 * @param resource - what.
 * @param selection - namespace and selectors.
 * @param config - watch options, the source factory and the pacer of lists (lists are paced only with one).
 * @returns the events (before any store) and the health, latest first (nothing until the watch starts).
 */
export function watched<T extends KubeObject>(
  cluster: Cluster,
  resource: ResourceDescriptor<T>,
  selection: Selection,
  config: WatchesOptions & { readonly scheduler?: SchedulerLike },
): { readonly events: Observable<WatchEvent<T>>; readonly health: Observable<WatchHealth> } {
  const { listerWatcherFor = clusterListerWatcher, listPacer, listsPerServer: _perServer, ...watchConfig } = config;
  const health = new BehaviorSubject<WatchHealth | undefined>(undefined);
  const paced = listPacer === undefined ? {} : { listTurn: listPacer.turn(cluster.client.server) };
  const events = defer(() => watchSignals(listerWatcherFor(cluster, resource), { ...watchConfig, ...paced, ...selection, cluster: cluster.name, resource })).pipe(
    tap((s) => {
      if (s.type === 'health') health.next(s.health);
    }),
    signalEvents<T>(),
  );
  return { events, health: health.pipe(filter((h): h is WatchHealth => h !== undefined)) };
}

/**
 * How a provider watches its management cluster: {@link WatchesOptions} and the scheduler of those
 * watches (`managementWatch` of every provider that reads a management cluster).
 *
 * @example
 * ```ts
 * const managementWatch: ManagementWatchOptions = { inactivityTimeoutMs: 150_000, scheduler: asyncScheduler };
 * ```
 */
export interface ManagementWatchOptions extends WatchesOptions {
  /** Drives every timer and timestamp of the management watches. Default `asyncScheduler`. */
  readonly scheduler?: SchedulerLike;
}
