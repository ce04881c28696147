// Each other kcp installation checked on its own: the same preflight as the default installation's,
// against its provider workspace (its APIExport above all), through a client made with its own
// credentials (`installationClient`). The agent's start (both forms) checks each through clients
// made for that one check and closed after it; the live agent's checks of the PublishedResources
// make one per installation for each round (preflight-round.ts). Either way a kcp that cannot be
// read is told from a configuration it refuses.
import { ConfigError } from 'rxfleet';
import type { ClusterClient } from 'rxfleet/client';
import { createClusterClient } from 'rxfleet/client';
import { E } from 'rxfleet/fp';
import type { SyncAgentOptions } from './agent.js';
import { exportCluster, serviceCluster } from './clusters.js';
import type { InstallationCheck } from './installation-gate.js';
import type { KcpInstallation } from './installations.js';
import { installationCluster } from './installations.js';
import type { PublishedPlan } from './plan.js';
import { preflight } from './preflight.js';
import type { SyncConfig } from './types.js';

/**
 * Runs `f` with a client of the installation's provider workspace (named `<installation>#kcp-export`)
 * and one of the service cluster, made for it and closed after it (the service cluster's: unless
 * one is given, which is used and left open). A new connection for each call: a kcp that stopped
 * answering is found within the client's connect timeout, not a request's.
 *
 * @example
 * ```ts
 * const cluster = await withInstallationClients(options, eu, ({ kcp }: { kcp: ClusterClient }) => Promise.resolve(kcp.cluster)); // 'eu#kcp-export'
 * ```
 * @param options - the agent's options (the service kubeconfig, the clients' options).
 * @param i - the installation.
 * @param f - what to do with the clients.
 * @param given - the service cluster's client to use.
 * @returns what `f` returns.
 * @throws ConfigError (as a rejection) when a kubeconfig cannot be used.
 */
export async function withInstallationClients<T>(options: SyncAgentOptions, i: KcpInstallation, f: (clients: { readonly service: ClusterClient; readonly kcp: ClusterClient }) => Promise<T>, given?: ClusterClient): Promise<T> {
  const service = given === undefined ? createClusterClient(serviceCluster, options.service, options.client) : E.right(given);
  try {
    if (E.isLeft(service)) throw new ConfigError(`sync agent: the service cluster's kubeconfig cannot be used: ${service.left.message}`);
    const kcp = installationClient(options, i);
    try {
      return await f({ service: service.right, kcp });
    } finally {
      kcp.close();
    }
  } finally {
    if (given === undefined && E.isRight(service)) service.right.close();
  }
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

/**
 * One other installation's preflight: `config` (default the agent's) checked against its provider
 * workspace and its APIExport (`apiExport`, else the config's).
 *
 * @example
 * ```ts
 * await preflightInstallation(options, eu, { ...options.config, published: [...options.config.published, ...fromObjects] });
 * ```
 * @param options - the agent's options.
 * @param i - the installation.
 * @param config - what to check; default `options.config`.
 * @param service - the service cluster's client to use (default: one made for the check).
 * @returns the plans (the same as the default installation's for the same config).
 * @throws ConfigError (as a rejection) listing what its kcp refuses; Error when its kcp cannot be read.
 */
export function preflightInstallation(options: SyncAgentOptions, i: KcpInstallation, config: SyncConfig = options.config, service?: ClusterClient): Promise<readonly PublishedPlan[]> {
  return withInstallationClients(options, i, (clients) => preflight({ ...config, apiExport: i.apiExport ?? config.apiExport }, clients), service);
}

/**
 * The start's check of each other installation: a configuration one refuses stops the start (a
 * {@link ConfigError} naming it); one whose kcp cannot be read is returned as not passed, with its
 * check, so it stays out of the fleet until that passes (`gatedInstallation`) and the others start.
 *
 * @example
 * ```ts
 * const checks = await installationChecks(options);
 * const provider = syncAgentProvider(options, plans.map((p: PublishedPlan) => p.kcp), checks);
 * ```
 * @param options - the agent's options.
 * @returns each installation's check, by name.
 * @throws ConfigError (as a rejection) when an installation's kcp refuses the configuration.
 */
export async function installationChecks(options: SyncAgentOptions): Promise<ReadonlyMap<string, InstallationCheck>> {
  const checks = new Map<string, InstallationCheck>();
  for (const i of options.config.installations ?? []) {
    const check = async (): Promise<void> => {
      await preflightInstallation(options, i);
    };
    try {
      await check();
      checks.set(i.name, { passed: true, check });
    } catch (err) {
      if (err instanceof ConfigError) throw err;
      checks.set(i.name, { passed: false, check });
    }
  }
  return checks;
}
