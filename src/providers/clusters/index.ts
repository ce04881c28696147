// The programmatic provider: a set of clusters you add to and remove from at run time (tests,
// demos, and anything that discovers clusters its own way). Same role as multicluster-runtime's
// `clusters` provider.
import type { ContactOptions } from '../internal/options.js';
import type { ClusterEntry, ClustersProvider } from './set.js';
import { clusterSet } from './set.js';

export { candidateOf } from './set.js';
export type { ClusterEntry, ClustersProvider, KubeconfigEntry } from './set.js';
export type { ProviderReport } from '../../streams/provider-report.js';
export type { ProviderOptions } from '../internal/report.js';
export type { ContactOptions } from '../internal/options.js';
export type { Probe } from '../internal/engage.js';

/**
 * A provider over a set you change at run time. Cold: each subscription engages the set as it is
 * then and follows later `add` and `remove` calls; unsubscribing closes the clients it built.
 * Kubeconfig entries are not contacted before engaging unless `options.probe` says so. Each
 * cluster's identity names the provider `clusters` and where its kubeconfig comes from; its labels
 * are the entry's. Reports (engaged, skipped with the cause…) travel in the provider's stream.
 *
 * @example
 * ```ts
 * import { clusters } from 'rxfleet/providers/clusters';
 * const set = clusters([east]);
 * const fleet = createFleet(set);
 * set.add({ name: 'west', kubeconfig: { yaml: westYaml } });
 * ```
 * @param initial - the starting set.
 * @param options - scheduler, optional first contact.
 * @returns the provider, with `add`, `remove` and `names`.
 * @throws ConfigError when two entries share a name or a name is invalid.
 */
export function clusters(initial: readonly ClusterEntry[] = [], options: ContactOptions = {}): ClustersProvider {
  return clusterSet('clusters', initial, options);
}
