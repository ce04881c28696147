// The sync agent's fleet has three kinds of cluster: the consumer workspaces (APIExport provider),
// the service cluster and the provider workspace itself (where the APIExport and its schemas live).
// Every controller of the agent selects its clusters with these, so the names are written once.
import { clusterName } from 'rxfleet';
import type { ClusterName } from 'rxfleet';
import type { Cluster } from 'rxfleet/streams';

/**
 * The fleet name of the service cluster (engaged by `singleClusterProvider({ name: 'service', ... })`).
 *
 * @example
 * ```ts
 * const client = fleet.get(serviceCluster)?.client;
 * ```
 */
export const serviceCluster: ClusterName = clusterName('service');

/**
 * The fleet name of the provider workspace in kcp, where the APIExport and APIResourceSchemas live
 * (engaged by `singleClusterProvider({ name: 'kcp-export', ... })` with the kcp kubeconfig).
 *
 * @example
 * ```ts
 * const client = fleet.get(exportCluster)?.client;
 * ```
 */
export const exportCluster: ClusterName = clusterName('kcp-export');

/**
 * True for a consumer workspace: a cluster engaged by the APIExport provider. Selected by identity,
 * not by name, so a workspace that happened to be named `service` could never pass for the service cluster.
 *
 * @example
 * ```ts
 * const consumers = fleet.clusters().filter((c: Cluster) => isConsumer(c));
 * ```
 * @param c - an engaged cluster.
 * @returns whether the APIExport provider engaged it.
 */
export function isConsumer(c: Cluster): boolean {
  return c.identity?.provider === 'kcp-apiexport';
}

/**
 * True for the service cluster: named {@link serviceCluster} and not engaged by the APIExport provider.
 *
 * @example
 * ```ts
 * const onService = (c: Cluster): boolean => isService(c);
 * ```
 * @param c - an engaged cluster.
 * @returns whether it is the service cluster.
 */
export function isService(c: Cluster): boolean {
  return c.name === serviceCluster && !isConsumer(c);
}

/**
 * True for the provider workspace: named {@link exportCluster} and not engaged by the APIExport provider.
 *
 * @example
 * ```ts
 * const onExport = (c: Cluster): boolean => isExport(c);
 * ```
 * @param c - an engaged cluster.
 * @returns whether it is the provider workspace.
 */
export function isExport(c: Cluster): boolean {
  return c.name === exportCluster && !isConsumer(c);
}
