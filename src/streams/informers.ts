// Shared informers: one watch and one store per (cluster, resource, namespace, selectors), however
// many pipelines ask for it. A late subscriber first gets the cached state as a listing, then the
// live events; the watch stops (and the cache is dropped) when the last subscriber leaves.
import type { Observable, SchedulerLike } from 'rxjs';
import { asyncScheduler, concat, defer, finalize, from, share, timer } from 'rxjs';
import type { KubeObject } from '../core/object.js';
import type { ResourceDescriptor } from '../core/resource.js';
import { resourceId } from '../core/resource.js';
import type { Cluster, Selection } from './cluster.js';
import type { WatchEvent } from './events.js';
import { listPacer } from './list-pacing.js';
import { reflect } from './reflect.js';
import type { Indexer, Store } from './store.js';
import { createStore } from './store.js';
import type { WatchHealth } from './watch-health.js';
import type { WatchesOptions } from './watched.js';
import { watched } from './watched.js';

/**
 * Options of {@link Informers.informer}.
 *
 * @example
 * ```ts
 * const informers = createInformers();
 * informers.informer(cluster, configMaps, { namespace: 'default', indexers: { app: (cm) => [cm.metadata.labels?.['app'] ?? ''] } });
 * ```
 */
export interface InformerOptions<T extends KubeObject> extends Selection {
  /** Custom indexes of the store. Used when the informer is first created; later calls share its store. */
  readonly indexers?: Readonly<Record<string, Indexer<T>>>;
}

/**
 * One shared watch and its store.
 *
 * @example
 * ```ts
 * const informers = createInformers();
 * const inf = informers.informer(cluster, configMaps);
 * inf.events.subscribe((ev) => console.log(ev.type));
 * inf.store.get(objectKey(cluster.name, 'default', 'settings'));
 * ```
 */
export interface Informer<T extends KubeObject> {
  /** The cluster watched; a re-engaged cluster (a new `Cluster`) gets informers of its own. */
  readonly cluster: Cluster;
  /** The resource (group, version, kind) whose objects are watched and cached. */
  readonly resource: ResourceDescriptor<T>;
  /** The cached state as `initStarted`/`initApply`…/`initDone`, then live events (deletes of relists included). Subscribing keeps the watch open. */
  readonly events: Observable<WatchEvent<T>>;
  /** The watch's health, latest first. Observing it does not start or keep the watch. */
  readonly health: Observable<WatchHealth>;
  /** The cache, filled while `events` has subscribers, emptied when the watch stops. */
  readonly store: Store<T>;
}

/**
 * A registry of shared informers.
 *
 * @example
 * ```ts
 * const informers = createInformers();
 * const a = informers.informer(cluster, configMaps);
 * const b = informers.informer(cluster, configMaps);
 * a === b; // true: one watch
 * ```
 */
export interface Informers {
  /** The informer of this cluster, resource and selection, created on first use. */
  informer<T extends KubeObject>(cluster: Cluster, resource: ResourceDescriptor<T>, options?: InformerOptions<T>): Informer<T>;
}

/**
 * Options of {@link createInformers}: the {@link WatchStreamOptions} every watch uses, how long a watch
 * outlives its last subscriber, and (for tests) how sources are built.
 *
 * @example
 * ```ts
 * createInformers({ lingerMs: 5_000, inactivityTimeoutMs: 150_000 });
 * ```
 */
export interface InformersOptions extends WatchesOptions {
  /**
   * Keep a watch open this long after its last subscriber leaves, so a pipeline that resubscribes
   * at once (a `switchMap`, a restart) does not relist. Default 0: stop at once, which is what a
   * disengaged cluster needs.
   */
  readonly lingerMs?: number;
}

/**
 * What {@link createInformers} takes: the {@link InformersOptions} a controller may set
 * (`ControllerSpec.watchOptions`) and the scheduler, which `run` supplies.
 *
 * @example
 * ```ts
 * const opts: CreateInformersOptions = { lingerMs: 5_000, scheduler: asyncScheduler };
 * ```
 */
export interface CreateInformersOptions extends InformersOptions {
  /** Drives every timer (backoff, inactivity, linger) and every timestamp. Default `asyncScheduler`. */
  readonly scheduler?: SchedulerLike;
}

/** The identity of a watch: resource, version and selection (not the indexers). @example `selectionKey(configMaps, { namespace: 'a' })` */
export function selectionKey(resource: ResourceDescriptor, s: Selection): string {
  return JSON.stringify([resourceId(resource), resource.version, s.namespace ?? '', s.labelSelector ?? '', s.fieldSelector ?? '']);
}

/**
 * Creates a registry of shared informers. Informers are keyed by the {@link Cluster} object itself,
 * not its name: a cluster re-engaged with new credentials is a new `Cluster` and gets new watches,
 * and a disengaged one's informers are garbage-collected with it.
 *
 * @example
 * ```ts
 * const informers = createInformers();
 * const inf = informers.informer(cluster, configMaps, { namespace: 'default' });
 * const sub = inf.events.subscribe(); // starts the watch
 * sub.unsubscribe();                  // stops it and drops the cache
 * ```
 * @param config - watch options shared by every informer, linger, source factory, lists per server.
 * @returns the registry.
 */
export function createInformers(config: CreateInformersOptions = {}): Informers {
  const { lingerMs = 0, listsPerServer, ...rest } = config;
  // One pacer for every watch of the registry: lists are bounded per server, not per cluster.
  const watchConfig = { ...rest, listPacer: config.listPacer ?? listPacer(listsPerServer) };
  const scheduler = config.scheduler ?? asyncScheduler;
  const byCluster = new WeakMap<Cluster, Map<string, Informer<KubeObject>>>();
  const keepOf = config.keepManagedFieldsOf === undefined || config.keepManagedFieldsOf.length === 0 ? undefined : config.keepManagedFieldsOf;

  const build = <T extends KubeObject>(cluster: Cluster, resource: ResourceDescriptor<T>, options: InformerOptions<T>): Informer<T> => {
    // A cluster whose provider already keeps a cache of this selection serves it: no watch of
    // ours. The view is named after the cluster as engaged, whatever renamed it after its provider.
    // It keeps the Apply entries of the field managers this registry keeps (the run's controllers').
    const view = cluster.cache?.view(resource, keepOf === undefined ? options : { ...options, keepManagedFieldsOf: keepOf }, cluster.name);
    if (view !== undefined) return { cluster, resource, ...view };
    const { indexers, ...selection } = options;
    const store = createStore<T>(indexers === undefined ? {} : { indexers });
    const { events, health } = watched(cluster, resource, selection, watchConfig);
    const live = events.pipe(
      reflect(store, cluster.name),
      // Runs when the watch stops: no subscriber may read a cache nobody keeps up to date.
      finalize(() => {
        store.dropCluster(cluster.name);
      }),
      share({ resetOnRefCountZero: lingerMs > 0 ? () => timer(lingerMs, scheduler) : true }),
    );
    return {
      cluster,
      resource,
      // The replay and the join happen in one synchronous step, so no event falls between them.
      events: defer(() => concat(from(store.replay(cluster.name)), live)),
      health,
      store,
    };
  };

  return {
    informer<T extends KubeObject>(cluster: Cluster, resource: ResourceDescriptor<T>, options: InformerOptions<T> = {}): Informer<T> {
      let perCluster = byCluster.get(cluster);
      if (perCluster === undefined) byCluster.set(cluster, (perCluster = new Map<string, Informer<KubeObject>>()));
      const key = selectionKey(resource, options);
      const found = perCluster.get(key);
      // The key names the resource, so the stored informer has this T.
      if (found !== undefined) return found as unknown as Informer<T>;
      const made = build(cluster, resource, options);
      perCluster.set(key, made);
      return made;
    },
  };
}
