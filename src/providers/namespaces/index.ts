/**
 * Each namespace of one cluster as a cluster of the fleet, as multicluster-runtime's namespace
 * provider: a cheap way to run and test fleet controllers on one server, or to give each tenant
 * namespace its own reconciler lifetimes.
 *
 * @packageDocumentation
 * @module rxfleet/providers/namespaces
 */
// First: fails clearly on an unsupported Node before anything else loads.
import '../../internal/require-node.js';
import type { ClusterName } from '../../core/cluster.js';
import { clusterName } from '../../core/cluster.js';
import type { Namespace } from '../../core/object.js';
import { namespaces as namespaceResource } from '../../core/resource.js';
import type { Cluster, Provider } from '../../streams/cluster.js';
import type { ContactOptions } from '../../streams/provider-options.js';
import { splitWatches } from '../../streams/split-watches.js';
import type { ManagementWatchOptions } from '../../streams/watched.js';
import type { Candidate } from '../internal/candidates.js';
import { desiredPerObject } from '../internal/desired-per-object.js';
import { engageChanges } from '../internal/engage.js';
import { managementWatch } from '../internal/management.js';
import { objectChanges } from '../internal/objects.js';
import { engineConfig } from '../internal/options.js';
import { reporting } from '../internal/report.js';
import { namespaceCandidate } from './candidate.js';

export { namespaceLabel } from './candidate.js';

/**
 * Options of {@link namespaceProvider}.
 *
 * @example
 * ```ts
 * const opts: NamespaceProviderOptions = { management: hub, labelSelector: 'tenant=true' };
 * ```
 */
export interface NamespaceProviderOptions extends ContactOptions {
  /** The cluster whose namespaces become clusters (its client stays the caller's). */
  readonly management: Cluster;
  /** Which namespaces; default all. */
  readonly labelSelector?: string;
  /**
   * How the provider watches its management cluster: the Namespace watch and the shared watches
   * (timeouts, backoff, streaming lists, `listerWatcherFor`).
   */
  readonly managementWatch?: ManagementWatchOptions;
  /**
   * Serve the namespace-clusters' watches from one cluster-wide watch per resource and selection,
   * split by namespace (default `true`, as multicluster-runtime's namespace provider does): N
   * namespaces cost one watch and one connection, not N. Needs cluster-wide list/watch of the
   * watched resources; `false` gives each namespace-cluster its own namespace-scoped watch.
   */
  readonly shareWatches?: boolean;
}

/** The namespace an object of a namespace-cluster belongs to: its own (cluster-scoped objects belong to none). */
const namespaceOf = (o: { readonly metadata: { readonly namespace?: string } }): ClusterName | undefined =>
  o.metadata.namespace === undefined || o.metadata.namespace === '' ? undefined : clusterName(o.metadata.namespace);

/**
 * A provider that engages every namespace of a cluster as a cluster named after the namespace.
 * Its {@link Cluster} carries a client scoped to the namespace (calls without a namespace go to
 * it) and the label `rxfleet.dev/namespace: <ns>`, which operators read
 * when they need the namespace explicitly. A namespace is disengaged as soon as its deletion
 * starts (deletionTimestamp) or it is gone. No client is created: nothing to close. A failing
 * Namespace watch (RBAC, unreachable server) is reported as `source` failing, then recovered.
 *
 * @example
 * ```ts
 * import { namespaceProvider } from 'rxfleet/providers/namespaces';
 * const fleet = createFleet(namespaceProvider({ management: hub }));
 * ```
 * @param options - the cluster, selector and reporting.
 * @returns the provider.
 */
export function namespaceProvider(options: NamespaceProviderOptions): Provider {
  const cfg = engineConfig('namespaces', options, 'its namespace was deleted', false);
  return reporting(cfg, (say) => {
    const shared = options.shareWatches === false ? undefined : splitWatches(options.management, { ...options.managementWatch, scopeOf: namespaceOf });
    // Each Namespace object (frozen, replaced on change) is made a candidate once: a change of one
    // namespace among thousands rebuilds one candidate, not all of them.
    const made = new WeakMap<Namespace, Candidate | null>();
    const candidateOf = (ns: Namespace): Candidate | null => {
      let c = made.get(ns);
      if (c === undefined) made.set(ns, (c = namespaceCandidate(options.management, ns, shared) ?? null));
      return c;
    };
    return managementWatch(options.management, namespaceResource, { ...options.managementWatch, ...(options.labelSelector === undefined ? {} : { labelSelector: options.labelSelector }) }, say).pipe(
      objectChanges(),
      desiredPerObject((ns: Namespace) => candidateOf(ns) ?? undefined),
      engageChanges(cfg, say),
    );
  });
}
