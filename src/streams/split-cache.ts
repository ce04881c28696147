// One watch, many clusters: the events of a shared watch (a kcp wildcard, a cluster-wide watch
// behind namespaces-as-clusters) go into one store keyed by the cluster each object belongs to, and
// every such cluster gets a view with the informer's contract (listing, then live; health; store)
// without a watch of its own. Routing is a map lookup per event: no per-event work grows with the
// number of clusters; the end of a listing reaches the clusters a slice per turn. A view is one
// subscriber in its cluster's route and one in the shared watch's count (no operator chain of its
// own): ten thousand workspaces are ten thousand views.
import type { SchedulerLike, Subscriber } from 'rxjs';
import { asyncScheduler, Observable, startWith, Subject, Subscription, switchMap } from 'rxjs';
import type { ClusterName } from '../core/cluster.js';
import type { KubeObject } from '../core/object.js';
import type { CacheView } from './cluster.js';
import type { WatchEvent } from './events.js';
import type { Indexer, StoreWriter } from './store.js';
import { createStore } from './store.js';
import { scopedStore } from './scoped-store.js';
import { slices } from './slices.js';
import type { WatchHealth } from './watch-health.js';
import { viewHealth } from './view-health.js';

/**
 * What {@link splitCache} splits: one watch's events (as `watchEvents()` emits them, before any store),
 * its health, and which cluster each object belongs to.
 *
 * @example
 * ```ts
 * const config: SplitCacheOptions<ConfigMap> = { events, health, scopeOf: (cm: ConfigMap) => clusterName(cm.metadata.namespace ?? '') };
 * ```
 */
export interface SplitCacheOptions<T extends KubeObject> {
  /** The shared watch's events; subscribed while any view's events are, and once however many. */
  readonly events: Observable<WatchEvent<T>>;
  /** The shared watch's health, latest first. */
  readonly health: Observable<WatchHealth>;
  /** The cluster an object belongs to; objects for which this is `undefined` are ignored. */
  readonly scopeOf: (object: T) => ClusterName | undefined;
  /**
   * Whether the objects of a cluster are kept, asked as each one arrives (default: all): the
   * others are dropped before they are stored (a sharding replica keeps only the clusters it
   * owns). When the answer may have changed, call {@link SplitCache.rescope}.
   */
  readonly accepts?: (scope: ClusterName) => boolean;
  /** Custom indexes of the shared store. */
  readonly indexers?: Readonly<Record<string, Indexer<T>>>;
  /**
   * When the shared watch ends a listing, at most this many clusters get the end of theirs
   * (`initDone`, which releases their listing downstream) per turn of the event loop. Default 50.
   */
  readonly listingsPerTurn?: number;
  /** Schedules those turns. Default `asyncScheduler`. */
  readonly scheduler?: SchedulerLike;
}

/**
 * A split watch: a view per cluster.
 *
 * @example
 * ```ts
 * const split = splitCache(config);
 * split.view(clusterName('team-a'), clusterName('ns#team-a')).events.subscribe((ev: WatchEvent) => console.log(ev.type));
 * ```
 */
export interface SplitCache<T extends KubeObject> {
  /**
   * The view of the objects that belong to `scope`, named `as` in its health and store keys: the
   * name the fleet knows the cluster by (what `ClusterCache.view` is given), which need not
   * be `scope` (a workspace filed under its logical name and engaged under its path, a cluster
   * renamed by `withPrefix`).
   */
  view(scope: ClusterName, as: ClusterName): CacheView<T>;
  /**
   * Applies a change of `accepts`: the objects of clusters no longer accepted (and not viewed)
   * are released; if a cluster accepted now had objects dropped, the shared watch relists, and
   * that cluster's listing ends only with the relist (never empty before its objects came).
   */
  rescope(): void;
}

// The subscribers of one cluster's views, in the order they subscribed.
interface Route<T extends KubeObject> {
  readonly subscribers: Subscriber<WatchEvent<T>>[];
}

// One run of the shared watch: its subscription and the views that keep it running (in the order
// they subscribed: an error reaches them in that order).
interface Run<T extends KubeObject> {
  readonly sub: Subscription;
  readonly viewers: Set<Subscriber<WatchEvent<T>>>;
}

/**
 * Splits one watch you already have into per-cluster views (the building block of
 * {@link splitWatches}, which makes the watches too). A view's events are exactly what an informer
 * of that cluster would emit: at subscription the cluster's cached objects as a listing (or, while
 * the shared watch has not listed yet, the listing when it ends), then its changes; a relist of
 * the shared watch is a relist of every cluster (with the deletes it implies). A cluster with no
 * objects still gets its (empty) listing, so it counts as synced. The shared watch runs while at
 * least one view is subscribed; when the last leaves, the store is emptied.
 *
 * @example
 * ```ts
 * const split = splitCache({ events: watchEvents(hub, configMaps), health, scopeOf: (cm: ConfigMap) => clusterName(cm.metadata.namespace ?? '') });
 * const teamA = split.view(clusterName('team-a'), clusterName('team-a'));
 * teamA.events.subscribe(); // starts the one cluster-wide watch
 * teamA.store.list();       // team-a's ConfigMaps only
 * ```
 * @param config - the shared watch, its health and the object → cluster function.
 * @returns the split cache.
 */
export function splitCache<T extends KubeObject>(config: SplitCacheOptions<T>): SplitCache<T> {
  const store: StoreWriter<T> = createStore<T>(config.indexers === undefined ? {} : { indexers: config.indexers });
  const routes = new Map<ClusterName, Route<T>>();
  // Scopes the store holds (objects, or an empty listing of a routed scope).
  const known = new Set<ClusterName>();
  let listed = false;
  let listing: Set<ClusterName> | undefined;
  const accepts = config.accepts ?? (() => true);
  // Scopes whose objects were dropped since the listing began; and those a relist must fill first.
  const refused = new Set<ClusterName>();
  const awaiting = new Set<ClusterName>();
  const relists = new Subject<void>();
  let running = false;
  const scoped = (object: T): ClusterName | undefined => {
    const scope = config.scopeOf(object);
    if (scope === undefined || accepts(scope)) return scope;
    refused.add(scope);
    return undefined;
  };

  const apply = (scope: ClusterName, ev: WatchEvent<T>): void => {
    known.add(scope);
    const out = routes.get(scope)?.subscribers;
    const events = store.apply(scope, ev);
    if (out === undefined) return;
    // As a Subject would: each event to the subscribers there are when it is sent.
    for (const e of events) for (const s of out.length === 1 ? out : [...out]) s.next(e);
  };
  // Scopes whose listing the shared watch has ended and that wait for their turn to end theirs
  // (value: whether their listing started). A scope's own event or a new view takes its turn at once.
  const ending = new Map<ClusterName, boolean>();
  const endings = slices<ClusterName>(config.listingsPerTurn ?? 50, config.scheduler ?? asyncScheduler, (scope) => {
    const started = ending.get(scope) ?? false;
    ending.delete(scope);
    if (!started) apply(scope, { type: 'initStarted' });
    apply(scope, { type: 'initDone' });
    forget(scope);
  });
  const emptyListing = (scope: ClusterName): void => {
    apply(scope, { type: 'initStarted' });
    apply(scope, { type: 'initDone' });
  };
  const forget = (scope: ClusterName): void => {
    if (routes.has(scope) || (accepts(scope) && store.byIndex('cluster', scope).length > 0)) return;
    known.delete(scope);
    store.dropCluster(scope);
  };
  const onEvent = (ev: WatchEvent<T>): void => {
    switch (ev.type) {
      case 'initStarted':
        // A relist: every listing of the previous one ends first.
        endings.flush();
        listing = new Set();
        refused.clear();
        return;
      case 'initDone': {
        const done = listing ?? new Set<ClusterName>();
        listing = undefined;
        listed = true;
        // A scope accepted during the listing after some of its objects were dropped waits for a relist.
        awaiting.clear();
        for (const scope of refused) if (accepts(scope)) awaiting.add(scope);
        for (const scope of new Set([...known, ...done, ...routes.keys()])) {
          if (awaiting.has(scope)) continue;
          ending.set(scope, done.has(scope));
          endings.push(scope);
        }
        if (awaiting.size > 0) relists.next();
        return;
      }
      case 'initApply': {
        const scope = scoped(ev.object);
        if (scope === undefined) return;
        listing ??= new Set();
        if (!listing.has(scope)) {
          listing.add(scope);
          apply(scope, { type: 'initStarted' });
        }
        apply(scope, ev);
        return;
      }
      case 'applied':
      case 'deleted': {
        const scope = scoped(ev.object);
        if (scope === undefined) return;
        endings.take(scope);
        if (listed && !store.synced(scope)) emptyListing(scope);
        apply(scope, ev);
        if (ev.type === 'deleted') forget(scope);
      }
    }
  };
  const reset = (): void => {
    endings.close();
    ending.clear();
    for (const scope of known) store.dropCluster(scope);
    known.clear();
    refused.clear();
    awaiting.clear();
    listed = false;
    listing = undefined;
    running = false;
  };
  // The shared watch runs while a view that joined this run is subscribed; it stops (and the store
  // is emptied) when the last one leaves, and ends with the watch's own end (an error reaches its views first).
  let run: Run<T> | undefined;
  const stop = (r: Run<T>): void => {
    if (run !== r) return;
    run = undefined;
    r.sub.unsubscribe();
    reset();
  };
  const join = (viewer: Subscriber<WatchEvent<T>>): Run<T> => {
    if (run !== undefined) {
      run.viewers.add(viewer);
      return run;
    }
    const r: Run<T> = { sub: new Subscription(), viewers: new Set([viewer]) };
    run = r;
    running = true;
    r.sub.add(
      relists.pipe(startWith(undefined), switchMap(() => config.events)).subscribe({
        next: onEvent,
        error: (e: unknown) => {
          if (run === r) run = undefined;
          for (const v of [...r.viewers]) v.error(e);
          reset();
        },
        complete: () => {
          if (run === r) run = undefined;
          reset();
        },
      }),
    );
    return r;
  };

  return {
    view(scope, as) {
      const events = new Observable<WatchEvent<T>>((subscriber) => {
        let route = routes.get(scope);
        if (route === undefined) routes.set(scope, (route = { subscribers: [] }));
        const mine = route;
        endings.take(scope);
        if (listed && !store.synced(scope) && !awaiting.has(scope)) emptyListing(scope);
        // The cached listing and the route's live events join in one synchronous step: no event
        // falls between them. The shared watch may start (and emit) only after both.
        for (const e of store.replay(scope)) {
          if (subscriber.closed) break;
          subscriber.next(e);
        }
        if (!subscriber.closed) mine.subscribers.push(subscriber);
        const joined = subscriber.closed ? undefined : join(subscriber);
        return () => {
          const i = mine.subscribers.indexOf(subscriber);
          if (i >= 0) mine.subscribers.splice(i, 1);
          if (joined !== undefined && joined.viewers.delete(subscriber) && joined.viewers.size === 0) stop(joined);
          if (mine.subscribers.length > 0 || routes.get(scope) !== mine) return;
          routes.delete(scope);
          forget(scope);
        };
      });
      return {
        events,
        // Marked shared: its failures are the one shared watch's, logged once for all its clusters.
        health: config.health.pipe(viewHealth(as, () => routes.size)),
        store: scopedStore(store, scope, as, config.scopeOf),
      };
    },
    rescope() {
      for (const scope of [...known]) if (!accepts(scope)) forget(scope);
      // While listing, its end decides (a relist now would restart the listing).
      if (!running || listing !== undefined || !listed) return;
      for (const scope of refused) if (accepts(scope)) awaiting.add(scope);
      if (awaiting.size > 0) relists.next();
    },
  };
}
