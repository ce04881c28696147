// A started control plane as rxfleet sees it: a Cluster (name + client) from a kubeconfig, with
// every client a handle made remembered, so that stopping the handle closes their sockets too.
import { createClusterClient } from '../client/client.js';
import type { ClusterClient } from '../client/client.js';
import type { KubeconfigSource } from '../client/kubeconfig.js';
import { clusterName } from '../core/cluster.js';
import { isLeft } from '../core/either.js';
import type { Cluster } from '../streams/cluster.js';

/**
 * Makes Clusters from kubeconfigs and closes all their clients at once.
 *
 * @example
 * ```ts
 * const clients = clusterFactory();
 * const east = clients.cluster('east', { file: '/tmp/rxfleet-kas-x/admin.kubeconfig' });
 * clients.closeAll();
 * ```
 */
export interface ClusterFactory {
  /** A Cluster named `name` over `source`; throws the loader's error (naming the cluster) when the kubeconfig is unusable. */
  cluster(name: string, source: KubeconfigSource): Cluster;
  /** Closes every client made so far. */
  closeAll(): void;
}

/**
 * A {@link ClusterFactory}.
 *
 * @example
 * ```ts
 * const { cluster, closeAll } = clusterFactory();
 * ```
 */
export function clusterFactory(): ClusterFactory {
  const clients: ClusterClient[] = [];
  return {
    cluster: (name, source) => {
      const made = createClusterClient(clusterName(name), source);
      if (isLeft(made)) throw new Error(`envtest cluster ${name}: ${made.left.message}`);
      clients.push(made.right);
      return { name: made.right.cluster, client: made.right };
    },
    closeAll: () => {
      for (const c of clients.splice(0)) c.close();
    },
  };
}
