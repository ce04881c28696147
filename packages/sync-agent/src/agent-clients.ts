// The clients the agent makes with the kubeconfigs it is given: the service cluster's and the default
// provider workspace's (its own, for its whole start or life), and an installation's provider
// workspace's, with that installation's own kubeconfig (its credentials, for its kcp only). A
// kubeconfig that cannot be used is a ConfigError naming which one.
import { ConfigError } from 'rxfleet';
import type { ClusterClient } from 'rxfleet/client';
import { createClusterClient } from 'rxfleet/client';
import { E } from 'rxfleet/fp';
import type { SyncAgentOptions } from './agent.js';
import { exportCluster, serviceCluster } from './clusters.js';
import type { KcpInstallation } from './installations.js';
import { installationCluster } from './installations.js';
import type { PreflightClients } from './preflight.js';

/**
 * New clients of the service cluster (`service`) and of the default provider workspace
 * (`kcp-export`); the caller closes both.
 *
 * @example
 * ```ts
 * const clients = agentClients(options);
 * try {
 *   await preflight(options.config, clients);
 * } finally {
 *   clients.service.close();
 *   clients.kcp.close();
 * }
 * ```
 * @param options - the agent's options (both kubeconfigs, the clients' options).
 * @returns the clients.
 * @throws ConfigError when a kubeconfig cannot be used.
 */
export function agentClients(options: SyncAgentOptions): PreflightClients {
  const kcpKubeconfig = typeof options.kcp === 'function' ? options.kcp() : options.kcp;
  const service = createClusterClient(serviceCluster, options.service, options.client);
  if (E.isLeft(service)) throw new ConfigError(`sync agent: the service cluster's kubeconfig cannot be used: ${service.left.message}`);
  const kcp = createClusterClient(exportCluster, kcpKubeconfig, options.client);
  if (E.isLeft(kcp)) {
    service.right.close();
    throw new ConfigError(`sync agent: the kcp provider workspace's kubeconfig cannot be used: ${kcp.left.message}`);
  }
  return { service: service.right, kcp: kcp.right };
}

/**
 * A new client of the installation's provider workspace (named `<installation>#kcp-export`), made
 * with its own kubeconfig (its credentials, for its kcp only); the caller closes it.
 *
 * @example
 * ```ts
 * const kcp = installationClient(options, eu); // kcp.cluster === 'eu#kcp-export'
 * kcp.close();
 * ```
 * @param options - the agent's options (the clients' options).
 * @param i - the installation.
 * @returns the client.
 * @throws ConfigError when its kubeconfig cannot be used.
 */
export function installationClient(options: SyncAgentOptions, i: KcpInstallation): ClusterClient {
  const kcp = createClusterClient(installationCluster(i.name, exportCluster), { file: i.kubeconfig }, options.client);
  if (E.isLeft(kcp)) throw new ConfigError(`sync agent: installation "${i.name}": its kubeconfig cannot be used: ${kcp.left.message}`);
  return kcp.right;
}
