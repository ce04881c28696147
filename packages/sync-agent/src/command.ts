// `rxfleet-sync-agent --config <file>`: the sync agent as a process. It publishes a service cluster's
// CRDs into kcp and syncs consumers' objects down and their status up, as configured (docs/sync.md).
import type { Argv, CommandModule } from 'yargs';
import { ConfigError } from 'rxfleet';
import type { LeaderElectionFlags } from './leader-election.js';
import { agentSeries, defaultAgentName } from './labels.js';
import { syncOptions } from './sync-options.js';

/**
 * The arguments of `rxfleet-sync-agent`.
 *
 * @example
 * ```ts
 * const args: SyncArgs = { config: 'sync.yaml', kcpKubeconfig: 'provider.kubeconfig', serviceKubeconfig: 'service.kubeconfig', port: 8080, host: '0.0.0.0' };
 * ```
 */
export interface SyncArgs extends LeaderElectionFlags {
  /** The agent's configuration (YAML or JSON; see SyncConfig). */
  readonly config: string;
  /** The provider workspace's kubeconfig (where the APIExport lives). */
  readonly kcpKubeconfig?: string;
  /** The service cluster's kubeconfig (where the CRDs and their operator live). */
  readonly serviceKubeconfig?: string;
  /** The probe and metrics server's port (0: a free one, logged at start). */
  readonly port: number;
  /** The probe and metrics server's address. */
  readonly host: string;
}

const description = `Publish a service cluster's CRDs into kcp and sync consumers' objects, as configured.

The agent turns each published CRD into an APIResourceSchema and keeps the APIExport current, then
syncs every bound workspace's objects down to the service cluster (server-side apply; a finalizer
makes deletion remove the service-side copy first) and their status and related Secrets/ConfigMaps
back. Kubeconfigs: the flags, else KCP_KUBECONFIG / SERVICE_KUBECONFIG, else the config file's
kubeconfigs: { kcp: <path>, service: <path> } (relative to the file). More kcp installations, each
with its own kubeconfig and namespace prefix: the config file's installations.

Probes and metrics on http://<host>:<port>/ (/healthz, /readyz, /metrics). It runs until SIGTERM or
SIGINT. With --leader-election-namespace, several agents (a Deployment's replicas) elect one
leader on a Lease of the service cluster; only the leader syncs. Exit code 2 on a configuration
error (a bad file, an unknown CRD, a version not served, an APIExport owned by another agent), 0
after a clean stop. See docs/sync.md.`;

async function handler(args: SyncArgs): Promise<void> {
  const options = syncOptions({ config: args.config, kcpKubeconfig: args.kcpKubeconfig, serviceKubeconfig: args.serviceKubeconfig });
  // Loaded here, not at the top: every other command (and --help) starts without the runtime.
  const [{ defaultLogger, requestMetrics }, { main }, { countingRequests }, { syncAgent }, { leaderElection }] = await Promise.all([
    import('rxfleet/runtime'),
    import('rxfleet'),
    import('rxfleet/client'),
    import('./agent.js'),
    import('./leader-election.js'),
  ]);
  const logger = defaultLogger();
  const agentName = options.config.agentName ?? defaultAgentName;
  // Checked (and its client made) before anything starts: a bad flag is a configuration error.
  const replicas = leaderElection(args, { agentName, apiExport: options.config.apiExport, serviceKubeconfig: options.serviceKubeconfig });
  const runOptions = { name: agentName, http: { port: args.port, host: args.host }, logger, ...(replicas === undefined ? {} : { replicas }) };
  if (options.config.watchPublishedResources === true) {
    // The PublishedResources of the service cluster, followed while the agent runs (live-agent.ts).
    const { runLiveAgent } = await import('./live-agent.js');
    const result = await runLiveAgent({ config: options.config, kcp: () => ({ file: options.kcpKubeconfig }), service: { file: options.serviceKubeconfig }, logger, run: runOptions });
    process.exitCode = result.code;
    setTimeout(() => process.exit(result.code), 5_000).unref();
    return;
  }
  // A function: the provider workspace's kubeconfig is re-read after a 401 (a restarted kcp issues a new token).
  // Its preflight reads both servers before the run exists: counted as the agent's own requests,
  // served on the run's /metrics beside the controllers' (as the live agent does).
  const requests = requestMetrics(agentSeries);
  const controllers = await countingRequests(requests.record, () => syncAgent({ config: options.config, kcp: () => ({ file: options.kcpKubeconfig }), service: { file: options.serviceKubeconfig } }));
  // The run's name labels the fleet-wide series; each controller keeps its own `controller` label.
  await main(controllers, { ...runOptions, metricsFrom: [requests.registry] });
}

/**
 * The `rxfleet-sync-agent` command module (yargs): the default command of the package's bin.
 *
 * @example
 * ```ts
 * yargs(hideBin(process.argv)).command(syncAgentCommand).parse();
 * // rxfleet-sync-agent --config sync.yaml --kcp-kubeconfig provider.kubeconfig --service-kubeconfig service.kubeconfig
 * ```
 */
export const syncAgentCommand: CommandModule<object, SyncArgs> = {
  command: '$0',
  describe: false,
  builder: (y: Argv) =>
    y
      .usage(`$0 --config <file> [options]\n\n${description}`)
      .option('config', { alias: 'c', type: 'string', demandOption: true, describe: 'the agent configuration file (YAML or JSON)' })
      .option('kcp-kubeconfig', { type: 'string', describe: "the kcp provider workspace's kubeconfig" })
      .option('service-kubeconfig', { type: 'string', describe: "the service cluster's kubeconfig" })
      .option('port', { type: 'number', default: 8080, describe: 'probe and metrics port (0: any free port)' })
      .option('host', { type: 'string', default: '127.0.0.1', describe: 'probe and metrics address (0.0.0.0 in a Pod)' })
      .option('leader-election-namespace', { type: 'string', describe: 'run as one of several replicas: elect a leader on a Lease in this namespace of the service cluster (it must exist)' })
      .option('lease-name', { type: 'string', describe: "the leader Lease's name (default <agentName>.<apiExport>)" })
      .option('lease-duration-ms', { type: 'number', describe: 'how long the Lease holds without renewal (default 15000)' })
      .option('renew-deadline-ms', { type: 'number', describe: 'how long the leader tries to renew before it stops (default 10000)' })
      .option('retry-period-ms', { type: 'number', describe: 'how often a standby tries to take the Lease (default 2000)' })
      .check((a) => {
        const p = a.port;
        if (typeof p !== 'number' || !Number.isInteger(p) || p < 0 || p > 65_535) throw new ConfigError(`--port must be an integer from 0 to 65535, got ${String(p)}`);
        return true;
      })
      .example('$0 -c examples/sync-agent/config.yaml --kcp-kubeconfig provider.kubeconfig --service-kubeconfig service.kubeconfig', 'run the example agent'),
  handler,
};
