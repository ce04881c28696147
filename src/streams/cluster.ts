// The fleet's contracts: a cluster (a name, its own client, its identity and labels, and optionally
// a cache someone else keeps for it) and the events providers emit (lifecycle and reports).
// A provider is a cold Observable<FleetEvent>: subscribing starts discovery, unsubscribing disengages.
import type { Observable } from 'rxjs';
import type { ClusterName } from '../core/cluster.js';
import type { KubeObject } from '../core/object.js';
import type { ResourceDescriptor } from '../core/resource.js';
import type { ClusterClient } from '../client/client.js';
import type { WatchEvent } from './events.js';
import type { ProviderReport } from './provider-report.js';
import type { Indexer, Store } from './store.js';
import type { WatchHealth } from './watch-health.js';

/**
 * Which objects of a resource a watch (or a cache view) covers; each distinct selection is its own
 * watch.
 *
 * @example
 * ```ts
 * const sel: Selection = { namespace: 'default', labelSelector: 'app=web' };
 * ```
 */
export interface Selection {
  /** Only objects of this namespace; all namespaces when absent (and for cluster-scoped resources). */
  readonly namespace?: string;
  /** A Kubernetes label selector, e.g. `app=web,tier!=db`; no label filter when absent. */
  readonly labelSelector?: string;
  /** A Kubernetes field selector, e.g. `metadata.name=settings`; no field filter when absent. */
  readonly fieldSelector?: string;
}

/**
 * One cluster's view of a cache that someone else keeps (a shared watch split by cluster): the same
 * three things an informer offers, without a watch of its own.
 *
 * @example
 * ```ts
 * const view = cluster.cache?.view(configMaps, {}, cluster.name);
 * view?.events.subscribe((ev: WatchEvent) => console.log(ev.type)); // initStarted, initApply…, initDone, then live
 * ```
 */
export interface CacheView<T extends KubeObject> {
  /**
   * This cluster's objects as `initStarted`/`initApply`…/`initDone` (at once when the shared watch
   * has listed, else when it has), then its live changes. Subscribing keeps the shared watch open.
   */
  readonly events: Observable<WatchEvent<T>>;
  /** The shared watch's health, named after this cluster (`cluster` is the name the view was asked for). */
  readonly health: Observable<WatchHealth>;
  /** This cluster's objects only, keyed with the name the view was asked for (`get`, `synced`, the `cluster` index). */
  readonly store: Store<T>;
}

/**
 * A cache a provider already keeps for its clusters, which can serve a resource's events and reads
 * for one cluster: for a kcp workspace behind an APIExport, a view of the one wildcard watch of its
 * shard; for a namespace-as-cluster, a view of one cluster-wide watch. Informers ask it first and
 * open an ordinary watch only when it answers `undefined`.
 *
 * The cache knows which objects are the cluster's, never what the fleet calls it: the caller names
 * the view. So a composition that renames clusters (`withPrefix`, `multiProvider`) copies the cache
 * as it is, and the views of the renamed cluster key its objects and health under the new name.
 *
 * @example
 * ```ts
 * const informer = (cluster: Cluster) => cluster.cache?.view(configMaps, { labelSelector: 'app=web' }, cluster.name) ?? ownWatch(cluster);
 * ```
 */
export interface CacheViewOptions<T extends KubeObject> extends Selection {
  /** Custom indexes of the view's store; they apply when the shared cache is first made (later views share it). */
  readonly indexers?: Readonly<Record<string, Indexer<T>>>;
  /**
   * The field managers whose own Apply entries of `metadata.managedFields` the cache must keep in
   * its objects (`WatchStreamOptions.keepManagedFieldsOf`): informers pass their controllers', so
   * that an apply read through a provider's shared cache can be proven needless as through a watch
   * of the cluster's own. A shared cache keeps these beside those it keeps anyway; views asking for
   * different managers are served by different watches.
   */
  readonly keepManagedFieldsOf?: readonly string[];
}

/**
 * A cache a provider keeps for its clusters: see {@link ClusterCache.view}.
 *
 * @example
 * ```ts
 * const cache: ClusterCache = { view: (r, options, name) => shared.view(r, options, scope, name) };
 * ```
 */
export interface ClusterCache {
  /**
   * This cluster's view of `resource` with `options`, or `undefined` when the cache cannot serve
   * that selection (see {@link CacheViewOptions} for `indexers` and `keepManagedFieldsOf`).
   * `name` is the name the fleet knows the cluster by (the engaged `Cluster`'s `name`, which
   * informers pass): the view's store keys, `synced` and health use it.
   */
  view<T extends KubeObject>(resource: ResourceDescriptor<T>, options: CacheViewOptions<T>, name: ClusterName): CacheView<T> | undefined;
}

/**
 * Who a cluster is beyond its fleet name: which provider engaged it, where its credentials came
 * from (in words a person recognises), and a stable identity where the provider knows one.
 *
 * @example
 * ```ts
 * const id: ClusterIdentity = { provider: 'kubeconfig-secrets', from: 'Secret fleet/east', id: 'east.clusterset.local' };
 * ```
 */
export interface ClusterIdentity {
  /** The provider that engaged the cluster, e.g. `file`, `namespaces`, `kcp-apiexport`. */
  readonly provider: string;
  /** Where it came from: `context "east" of kubeconfig east.yaml`, `Secret fleet/east`, `workspace root:org:a`. Never a credential. */
  readonly from: string;
  /** A stable identity where one is known: a ClusterProperty `cluster.clusterset.k8s.io` (KEP-2149), a kcp logical cluster. */
  readonly id?: string;
}

/**
 * One engaged cluster: its name in the fleet, its own client, its identity, the labels selectors
 * read (fan-out, `clusterSelector`, sharding), and optionally a cache that serves its watches and
 * what to do when it does not serve a resource.
 *
 * @example
 * ```ts
 * const east: Cluster = { name: clusterName('east'), client, labels: { region: 'eu' } };
 * ```
 */
export interface Cluster {
  /** The name a person would type: a context, a Secret, a namespace, a workspace path or logical name. */
  readonly name: ClusterName;
  /** The cluster's own client (credentials never shared with another cluster). */
  readonly client: ClusterClient;
  /** Labels for selectors, from the provider (kubeconfig extension, the Cluster object's labels, options). */
  readonly labels?: Readonly<Record<string, string>>;
  /** Which provider engaged it and from where. */
  readonly identity?: ClusterIdentity;
  /** Serves watches of this cluster from a cache the provider keeps; without it, informers watch the cluster themselves. */
  readonly cache?: ClusterCache;
  /**
   * What to do when a resource is not served by this cluster (its list answers 404), as one clause
   * about "it" (the resource), lower case and without a final period; the run's health reason and
   * log line read `resource <id> is not served by this cluster (list answered 404): <hint>, or
   * check the group, version and plural of the descriptor`. Set by providers that know more than
   * "install its CRD" (the default), e.g. kcp's APIExport provider: `export it from APIExport
   * widgets (...)`.
   */
  readonly unservedResourceHint?: string;
}

/**
 * What a provider emits: a change in the fleet, or a report on its own health. A changed credential
 * is `disengaged` followed by `engaged` with a new {@link Cluster}, so nothing built on the old
 * client survives. A `report` changes nothing in the fleet: it says what the provider saw (a
 * skipped kubeconfig, a failing Secret watch), for logs, `/readyz` and metrics.
 *
 * @example
 * ```ts
 * const events: FleetEvent[] = [engaged(east), disengaged(east.name)];
 * ```
 */
export type FleetEvent =
  | {
      /** A cluster joined the fleet (a changed credential comes back this way, after `disengaged`). */
      readonly type: 'engaged';
      /** The cluster now engaged, with its own client. */
      readonly cluster: Cluster;
    }
  | {
      /** A cluster left the fleet: everything built on it stops. */
      readonly type: 'disengaged';
      /** The fleet name of the cluster leaving. */
      readonly cluster: ClusterName;
      /** Why it left, for logs and health; absent when the provider does not say. */
      readonly reason?: string;
    }
  | {
      /** A provider report: the fleet itself is unchanged. */
      readonly type: 'report';
      /** What the provider saw (a skipped candidate, a failing source, a lifecycle change). */
      readonly report: ProviderReport;
    };

/**
 * A source of clusters. Cold: subscribing starts discovery, unsubscribing stops it and disengages
 * everything it engaged.
 *
 * @example
 * ```ts
 * const provider: Provider = of(engaged(east), engaged(west));
 * ```
 */
export type Provider = Observable<FleetEvent>;

/**
 * The `engaged` event.
 *
 * @example
 * ```ts
 * engaged({ name: clusterName('east'), client });
 * ```
 * @param cluster - the cluster now in the fleet.
 * @returns the event.
 */
export function engaged(cluster: Cluster): FleetEvent {
  return Object.freeze({ type: 'engaged', cluster });
}

/**
 * The `disengaged` event.
 *
 * @example
 * ```ts
 * disengaged(clusterName('east'), 'kubeconfig Secret deleted');
 * ```
 * @param name - the cluster leaving the fleet.
 * @param reason - why, for logs and health.
 * @returns the event.
 */
export function disengaged(name: ClusterName, reason?: string): FleetEvent {
  return Object.freeze(reason === undefined ? { type: 'disengaged', cluster: name } : { type: 'disengaged', cluster: name, reason });
}

/**
 * The `report` event.
 *
 * @example
 * ```ts
 * reported({ type: 'error', provider: 'kind', reason: 'kind get clusters failed', at: 0 });
 * ```
 * @param report - what the provider wants known.
 * @returns the event.
 */
export function reported(report: ProviderReport): FleetEvent {
  return Object.freeze({ type: 'report', report });
}

/**
 * A read-only view of the clusters engaged right now: what a reconciler uses to reach other
 * clusters (fan-out), and what sinks use to refuse writes to clusters not in the fleet.
 *
 * @example
 * ```ts
 * const west = fleet.get(clusterName('west'));
 * if (west === undefined) return; // not engaged (any more)
 * ```
 */
export interface FleetView {
  /** The engaged cluster of that name, or `undefined` when it is not engaged (any more). */
  get(name: ClusterName): Cluster | undefined;
  /** The engaged clusters, in engagement order. */
  clusters(): readonly Cluster[];
}
