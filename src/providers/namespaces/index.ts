// Each namespace of one cluster as a cluster of the fleet, as multicluster-runtime's namespace
// provider: a cheap way to run and test fleet controllers on one server, or to give each tenant
// namespace its own reconciler lifetimes.
import { map } from 'rxjs';
import type { KubeObject } from '../../core/object.js';
import type { ResourceDescriptor } from '../../core/resource.js';
import type { Cluster, Provider, Selection } from '../../streams/cluster.js';
import type { Indexer } from '../../streams/store.js';
import type { ClusterName } from '../../core/cluster.js';
import { clusterName } from '../../core/cluster.js';
import type { Namespace } from '../../core/object.js';
import { namespaces as namespaceResource } from '../../core/resource.js';
import { E } from '../../internal/fp.js';
import type { SplitWatches } from '../../streams/split-watches.js';
import { splitWatches } from '../../streams/split-watches.js';
import type { WatchedConfig } from '../../streams/watched.js';
import type { WatchStreamOptions } from '../../streams/watch.js';
import type { Candidate, Desired } from '../internal/candidates.js';
import { engageCandidates } from '../internal/engage.js';
import { reporting } from '../internal/report.js';
import { managementWatch } from '../internal/management.js';
import { snapshots } from '../internal/objects.js';
import type { ContactOptions } from '../internal/options.js';
import { engineConfig } from '../internal/options.js';
import { scopedClient } from './scoped-client.js';

export { scopedClient } from './scoped-client.js';
export type { ContactOptions, ProviderOptions, ProviderReport } from '../clusters/index.js';

/** The label carrying a namespace-cluster's namespace. @example `cluster.labels?.[namespaceLabel] // 'team-a'` */
export const namespaceLabel = 'rxfleet.dev/namespace';

/**
 * Options of {@link namespaces}.
 *
 * @example
 * ```ts
 * const opts: NamespacesOptions = { cluster: hub, labelSelector: 'tenant=true' };
 * ```
 */
export interface NamespacesOptions extends ContactOptions {
  /** The cluster whose namespaces become clusters (its client stays the caller's). */
  readonly cluster: Cluster;
  /** Which namespaces; default all. */
  readonly labelSelector?: string;
  /** Passed to the Namespace watch. */
  readonly watch?: WatchStreamOptions<Namespace>;
  /**
   * Serve the namespace-clusters' watches from one cluster-wide watch per resource and selection,
   * split by namespace (default `true`, as multicluster-runtime's namespace provider does): N
   * namespaces cost one watch and one connection, not N. Needs cluster-wide list/watch of the
   * watched resources; `false` gives each namespace-cluster its own namespace-scoped watch.
   */
  readonly shareWatches?: boolean;
  /** Options of the shared watches (timeouts, backoff, streaming lists). */
  readonly sharedWatchConfig?: WatchedConfig;
}

/** The namespace an object of a namespace-cluster belongs to: its own (cluster-scoped objects belong to none). */
const namespaceOf = (o: { readonly metadata: { readonly namespace?: string } }): ClusterName | undefined =>
  o.metadata.namespace === undefined || o.metadata.namespace === '' ? undefined : clusterName(o.metadata.namespace);

/**
 * The candidate of one namespace (absent while it terminates). With `shared`, the cluster's
 * watches of namespaced resources in its own namespace come from the shared cluster-wide watches.
 *
 * @example
 * ```ts
 * namespaceCandidate(hub, ns);
 * ```
 * @param management - the cluster.
 * @param ns - the namespace.
 * @param shared - the shared watches, when enabled.
 * @returns the candidate, or undefined for a terminating namespace.
 */
export function namespaceCandidate(management: Cluster, ns: Namespace, shared?: SplitWatches): Candidate | undefined {
  const n = ns.metadata.name ?? '';
  if (n === '' || ns.metadata.deletionTimestamp !== undefined) return undefined;
  const name = clusterName(n);
  const cache =
    shared === undefined
      ? {}
      : {
          cache: {
            // Only what the shared watch holds: this namespace's objects of a namespaced resource.
            view: <T extends KubeObject>(r: ResourceDescriptor<T>, o: Selection & { readonly indexers?: Readonly<Record<string, Indexer<T>>> }) => {
              const { namespace, ...rest } = o;
              return r.namespaced && (namespace === undefined || namespace === n) ? shared.view(r, rest, name) : undefined;
            },
          },
        };
  // The uid: a namespace deleted and created again under the same name is a new cluster.
  return {
    name,
    fingerprint: ns.metadata.uid ?? n,
    owned: false,
    build: () =>
      E.right(
        Object.freeze({
          name,
          client: scopedClient(management.client, name, n),
          labels: { [namespaceLabel]: n },
          identity: { provider: 'namespaces', source: `namespace ${n} of ${management.name}` },
          ...cache,
        }),
      ),
  };
}

/**
 * A provider that engages every namespace of a cluster as a cluster named after the namespace.
 * Its {@link Cluster} carries a client scoped to the namespace (see {@link scopedClient}: calls
 * without a namespace go to it) and the label `rxfleet.dev/namespace: <ns>`, which operators read
 * when they need the namespace explicitly. A namespace is disengaged as soon as its deletion
 * starts (deletionTimestamp) or it is gone. No client is created: nothing to close. A failing
 * Namespace watch (RBAC, unreachable server) is reported as `source` failing, then recovered.
 *
 * @example
 * ```ts
 * // `rxfleet` also exports `namespaces` (the resource): alias one of them when you import both.
 * import { namespaces as namespaceProvider } from 'rxfleet/providers/namespaces';
 * const fleet = createFleet(namespaceProvider({ cluster: hub }));
 * ```
 * @param options - the cluster, selector and reporting.
 * @returns the provider.
 */
export function namespaces(options: NamespacesOptions): Provider {
  const cfg = engineConfig('namespaces', options, 'its namespace was deleted', false);
  return reporting(cfg, (say) => {
    const shared = options.shareWatches === false ? undefined : splitWatches(options.cluster, { ...options.sharedWatchConfig, scopeOf: namespaceOf });
    return managementWatch(options.cluster, namespaceResource, { ...options.watch, ...(options.labelSelector === undefined ? {} : { labelSelector: options.labelSelector }) }, say).pipe(
      snapshots(),
      map((all): Desired => {
        const out = new Map<ClusterName, Candidate>();
        for (const ns of all.values()) {
          const c = namespaceCandidate(options.cluster, ns, shared);
          if (c !== undefined) out.set(c.name, c);
        }
        return out;
      }),
      engageCandidates(cfg, say),
    );
  });
}
