// One fixed cluster, for controllers that run against a single cluster but are written for a fleet.
import type { Provider } from '../../streams/cluster.js';
import type { ClusterEntry } from '../clusters/set.js';
import { clusterSet } from '../clusters/set.js';
import type { ContactOptions } from '../internal/options.js';

export type { ClusterEntry, KubeconfigEntry } from '../clusters/index.js';
export type { ContactOptions, ProviderOptions, ProviderReport } from '../clusters/index.js';

/**
 * A provider of exactly one cluster, engaged on subscribe and disengaged on unsubscribe. A
 * kubeconfig entry gets a new client per subscription, closed on unsubscribe; a given
 * `Cluster`'s client stays the caller's. The cluster's identity names the provider `single`.
 *
 * @example
 * ```ts
 * import { single } from 'rxfleet/providers/single';
 * const fleet = createFleet(single({ name: 'local', kubeconfig: { file: `${process.env.HOME}/.kube/config` } }));
 * ```
 * @param entry - the cluster, or its name and kubeconfig.
 * @param options - scheduler, optional first contact.
 * @returns the provider.
 * @throws ConfigError when the name is invalid.
 */
export function single(entry: ClusterEntry, options: ContactOptions = {}): Provider {
  // Only the Observable: the set's add/remove are not part of a single cluster's contract.
  return clusterSet('single', [entry], options).pipe();
}
