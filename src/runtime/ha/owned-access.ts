// Ownership on every access path of a replica. A reconcile reaches a cluster by a name looked up
// in ctx.fleet, by a client or a Cluster it kept, by an informer handle, or by a sink (an Event
// recorder's included); each of them asks the one ownership gate (the replica's fence) at the
// moment it is used, not when it was obtained. The rule is the same on every path: a request (a
// read, a watch, a write, an Event) is refused with `Fenced`, naming the cluster and saying this
// replica does not own it; a lookup in local state (the fleet view, an informer's store or events)
// serves nothing. A watch or a view held while the cluster was owned ends when it is revoked here.
import { defer, EMPTY, filter, Observable, take, takeUntil } from 'rxjs';
import type { ClusterClient } from '../../client/client.js';
import type { ClusterName } from '../../core/cluster.js';
import type { KubeError } from '../../core/errors.js';
import type { KubeObject } from '../../core/object.js';
import type { ResourceDescriptor } from '../../core/resource.js';
import type { Either } from '../../internal/fp.js';
import { E } from '../../internal/fp.js';
import type { SinkClusters } from '../../sinks/context.js';
import type { CacheView, Cluster, FleetView } from '../../streams/cluster.js';
import type { Informer, InformerOptions, Informers } from '../../streams/informers.js';
import type { Store, StoreView } from '../../streams/store.js';
import type { WriteFence } from './fence.js';

/**
 * The access paths of a replica, each narrowed to the clusters it owns by one gate.
 *
 * @example
 * ```ts
 * const access = ownedAccess(fence, present);
 * const ctxFleet = access.fleet(fleet);              // serves nothing for a cluster not owned here
 * const sinks = sinkContext({ clusters: access.sinkClusters(fleet), fieldManager: 'me' }); // refuses it
 * ```
 */
export interface OwnedAccess {
  /** An engaged cluster as the replica hands it out: its client and its cache views ask the gate. */
  cluster(cluster: Cluster): Cluster;
  /** The fleet as a reconcile sees it (`ctx.fleet`): a cluster not owned now is not there. */
  fleet(view: FleetView): FleetView;
  /** Where the sinks find clusters: a cluster the provider engaged but this replica does not own answers a client that refuses every request. */
  sinkClusters(view: FleetView): SinkClusters;
  /** The informers handed to a controller's inputs: each handle's events and store serve nothing for a cluster not owned now. */
  informers(informers: Informers): Informers;
}

/**
 * The access paths of a replica over its gate.
 *
 * @example
 * ```ts
 * const access = ownedAccess(co.fence, present);
 * const guarded = access.cluster(engagedCluster);
 * ```
 * @param fence - the replica's gate (lease valid and cluster run here).
 * @param present - every cluster the provider engaged, owned here or not (ownedFleet fills it).
 * @returns the narrowed access paths.
 */
export function ownedAccess(fence: WriteFence, present: ReadonlyMap<ClusterName, Cluster>): OwnedAccess {
  const owns = (cluster: ClusterName): boolean => fence.check(cluster, 'read') === undefined;
  // One refusing client per engagement the provider made, so a sink's metrics see one client.
  const refusing = new WeakMap<Cluster, ClusterClient>();
  const handles = new WeakMap<Informer<KubeObject>, Informer<KubeObject>>();
  return {
    cluster: (c) => {
      const cache = c.cache;
      return {
        ...c,
        client: ownedClient(c.name, c.client, fence),
        ...(cache === undefined
          ? {}
          : {
              cache: {
                view: (r, o, as) => {
                  const v = cache.view(r, o, as);
                  return v === undefined ? undefined : ownedView(v, c.name, fence);
                },
              },
            }),
      };
    },
    fleet: (view) => ({
      get: (name) => (owns(name) ? view.get(name) : undefined),
      clusters: () => view.clusters().filter((c) => owns(c.name)),
    }),
    sinkClusters: (view) => ({
      get: (name) => {
        const engaged = view.get(name);
        if (engaged !== undefined) return engaged;
        const known = present.get(name);
        if (known === undefined) return undefined;
        let client = refusing.get(known);
        if (client === undefined) refusing.set(known, (client = ownedClient(name, known.client, fence)));
        return { name, client };
      },
      clusters: () => view.clusters(),
    }),
    informers: (informers) => ({
      informer: <T extends KubeObject>(cluster: Cluster, resource: ResourceDescriptor<T>, options?: InformerOptions<T>): Informer<T> => {
        const inf = informers.informer(cluster, resource, options) as unknown as Informer<KubeObject>;
        let held = handles.get(inf);
        if (held === undefined) handles.set(inf, (held = { ...inf, ...ownedView(inf, cluster.name, fence) }));
        return held as unknown as Informer<T>;
      },
    }),
  };
}

/**
 * A client that asks the gate before every request: a read (get, list, a GET) or a watch of a
 * cluster not owned now is refused with the gate's `Fenced` error, a write carries the fence to
 * the moment it leaves and is counted in flight; a watch already open ends with that error when
 * the cluster is revoked here.
 *
 * @example
 * ```ts
 * const client = ownedClient(cluster.name, cluster.client, fence);
 * await client.get(configMaps, 'settings', { namespace: 'default' }); // Left Fenced once another replica owns it
 * ```
 * @param cluster - the cluster's fleet name (the name the gate knows).
 * @param client - its client.
 * @param fence - the replica's gate.
 * @returns the gated client.
 */
export function ownedClient(cluster: ClusterName, client: ClusterClient, fence: WriteFence): ClusterClient {
  const gate = (): KubeError | undefined => fence.check(cluster);
  const read = <R>(call: () => Promise<Either<KubeError, R>>): Promise<Either<KubeError, R>> => {
    const refused = fence.check(cluster, 'read');
    return refused === undefined ? call() : Promise.resolve(E.left(refused));
  };
  // Refused at once when not owned now, and checked again right before it leaves (it may wait for a rate-limit token or a connection).
  const write = <R>(call: () => Promise<Either<KubeError, R>>): Promise<Either<KubeError, R>> => {
    const refused = fence.check(cluster);
    return refused === undefined ? fence.track(cluster, call) : Promise.resolve(E.left(refused));
  };
  return {
    ...client,
    get: (r, name, opts) => read(() => client.get(r, name, opts)),
    list: (r, opts) => read(() => client.list(r, opts)),
    listAll: (r, opts) => read(() => client.listAll(r, opts)),
    watch: (r, opts) =>
      new Observable<string>((subscriber) => {
        const refused = fence.check(cluster, 'read');
        if (refused !== undefined) {
          subscriber.error(refused);
          return undefined;
        }
        // The watch ends as the server ends it (a clean end is a reconnect), or with the refusal when the cluster is revoked here.
        const cut = revoked(fence, cluster).subscribe(() => {
          subscriber.error(fence.refusal(cluster, 'read'));
        });
        const lines = client.watch(r, opts).subscribe(subscriber);
        return () => {
          lines.unsubscribe();
          cut.unsubscribe();
        };
      }),
    create: (r, obj, opts) => write(() => client.create(r, obj, { ...opts, fence: gate })),
    update: (r, obj, opts) => write(() => client.update(r, obj, { ...opts, fence: gate })),
    apply: (r, obj, opts) => write(() => client.apply(r, obj, { ...opts, fence: gate })),
    patch: (r, name, p, opts) => write(() => client.patch(r, name, p, { ...opts, fence: gate })),
    delete: (r, name, opts) => write(() => client.delete(r, name, { ...opts, fence: gate })),
    raw: (req) => (req.method === 'GET' ? read(() => client.raw(req)) : write(() => client.raw({ ...req, fence: gate }))),
    close: () => {
      client.close();
    },
  };
}

/**
 * A cached view (an informer handle, a provider cache's view) that serves nothing for a cluster
 * not owned now: its events complete at once (or when the cluster is revoked here, if they were
 * subscribed while it was owned), and its store reads as empty. Health passes through.
 *
 * @example
 * ```ts
 * const held = ownedView(informer, cluster.name, fence);
 * held.store.get(key); // undefined once another replica owns the cluster
 * ```
 * @param view - the view.
 * @param cluster - the cluster it is of (its fleet name).
 * @param fence - the replica's gate.
 * @returns the gated view.
 */
export function ownedView<T extends KubeObject>(view: CacheView<T>, cluster: ClusterName, fence: WriteFence): CacheView<T> {
  const owns = (): boolean => fence.check(cluster, 'read') === undefined;
  return {
    events: defer(() => (owns() ? view.events.pipe(takeUntil(revoked(fence, cluster))) : EMPTY)),
    health: view.health,
    store: ownedStore(view.store, owns),
  };
}

const nothing: StoreView<never> = Object.freeze({ get: () => undefined, list: () => [], byIndex: () => [], size: 0 });

function ownedStore<T extends KubeObject>(store: Store<T>, owns: () => boolean): Store<T> {
  return {
    get: (key) => (owns() ? store.get(key) : undefined),
    list: () => (owns() ? store.list() : []),
    byIndex: (index, value) => (owns() ? store.byIndex(index, value) : []),
    get size() {
      return owns() ? store.size : 0;
    },
    synced: (c) => owns() && store.synced(c),
    snapshot: () => (owns() ? store.snapshot() : nothing),
  };
}

function revoked(fence: WriteFence, cluster: ClusterName): Observable<ClusterName> {
  return fence.revocations.pipe(
    filter((c) => c === cluster),
    take(1),
  );
}

