// The service-cluster side of the sync-agent end-to-end test: the example's Database CRD installed
// on the shared kube-apiserver under a group of its own, the example's stand-in operator running
// on it (in the test process: it is the service, not the agent under test), and the example's
// agent configuration rewritten for that group.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pino } from 'pino';
import type { ClusterClient } from '../../src/client/index.js';
import { createClusterClient } from '../../src/client/index.js';
import { E } from '../../src/fp/index.js';
import type { KubeObject, ResourceDescriptor, RunHandle } from '../../src/index.js';
import { clusterName, run } from '../../src/index.js';
import { singleClusterProvider } from '../../src/providers/single/index.js';
import type { SourceIdentity } from '../../src/sinks/index.js';
import { readBackReference } from '../../src/sinks/index.js';
import type { Database } from '../../examples/sync-agent/api.js';
import { DEFAULT_GROUP, databasesIn, installDatabaseCrd } from '../../examples/sync-agent/api.js';
import { databaseOperator } from '../../examples/sync-agent/operator.js';
import { repoRoot } from './binaries.js';
import { waitFor } from './sync-agent-process.js';

/**
 * The service cluster as the test sees it.
 *
 * @example
 * ```ts
 * const svc = await startService(sharedKubeApiserver().kubeconfigYaml('admin'));
 * await svc.stop();
 * ```
 */
export interface ServiceSide {
  /** The Database CRD's group (unique to this test). */
  readonly group: string;
  /** The APIExport the agent is configured with. */
  readonly exportName: string;
  /** The agent's name in the configuration. */
  readonly agentName: string;
  /** An admin client of the service cluster. */
  readonly client: ClusterClient;
  /** Databases v1 on the service cluster. */
  readonly databases: ResourceDescriptor<Database>;
  /** The example's config.yaml with the group (and export) replaced. */
  readonly configYaml: string;
  /** Every Database the agent made (by its labels) whose back-reference names `cluster`. */
  copiesFrom(cluster: string): Promise<readonly Database[]>;
  /** Stops the operator and closes the client. */
  stop(): Promise<void>;
}

/**
 * The back-reference of a service copy, or a thrown error naming the copy.
 *
 * @example
 * ```ts
 * expect(backRef(copy).cluster).toBe(a.logicalCluster);
 * ```
 * @param obj - a service-side object the agent made.
 * @returns its back-reference.
 */
export function backRef(obj: KubeObject): SourceIdentity {
  const ref = readBackReference(obj);
  if (ref === undefined) throw new Error(`${obj.metadata.namespace ?? ''}/${obj.metadata.name ?? ''} has no back-reference`);
  return ref;
}

/**
 * Installs the CRD under a fresh group, starts the operator and prepares the agent's configuration.
 *
 * @example
 * ```ts
 * const svc = await startService(yaml);
 * ```
 * @param kubeconfigYaml - the service cluster's admin kubeconfig.
 * @param operatorTiming - how long instances stay Provisioning and deleted ones are held (default 1 s and 2 s).
 * @returns the service side.
 */
export async function startService(kubeconfigYaml: string, operatorTiming: { readonly readyAfterMs?: number; readonly deprovisionMs?: number } = {}): Promise<ServiceSide> {
  const group = `db${randomBytes(4).toString('hex')}.example.dev`;
  const made = createClusterClient(clusterName('service-test'), { yaml: kubeconfigYaml });
  if (E.isLeft(made)) throw new Error(made.left.message);
  const client = made.right;
  const databases = databasesIn(group);
  await installDatabaseCrd(client, group);
  await waitFor(`databases.${group} served`, async () => (E.isRight(await client.list(databases, { limit: 1 })) ? true : undefined));

  const operator: RunHandle = await run(
    databaseOperator({
      provider: singleClusterProvider({ name: 'service', kubeconfig: { yaml: kubeconfigYaml } }),
      group,
      readyAfterMs: operatorTiming.readyAfterMs ?? 1_000,
      deprovisionMs: operatorTiming.deprovisionMs ?? 2_000,
    }),
    { logger: pino({ level: 'silent' }), http: false, signals: false },
  );

  // The example's own file, so the configuration the docs show is the one tested.
  const example = readFileSync(join(repoRoot, 'examples', 'sync-agent', 'config.yaml'), 'utf8');
  const configYaml = example.replaceAll(DEFAULT_GROUP, group);
  const exportName = `databases.${group}`;
  if (!configYaml.includes(`apiExport: ${exportName}`)) throw new Error(`examples/sync-agent/config.yaml no longer names apiExport databases.${DEFAULT_GROUP}`);
  const agentName = /^agentName: (\S+)$/m.exec(configYaml)?.[1] ?? 'rxfleet-sync';

  return {
    group,
    exportName,
    agentName,
    client,
    databases,
    configYaml,
    copiesFrom: async (cluster) => {
      const listed = await client.listAll(databases, { labelSelector: `sync.rxfleet.dev/agent=${agentName}` });
      if (E.isLeft(listed)) throw new Error(listed.left.message);
      return listed.right.items.filter((d) => readBackReference(d)?.cluster === cluster);
    },
    stop: async () => {
      await operator.stop({ deadlineMs: 5_000 });
      client.close();
    },
  };
}
