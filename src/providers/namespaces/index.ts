// Each namespace of one cluster as a cluster of the fleet, as multicluster-runtime's namespace
// provider: a cheap way to run and test fleet controllers on one server, or to give each tenant
// namespace its own reconciler lifetimes.
import { defer, map } from 'rxjs';
import type { Cluster, Provider } from '../../client/cluster.js';
import type { ClusterName } from '../../core/cluster.js';
import { clusterName } from '../../core/cluster.js';
import type { Namespace } from '../../core/object.js';
import { namespaces as namespaceResource } from '../../core/resource.js';
import { E } from '../../internal/fp.js';
import type { WatchStreamOptions } from '../../streams/watch.js';
import type { Candidate, Desired } from '../internal/candidates.js';
import { engageCandidates } from '../internal/engage.js';
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
}

/**
 * The candidate of one namespace (absent while it terminates).
 *
 * @example
 * ```ts
 * namespaceCandidate(hub, ns);
 * ```
 * @param management - the cluster.
 * @param ns - the namespace.
 * @returns the candidate, or undefined for a terminating namespace.
 */
export function namespaceCandidate(management: Cluster, ns: Namespace): Candidate | undefined {
  const n = ns.metadata.name ?? '';
  if (n === '' || ns.metadata.deletionTimestamp !== undefined) return undefined;
  const name = clusterName(n);
  // The uid: a namespace deleted and created again under the same name is a new cluster.
  return {
    name,
    fingerprint: ns.metadata.uid ?? n,
    owned: false,
    build: () => E.right(Object.freeze({ name, client: scopedClient(management.client, name, n), labels: { [namespaceLabel]: n } })),
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
  return defer(() =>
    managementWatch(options.cluster, namespaceResource, { ...options.watch, ...(options.labelSelector === undefined ? {} : { labelSelector: options.labelSelector }) }, cfg.say).pipe(
      snapshots(),
      map((all): Desired => {
        const out = new Map<ClusterName, Candidate>();
        for (const ns of all.values()) {
          const c = namespaceCandidate(options.cluster, ns);
          if (c !== undefined) out.set(c.name, c);
        }
        return out;
      }),
      engageCandidates(cfg),
    ),
  );
}
