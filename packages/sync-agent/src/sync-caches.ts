// What a sync controller reads instead of asking a server: the caches of the watches it already
// keeps open (its inputs). A reconcile that finds everything as it should be makes no request at
// all, which is what lets a restart over an unchanged fleet write nothing.
import type { ClusterName } from 'rxfleet';
import { objectKey } from 'rxfleet';
import type { KubeObject, Namespace } from 'rxfleet';
import type { ResourceDescriptor } from 'rxfleet';
import { namespaces } from 'rxfleet';
import type { FleetView } from 'rxfleet/streams';
import type { Informers } from 'rxfleet/streams';
import type { Selection } from 'rxfleet/streams';
import { agentLabel, agentSelector } from './labels.js';
import type { PublishedPlan } from './plan.js';
import { serviceCluster } from './clusters.js';

/**
 * The selections of a sync controller's watches: the same objects are used to open the watches
 * (inputs) and to read their caches (reconciles), so both name one shared informer.
 *
 * @example
 * ```ts
 * const w: SyncWatches = syncWatches(plan);
 * const copies: Selection = { ...w.copies }; // what both the watch and the cache read
 * ```
 */
export interface SyncWatches {
  /** The consumer objects (the primary watch): the filter's namespace, every label (an object that leaves the label selector must be seen, to be released). */
  readonly primary: Selection;
  /** The service copies: the agent's and the published resource's labels. */
  readonly copies: Selection;
  /** The service-side namespaces the agent made. */
  readonly namespaces: Selection;
  /** Related objects, on either side: every object of their kind (origin objects carry no label of ours). */
  readonly related: Selection;
}

/**
 * The watch selections of one plan.
 *
 * @example
 * ```ts
 * syncWatches(plan).copies; // { labelSelector: 'sync.rxfleet.dev/agent=rxfleet-sync,sync.rxfleet.dev/published=databases' }
 * ```
 * @param plan - the published resource's plan.
 * @returns the selections.
 */
export function syncWatches(plan: PublishedPlan): SyncWatches {
  const f = plan.published.filter ?? {};
  return {
    primary: f.namespace === undefined ? {} : { namespace: f.namespace },
    copies: { labelSelector: agentSelector(plan.agentName, plan.published.name) },
    namespaces: { labelSelector: `${agentLabel}=${plan.agentName}` },
    related: {},
  };
}

/**
 * Cached reads for one sync controller. `undefined` means "not in the cache"; {@link SyncCaches.ready}
 * says whether "not in the cache" can be trusted as "absent".
 *
 * @example
 * ```ts
 * const copy = caches.ready() ? caches.copy('ws-a', 'x-y') : undefined;
 * ```
 */
export interface SyncCaches {
  /** True once the service copies and namespaces have been listed (their absence is then known). */
  ready(): boolean;
  /** True once a related kind's objects of `cluster` have been listed. */
  relatedReady(cluster: ClusterName, r: ResourceDescriptor): boolean;
  /** The service copy at namespace/name. */
  copy(namespace: string, name: string): KubeObject | undefined;
  /** The service copies in a namespace. */
  copiesIn(namespace: string): readonly KubeObject[];
  /** A service-side namespace the agent made. */
  namespace(name: string): Namespace | undefined;
  /** A related object in a cluster. */
  related(cluster: ClusterName, r: ResourceDescriptor, namespace: string, name: string): KubeObject | undefined;
  /** The related-kind objects of one namespace of a cluster. */
  relatedIn(cluster: ClusterName, r: ResourceDescriptor, namespace: string): readonly KubeObject[];
  /** The consumer objects of one workspace's namespace. */
  primariesIn(cluster: ClusterName, namespace: string): readonly KubeObject[];
  /** Every consumer object of one workspace. */
  primaries(cluster: ClusterName): readonly KubeObject[];
  /** A workspace's logical cluster (`{{ .ClusterName }}`): its identity's id, else its fleet name. */
  logicalCluster(cluster: ClusterName): string;
}

/**
 * Cached reads over the run's informers (from the controller's `inputs` context). A cluster that is
 * not engaged has nothing cached.
 *
 * @example
 * ```ts
 * const caches = syncCaches(plan, fleet, informers);
 * ```
 * @param plan - the published resource's plan.
 * @param fleet - the live fleet.
 * @param informers - the run's shared informers.
 * @returns the reads.
 */
export function syncCaches(plan: PublishedPlan, fleet: FleetView, informers: Informers): SyncCaches {
  const w = syncWatches(plan);
  const store = <T extends KubeObject>(cluster: ClusterName, r: ResourceDescriptor<T>, s: Selection) => {
    const c = fleet.get(cluster);
    return c === undefined ? undefined : informers.informer(c, r, s).store;
  };
  return {
    ready: () => (store(serviceCluster, plan.service, w.copies)?.synced(serviceCluster) ?? false) && (store(serviceCluster, namespaces, w.namespaces)?.synced(serviceCluster) ?? false),
    relatedReady: (cluster, r) => store(cluster, r, w.related)?.synced(cluster) ?? false,
    copy: (namespace, name) => store(serviceCluster, plan.service, w.copies)?.get(objectKey(serviceCluster, namespace, name)),
    copiesIn: (namespace) => store(serviceCluster, plan.service, w.copies)?.byIndex('namespace', namespace) ?? [],
    namespace: (name) => store(serviceCluster, namespaces, w.namespaces)?.get(objectKey(serviceCluster, '', name)),
    related: (cluster, r, namespace, name) => store(cluster, r, w.related)?.get(objectKey(cluster, namespace, name)),
    relatedIn: (cluster, r, namespace) => store(cluster, r, w.related)?.byIndex('namespace', namespace) ?? [],
    primariesIn: (cluster, namespace) => store(cluster, plan.kcp, w.primary)?.byIndex('namespace', namespace) ?? [],
    primaries: (cluster) => store(cluster, plan.kcp, w.primary)?.byIndex('cluster', cluster) ?? [],
    logicalCluster: (cluster) => fleet.get(cluster)?.identity?.id ?? cluster,
  };
}
