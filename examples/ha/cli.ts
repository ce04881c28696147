// Command line of examples/ha: which server, which replica mode, where the Leases live, the lease
// timings, and this replica's identity. Checked before anything starts, so a typo exits with code 2
// and what to fix instead of a replica that joins the wrong group.
import { parseArgs } from 'node:util';
import { createClusterClient } from 'rxfleet/client';
import type { Cluster } from 'rxfleet';
import { clusterName, ConfigError, isLeft } from 'rxfleet';
import type { Replicas } from 'rxfleet/runtime';
import { replicaIdentity } from 'rxfleet/runtime';
import { parseExampleArgs } from '../shared/cli.js';
import { CONTROLLER, TENANT_SELECTOR } from './controller.js';

/** Everything main.ts needs, parsed and checked. */
export interface HaSetup {
  /** The server: its namespaces are the fleet, its Leases coordinate the replicas. */
  readonly server: Cluster;
  /** This process's identity (Lease holder, and the `written-by` annotation). */
  readonly identity: string;
  /** The `replicas` option of `main`. */
  readonly replicas: Replicas;
  readonly tenantSelector: string;
  readonly reconcileDelayMs: number;
  /** STAMP_OUTPUTS=0: outputs carry no `written-by`/`written-at`, and a converged output is not written again. */
  readonly stampOutputs: boolean;
}

const usage =
  'usage: --cluster NAME=KUBECONFIG [--replicas leader|shard] [--lease-namespace NS] [--lease-name NAME] [--identity ID] [--weight N] ' +
  '[--lease-duration-ms MS --renew-deadline-ms MS --retry-period-ms MS]';

function whole(flag: string, text: string | undefined, min: number): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!Number.isInteger(n) || n < min) throw new ConfigError(`${flag} ${JSON.stringify(text)}: expected a whole number >= ${min}`);
  return n;
}

/**
 * Parses examples/ha's flags and environment (`TENANT_SELECTOR`, `RECONCILE_DELAY_MS`, `WARM_CACHES`, `STAMP_OUTPUTS`,
 * `POD_NAME`, `POD_NAMESPACE`).
 *
 * @example
 * ```ts
 * const setup = parseHaArgs(['--cluster', 'local=/home/me/.kube/config', '--replicas', 'shard'], process.env);
 * ```
 * @param argv - `process.argv.slice(2)`.
 * @param env - the environment.
 * @returns the checked setup.
 * @throws ConfigError saying what to fix.
 */
export function parseHaArgs(argv: readonly string[], env: NodeJS.ProcessEnv): HaSetup {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        cluster: { type: 'string' },
        replicas: { type: 'string', default: 'leader' },
        'lease-namespace': { type: 'string', default: env.POD_NAMESPACE ?? 'default' },
        'lease-name': { type: 'string', default: CONTROLLER },
        identity: { type: 'string' },
        weight: { type: 'string' },
        'lease-duration-ms': { type: 'string' },
        'renew-deadline-ms': { type: 'string' },
        'retry-period-ms': { type: 'string' },
      },
      strict: true,
    }));
  } catch (err) {
    throw new ConfigError(`${err instanceof Error ? err.message : String(err)}; ${usage}`);
  }
  if (values.cluster === undefined) throw new ConfigError(`no --cluster: pass the server whose namespaces are the fleet; ${usage}`);
  // The shared parser checks the kubeconfig now, so a bad path fails before any Lease is touched.
  const [entry] = parseExampleArgs(['--cluster', values.cluster], { namespace: '' }).clusters;
  if (entry === undefined) throw new ConfigError(`--cluster ${values.cluster}: ${usage}`);
  const client = createClusterClient(clusterName(entry.name), entry.kubeconfig);
  if (isLeft(client)) throw new ConfigError(client.left.message);
  const server: Cluster = { name: client.right.cluster, client: client.right };

  // The runtime's default (`$POD_NAME` or the host name, plus 6 random hex digits), made here
  // because the controller writes it into every output it writes.
  const identity = values.identity ?? replicaIdentity();
  // Unset timings keep the runtime's defaults (controller-runtime's: 15 s / 10 s / 2 s); the
  // runtime checks that duration > renew deadline > retry period.
  const timing: Partial<Record<'leaseDurationMs' | 'renewDeadlineMs' | 'retryPeriodMs', number>> = {};
  const timingFlags = [
    ['lease-duration-ms', 'leaseDurationMs'],
    ['renew-deadline-ms', 'renewDeadlineMs'],
    ['retry-period-ms', 'retryPeriodMs'],
  ] as const;
  for (const [flag, key] of timingFlags) {
    const ms = whole(`--${flag}`, values[flag], 1);
    if (ms !== undefined) timing[key] = ms;
  }
  // WARM_CACHES=N keeps the watches of up to N clusters open while this replica does not run them (0: none).
  const warm = whole('WARM_CACHES', env.WARM_CACHES, 0);
  const lease = { home: server, namespace: values['lease-namespace'], name: values['lease-name'], identity, timing, ...(warm === undefined ? {} : { warmCaches: warm === 0 ? (false as const) : { maxClusters: warm } }) };
  const weight = whole('--weight', values.weight, 1);
  let replicas: Replicas;
  if (values.replicas === 'leader') {
    if (weight !== undefined) throw new ConfigError('--weight only applies to --replicas shard');
    replicas = { type: 'leader-election', ...lease };
  } else if (values.replicas === 'shard') {
    replicas = { type: 'sharding', ...lease, ...(weight === undefined ? {} : { weight }) };
  } else {
    throw new ConfigError(`--replicas ${JSON.stringify(values.replicas)}: expected leader or shard`);
  }
  return {
    server,
    identity,
    replicas,
    tenantSelector: env.TENANT_SELECTOR ?? TENANT_SELECTOR,
    reconcileDelayMs: whole('RECONCILE_DELAY_MS', env.RECONCILE_DELAY_MS, 0) ?? 0,
    stampOutputs: (whole('STAMP_OUTPUTS', env.STAMP_OUTPUTS, 0) ?? 1) !== 0,
  };
}
