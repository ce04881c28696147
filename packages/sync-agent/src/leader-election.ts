// `rxfleet-sync-agent --leader-election-namespace <ns>`: several agent processes (a Deployment's
// replicas), one of which syncs at a time. The runtime's leader election (RunOptions.replicas) on a
// Lease in that namespace of the service cluster, as api-syncagent keeps its own there: the holder
// runs the publisher and every sync controller, the others stand by with nothing started and take
// over when the Lease is not renewed (a killed leader: after the lease duration).
import { ConfigError } from 'rxfleet';
import { createClusterClient } from 'rxfleet/client';
import type { ClusterClientOptions } from 'rxfleet/client';
import { E } from 'rxfleet/fp';
import type { Replicas } from 'rxfleet/runtime';
import { serviceCluster } from './clusters.js';
import { dnsLabelProblem } from './naming.js';

/**
 * The leader election flags of `rxfleet-sync-agent`.
 *
 * @example
 * ```ts
 * const flags: LeaderElectionFlags = { leaderElectionNamespace: 'kcp-system', leaseDurationMs: 15_000 };
 * ```
 */
export interface LeaderElectionFlags {
  /** The namespace (on the service cluster) of the leader Lease; absent: no leader election. */
  readonly leaderElectionNamespace?: string | undefined;
  /** The Lease's name; default `<agentName>.<apiExport>`, so agents of different exports never share one. */
  readonly leaseName?: string | undefined;
  /** How long a Lease holds without renewal (default 15,000). */
  readonly leaseDurationMs?: number | undefined;
  /** How long the leader keeps trying to renew before it stops (default 10,000). */
  readonly renewDeadlineMs?: number | undefined;
  /** How often a standby tries to take the Lease (default 2,000). */
  readonly retryPeriodMs?: number | undefined;
}

/**
 * What the flags say about running as several replicas: `undefined` without
 * `leaderElectionNamespace`, else leader election on the service cluster.
 *
 * @example
 * ```ts
 * const replicas = leaderElection({ leaderElectionNamespace: 'kcp-system' }, { agentName: 'rxfleet-sync', apiExport: 'db.example.dev', serviceKubeconfig: 'service.kubeconfig' });
 * ```
 * @param flags - the command's flags.
 * @param agent - the agent's name, its export (the Lease's default name) and the service cluster's kubeconfig file.
 * @param agent.agentName - the agent's name.
 * @param agent.apiExport - the APIExport it keeps.
 * @param agent.serviceKubeconfig - the service cluster's kubeconfig file (where the Lease lives).
 * @param client - user agent and timeouts of the Lease client.
 * @returns the runtime's `replicas` option, or undefined.
 * @throws ConfigError when a flag is wrong or the kubeconfig cannot be used.
 */
export function leaderElection(flags: LeaderElectionFlags, agent: { readonly agentName: string; readonly apiExport: string; readonly serviceKubeconfig: string }, client?: ClusterClientOptions): Replicas | undefined {
  const namespace = flags.leaderElectionNamespace;
  const timingFlags = { leaseDurationMs: flags.leaseDurationMs, renewDeadlineMs: flags.renewDeadlineMs, retryPeriodMs: flags.retryPeriodMs };
  if (namespace === undefined) {
    const stray = Object.entries({ ...timingFlags, leaseName: flags.leaseName }).find(([, v]) => v !== undefined);
    if (stray !== undefined) throw new ConfigError(`--${kebab(stray[0])} needs --leader-election-namespace (leader election is off without it)`);
    return undefined;
  }
  const bad = dnsLabelProblem(namespace);
  if (bad !== undefined) throw new ConfigError(`--leader-election-namespace ${JSON.stringify(namespace)} ${bad}`);
  const timing: Record<string, number> = {};
  for (const [key, ms] of Object.entries(timingFlags)) {
    if (ms === undefined) continue;
    if (!Number.isInteger(ms) || ms < 1) throw new ConfigError(`--${kebab(key)} must be a whole number of milliseconds, at least 1, got ${String(ms)}`);
    timing[key] = ms;
  }
  const home = createClusterClient(serviceCluster, { file: agent.serviceKubeconfig }, client);
  if (E.isLeft(home)) throw new ConfigError(`--leader-election-namespace: the service cluster's kubeconfig cannot be used: ${home.left.message}`);
  const name = flags.leaseName ?? `${agent.agentName}.${agent.apiExport}`;
  return { type: 'leader-election', home: { name: serviceCluster, client: home.right }, namespace, name, timing };
}

const kebab = (s: string): string => s.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
