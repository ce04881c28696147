// A namespace as a candidate cluster: its namespace-scoped client, its label, its identity and,
// when watches are shared, a cache that serves its namespaced watches from the cluster-wide ones.
import type { ClusterName } from '../../core/cluster.js';
import { clusterName } from '../../core/cluster.js';
import type { KubeObject, Namespace } from '../../core/object.js';
import type { ResourceDescriptor } from '../../core/resource.js';
import { E } from '../../internal/fp.js';
import type { CacheViewOptions, Cluster } from '../../streams/cluster.js';
import type { SplitWatches } from '../../streams/split-watches.js';
import type { Candidate } from '../internal/candidates.js';
import { scopedClient } from './scoped-client.js';

/** The label carrying a namespace-cluster's namespace. @example `cluster.labels?.[namespaceLabel] // 'team-a'` */
export const namespaceLabel = 'rxfleet.dev/namespace';

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
            // Only what the shared watch holds: this namespace's objects of a namespaced resource,
            // named as the caller knows the cluster (`as`: `ns#team-a` under multiProvider).
            view: <T extends KubeObject>(r: ResourceDescriptor<T>, o: CacheViewOptions<T>, as: ClusterName) => {
              const { namespace, ...rest } = o;
              return r.namespaced && (namespace === undefined || namespace === n) ? shared.view(r, rest, name, as) : undefined;
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
          identity: { provider: 'namespaces', from: `namespace ${n} of ${management.name}` },
          ...cache,
        }),
      ),
  };
}
