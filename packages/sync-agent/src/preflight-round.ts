// One check of the PublishedResources (a round), the agent's start, or one installation's check
// again: the clients every preflight of it reads through. Each server is read once per round
// (round-reads.ts), and each installation's provider workspace through one connection made for the
// round with that installation's own kubeconfig, and closed with it: never one installation's
// credentials for another's workspace, and a kcp that stopped answering is still found within a
// connect timeout at the next round. What the round writes after its checks (the removal of deleted
// entries from each installation's export) goes through the same connection, its reads not shared.
import type { ClusterClient } from 'rxfleet/client';
import type { SyncAgentOptions } from './agent.js';
import { agentClients, installationClient } from './agent-clients.js';
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
  /**
   * The round's connection to the installation's provider workspace (the one its check read
   * through, made now if it did not), its reads not shared: for what the round writes there.
   * Throws once the round is closed.
   */
  connection(i: KcpInstallation): ClusterClient;
  /** Closes the connections the round made (not those of `clients` given to it); again does nothing. */
  close(): void;
}

/**
 * Starts a round.
 *
 * @example
 * ```ts
 * const round = preflightRound(options, { service, kcp });
 * const ownClients = preflightRound(options); // made for the round, closed with it
 * ```
 * @param options - the agent's options (each installation's kubeconfig and APIExport, the clients' options).
 * @param given - the agent's own clients of the service cluster and the default provider workspace (default: made for the round).
 * @returns the round.
 * @throws ConfigError when a kubeconfig cannot be used (an installation's: when its check or connection is asked for).
 */
export function preflightRound(options: SyncAgentOptions, given?: PreflightClients): PreflightRound {
  const clients = given ?? agentClients(options);
  const service = roundReads(clients.service);
  const opened = new Map<string, { readonly client: ClusterClient; readonly reads: ClusterClient }>();
  let closed = false;
  // Made on the installation's first use in the round (a kubeconfig that cannot be used throws a ConfigError each time).
  const open = (i: KcpInstallation): { readonly client: ClusterClient; readonly reads: ClusterClient } => {
    if (closed) throw new Error(`sync agent: installation "${i.name}": the round of checks is over; its connection is closed`);
    let c = opened.get(i.name);
    if (c === undefined) {
      const client = installationClient(options, i);
      c = { client, reads: roundReads(client) };
      opened.set(i.name, c);
    }
    return c;
  };
  return {
    clients: { service, kcp: roundReads(clients.kcp) },
    checks: (options.config.installations ?? []).map((i) => ({ name: i.name, check: (config) => preflight({ ...config, apiExport: i.apiExport ?? config.apiExport }, { service, kcp: open(i).reads }) })),
    connection: (i) => open(i).client,
    close: () => {
      if (closed) return;
      closed = true;
      for (const c of opened.values()) c.client.close();
      if (given !== undefined) return;
      clients.service.close();
      clients.kcp.close();
    },
  };
}
