// Renaming a provider's clusters, the building block of `multi`: composition is plain RxJS.
import { map } from 'rxjs';
import type { Cluster, FleetEvent, Provider } from '../../client/cluster.js';
import { disengaged, engaged } from '../../client/cluster.js';
import { clusterName } from '../../core/cluster.js';

/**
 * The same provider with every cluster name prefixed (`prefix + name`). The Cluster keeps its
 * client (whose errors still name the cluster as its provider knows it) and labels.
 *
 * @example
 * ```ts
 * import { withPrefix } from 'rxfleet/providers/multi';
 * const fleet = createFleet(merge(withPrefix('prod#', prodProvider), withPrefix('dev#', devProvider)));
 * ```
 * @param prefix - prepended to every name, separator included.
 * @param provider - the provider to rename.
 * @returns the renamed provider.
 */
export function withPrefix(prefix: string, provider: Provider): Provider {
  return provider.pipe(
    map((ev): FleetEvent => {
      if (ev.type === 'disengaged') return disengaged(clusterName(`${prefix}${ev.name}`), ...(ev.reason === undefined ? [] : [ev.reason]));
      const renamed: Cluster = { ...ev.cluster, name: clusterName(`${prefix}${ev.cluster.name}`) };
      return engaged(Object.freeze(renamed));
    }),
  );
}
