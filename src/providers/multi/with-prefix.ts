// Renaming a provider's clusters, the building block of `multi`: composition is plain RxJS.
import { map } from 'rxjs';
import { clusterName } from '../../core/cluster.js';
import type { Cluster, FleetEvent, Provider } from '../../streams/cluster.js';
import { disengaged, engaged, reported } from '../../streams/cluster.js';
import type { ProviderReport } from '../../streams/provider-report.js';
import { renamedClient } from '../internal/renamed-client.js';

/**
 * A report with its cluster's name (or skipped candidate's) prefixed, so it names the cluster as
 * the fleet knows it. `source` reports name a management cluster, outside the fleet: unchanged.
 *
 * @example
 * ```ts
 * prefixReport('prod#', { type: 'engaged', provider: 'kind', cluster: clusterName('east'), at: 0 }); // { type: 'engaged', cluster: 'prod#east', … }
 * ```
 * @param prefix - prepended to the name.
 * @param r - the report.
 * @returns the renamed report.
 */
export function prefixReport(prefix: string, r: ProviderReport): ProviderReport {
  switch (r.type) {
    case 'engaged':
    case 'reengaged':
    case 'disengaged':
    case 'waiting':
      return Object.freeze({ ...r, cluster: clusterName(`${prefix}${r.cluster}`) });
    case 'skipped':
      return Object.freeze({ ...r, candidate: `${prefix}${r.candidate}` });
    case 'error':
    case 'source':
    case 'discovered':
      return r;
  }
}

/**
 * The same provider with every cluster name prefixed (`prefix + name`), in its lifecycle events and
 * in its reports. The Cluster keeps its identity, labels, cache and hint; its client sends the same
 * requests but answers under the new name (`client.cluster` and the `cluster` of its errors, which
 * the runtime labels failures with). Whatever else is named after the cluster is asked for under
 * the name the fleet knows it by (`ClusterCache.view` is given it), so nothing keeps the old one.
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
      switch (ev.type) {
        case 'disengaged':
          return disengaged(clusterName(`${prefix}${ev.cluster}`), ...(ev.reason === undefined ? [] : [ev.reason]));
        case 'report':
          return reported(prefixReport(prefix, ev.report));
        case 'engaged': {
          const name = clusterName(`${prefix}${ev.cluster.name}`);
          const renamed: Cluster = { ...ev.cluster, name, client: renamedClient(ev.cluster.client, name) };
          return engaged(Object.freeze(renamed));
        }
      }
    }),
  );
}
