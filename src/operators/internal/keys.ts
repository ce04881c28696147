// Per-key memory shared by the keyed operators: string ids, and forgetting a whole cluster.
import type { ClusterName } from '../../core/cluster.js';
import { formatKey } from '../../core/key.js';

/**
 * The prefix every key id of a cluster starts with (see `formatKey`).
 *
 * @example
 * ```ts
 * clusterPrefix(clusterName('capi/prod')); // 'cluster://capi%2Fprod/'
 * ```
 * @param cluster - the cluster.
 * @returns the prefix.
 */
export function clusterPrefix(cluster: ClusterName): string {
  return formatKey({ cluster, namespace: '', name: '' }).slice(0, -1);
}

/**
 * Deletes every entry of a cluster from a map keyed by key id. A scan: clusters leave rarely.
 *
 * @example
 * ```ts
 * forgetCluster(lastSeen, ev.cluster);
 * ```
 * @param map - the map.
 * @param cluster - the cluster that left.
 * @param onForget - called with each removed value.
 */
export function forgetCluster<V>(map: Map<string, V>, cluster: ClusterName, onForget?: (v: V) => void): void {
  const prefix = clusterPrefix(cluster);
  for (const [id, v] of map) {
    if (!id.startsWith(prefix)) continue;
    map.delete(id);
    onForget?.(v);
  }
}
