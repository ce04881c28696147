/**
 * One fixed cluster, for controllers that run against a single cluster but are written for a fleet.
 *
 * @packageDocumentation
 * @module rxfleet/providers/single
 */
// First: fails clearly on an unsupported Node before anything else loads.
import '../../internal/require-node.js';
import type { Provider } from '../../streams/cluster.js';
import type { ClusterEntry } from '../clusters/set.js';
import { clusterSet } from '../clusters/set.js';
import type { ContactOptions } from '../../streams/provider-options.js';


/**
 * A provider of exactly one cluster, engaged on subscribe and disengaged on unsubscribe. A
 * kubeconfig entry gets a new client per subscription, closed on unsubscribe; a given
 * `Cluster`'s client stays the caller's. The cluster's identity names the provider `single`.
 *
 * @example
 * ```ts
 * import { singleClusterProvider } from 'rxfleet/providers/single';
 * const fleet = createFleet(singleClusterProvider({ name: 'local', kubeconfig: { file: `${process.env.HOME}/.kube/config` } }));
 * ```
 * @param entry - the cluster, or its name and kubeconfig.
 * @param options - scheduler, optional first contact.
 * @returns the provider.
 * @throws ConfigError when the name is invalid.
 */
export function singleClusterProvider(entry: ClusterEntry, options: ContactOptions = {}): Provider {
  // Only the Observable: the set's add/remove are not part of a single cluster's contract.
  return clusterSet('single', [entry], options).pipe();
}
