// One fixed cluster, for controllers that run against a single cluster but are written for a fleet.
import type { Provider } from '../../client/cluster.js';
import type { ClusterEntry } from '../clusters/index.js';
import { clusters } from '../clusters/index.js';
import type { ContactOptions } from '../internal/options.js';

export type { ClusterEntry, KubeconfigEntry } from '../clusters/index.js';
export type { ContactOptions, ProviderOptions, ProviderReport } from '../clusters/index.js';

/**
 * A provider of exactly one cluster, engaged on subscribe and disengaged on unsubscribe. A
 * kubeconfig entry gets a new client per subscription, closed on unsubscribe; a given
 * {@link Cluster}'s client stays the caller's.
 *
 * @example
 * ```ts
 * import { single } from 'rxfleet/providers/single';
 * const fleet = createFleet(single({ name: 'local', kubeconfig: { file: `${process.env.HOME}/.kube/config` } }));
 * ```
 * @param entry - the cluster, or its name and kubeconfig.
 * @param options - reporting, scheduler, optional first contact.
 * @returns the provider.
 */
export function single(entry: ClusterEntry, options: ContactOptions = {}): Provider {
  return clusters([entry], options).pipe();
}
