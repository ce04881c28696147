// One check of the PublishedResources (a round): the clients every preflight of it reads through.
// Each server is read once per round (round-reads.ts), and each installation's provider workspace
// through one connection made for the round with that installation's own kubeconfig, and closed
// after it: never one installation's credentials for another's workspace, and a kcp that stopped
// answering is still found within a connect timeout at the next round.
import type { ClusterClient } from 'rxfleet/client';
import type { SyncAgentOptions } from './agent.js';
import { installationClient } from './installation-preflight.js';
import type { KcpInstallation } from './installations.js';
import type { PreflightClients } from './preflight.js';
import { preflight } from './preflight.js';
import type { InstallationPreflight } from './published-live.js';
import { roundReads } from './round-reads.js';

/**
 * A round's clients and each other installation's check, for `acceptPublished`; `close` ends it.
 *
 * @example
 * ```ts
 * const round = preflightRound(options, clients);
 * try {
 *   await acceptPublished(options.config, objects, round.clients, round.checks);
 * } finally {
 *   round.close();
 * }
 * ```
 */
export interface PreflightRound {
  /** The service cluster's and the default provider workspace's clients, their reads shared. */
  readonly clients: PreflightClients;
  /** Each other installation's check, against its provider workspace through the round's one client. */
  readonly checks: readonly InstallationPreflight[];
  /** Closes the connections the round made (not those of `clients`). */
  close(): void;
}

/**
 * Starts a round.
 *
 * @example
 * ```ts
 * const round = preflightRound(options, { service, kcp });
 * ```
 * @param options - the agent's options (each installation's kubeconfig and APIExport, the clients' options).
 * @param clients - the agent's own clients of the service cluster and the default provider workspace.
 * @returns the round.
 */
export function preflightRound(options: SyncAgentOptions, clients: PreflightClients): PreflightRound {
  const service = roundReads(clients.service);
  const opened = new Map<string, { readonly client: ClusterClient; readonly reads: ClusterClient }>();
  // Made on the installation's first check of the round (a kubeconfig that cannot be used throws a ConfigError each time).
  const kcpOf = (i: KcpInstallation): ClusterClient => {
    let c = opened.get(i.name);
    if (c === undefined) {
      const client = installationClient(options, i);
      c = { client, reads: roundReads(client) };
      opened.set(i.name, c);
    }
    return c.reads;
  };
  return {
    clients: { service, kcp: roundReads(clients.kcp) },
    checks: (options.config.installations ?? []).map((i) => ({ name: i.name, check: (config) => preflight({ ...config, apiExport: i.apiExport ?? config.apiExport }, { service, kcp: kcpOf(i) }) })),
    close: () => {
      for (const c of opened.values()) c.client.close();
    },
  };
}
