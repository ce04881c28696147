/**
 * The programmatic provider: a set of clusters you add to and remove from at run time (tests,
 * demos, and anything that discovers clusters its own way). Same role as multicluster-runtime's
 * `clusters` provider.
 *
 * @packageDocumentation
 * @module rxfleet/providers/clusters
 */
// First: fails clearly on an unsupported Node before anything else loads.
import '../../internal/require-node.js';
import type { ContactOptions } from '../../streams/provider-options.js';
import type { ClusterEntry, ClusterListProvider } from './set.js';
import { clusterSet } from './set.js';

export type { ClusterEntry, ClusterListProvider, KubeconfigEntry } from './set.js';

/**
 * A provider over a set you change at run time. Cold: each subscription engages the set as it is
 * then and follows later `add` and `remove` calls; unsubscribing closes the clients it built.
 * Kubeconfig entries are not contacted before engaging unless `options.probe` says so. Each
 * cluster's identity names the provider `clusters` and where its kubeconfig comes from; its labels
 * are the entry's. Reports (engaged, skipped with the cause…) travel in the provider's stream.
 *
 * @example
 * ```ts
 * import { clusterListProvider } from 'rxfleet/providers/clusters';
 * const set = clusterListProvider([east]);
 * const fleet = createFleet(set);
 * set.add({ name: 'west', kubeconfig: { yaml: westYaml } });
 * ```
 * @param initial - the starting set.
 * @param options - scheduler, optional first contact.
 * @returns the provider, with `add`, `remove` and `names`.
 * @throws ConfigError when two entries share a name or a name is invalid.
 */
export function clusterListProvider(initial: readonly ClusterEntry[] = [], options: ContactOptions = {}): ClusterListProvider {
  return clusterSet('clusters', initial, options);
}
