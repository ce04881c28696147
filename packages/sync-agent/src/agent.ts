// The sync agent, assembled: the config checked against both servers once (preflight), then one
// publisher and one sync controller per published resource, all on ONE provider so a single run
// shares its clusters, clients and watches: the consumer workspaces of the APIExport, the service
// cluster, and the provider workspace where the export lives.
import { merge } from 'rxjs';
import type { ClusterClientOptions } from 'rxfleet/client';
import { createClusterClient } from 'rxfleet/client';
import type { KubeconfigSource } from 'rxfleet/client';
import { ConfigError } from 'rxfleet';
import type { KubeObject, ResourceDescriptor } from 'rxfleet';
import { E } from 'rxfleet/fp';
import { apiExportProvider } from 'rxfleet/providers/kcp';
import type { KcpKubeconfig } from 'rxfleet/providers/kcp';
import { singleClusterProvider } from 'rxfleet/providers/single';
import type { Controller } from 'rxfleet';
import type { Provider } from 'rxfleet/streams';
import { adoptControllers } from './adopt.js';
import { exportCluster, serviceCluster } from './clusters.js';
import { preflight } from './preflight.js';
import { publisherController } from './publisher.js';
import { schemaFollower } from './schema-follow.js';
import { syncController } from './sync-controller.js';
import type { PublishedPlan } from './plan.js';
import type { SyncConfig } from './types.js';

/**
 * What {@link syncAgent} takes.
 *
 * @example
 * ```ts
 * const options: SyncAgentOptions = {
 *   config: { apiExport: 'databases.example.dev', published: [{ name: 'databases', crd: { group: 'db.example.dev', kind: 'Database' } }] },
 *   kcp: { file: 'provider.kubeconfig' },
 *   service: { file: 'service.kubeconfig' },
 * };
 * ```
 */
export interface SyncAgentOptions {
  /** The parsed config (`parseSyncConfig`). */
  readonly config: SyncConfig;
  /**
   * The kcp provider workspace's kubeconfig (its server is `https://<kcp>/clusters/<provider workspace>`).
   * A function is re-read after each 401 by the APIExport provider (kcp issues a new admin token at every restart).
   */
  readonly kcp: KcpKubeconfig;
  /** The service cluster's kubeconfig. */
  readonly service: KubeconfigSource;
  /** User agent and request timeout of every client the agent makes. */
  readonly client?: ClusterClientOptions;
}

/**
 * The agent's one provider: the APIExport's consumer workspaces, the service cluster as
 * `service`, and the provider workspace as `kcp-export` (see `serviceCluster`, `exportCluster`).
 *
 * @example
 * ```ts
 * const provider = syncAgentProvider({ config, kcp: { file: 'provider.kubeconfig' }, service: { file: 'service.kubeconfig' } });
 * ```
 * @param options - the config (for the export's name) and both kubeconfigs.
 * @param published - the published resources in kcp (`PublishedPlan.kcp`): their watches list again
 *   when a consumer workspace is bound to a new schema of them (a CRD change), so new fields sync
 *   without a restart. Default none.
 * @returns the provider every controller of the agent shares.
 */
export function syncAgentProvider(options: SyncAgentOptions, published: readonly ResourceDescriptor[] = []): Provider {
  const kcp = typeof options.kcp === 'function' ? options.kcp() : options.kcp;
  // The published resources' watches follow the schema each workspace is bound to (schema-follow.ts).
  const managementWatch = published.length === 0 ? {} : { managementWatch: { listerWatcherFor: schemaFollower(published).listerWatcherFor } };
  return merge(
    apiExportProvider({ management: options.kcp, ...(options.client === undefined ? {} : { client: options.client }), exportName: options.config.apiExport, ...managementWatch }),
    singleClusterProvider({ name: serviceCluster, kubeconfig: options.service }),
    singleClusterProvider({ name: exportCluster, kubeconfig: kcp }),
  );
}

/**
 * The sync agent's controllers, ready for `run`/`main`: checks the config against the service
 * cluster and kcp first (`preflight`: one {@link ConfigError} listing every problem), then returns
 * the publisher (CRD → APIResourceSchema + APIExport) and one sync controller per published
 * resource, and one adoption controller per `adopt` rule (`adoptControllers`), all on one provider
 * ({@link syncAgentProvider}).
 *
 * @example
 * ```ts
 * import { main } from 'rxfleet';
 * import { parseSyncConfig, syncAgent } from '@rxfleet/sync-agent';
 * const config = parseSyncConfig(fs.readFileSync('sync.yaml', 'utf8'));
 * void main(await syncAgent({ config, kcp: { file: 'provider.kubeconfig' }, service: { file: 'service.kubeconfig' } }));
 * ```
 * @param options - the config and both kubeconfigs.
 * @returns the controllers.
 * @throws ConfigError (as a rejection) when a kubeconfig cannot be loaded or the config does not fit the servers; Error when a server cannot be read.
 */
export async function syncAgent(options: SyncAgentOptions): Promise<readonly Controller<KubeObject>[]> {
  const kcp = typeof options.kcp === 'function' ? options.kcp() : options.kcp;
  const service = createClusterClient(serviceCluster, options.service, options.client);
  const provider = createClusterClient(exportCluster, kcp, options.client);
  try {
    if (E.isLeft(service)) throw new ConfigError(`sync agent: the service cluster's kubeconfig cannot be used: ${service.left.message}`);
    if (E.isLeft(provider)) throw new ConfigError(`sync agent: the kcp provider workspace's kubeconfig cannot be used: ${provider.left.message}`);
    return agentControllers(options, await preflight(options.config, { service: service.right, kcp: provider.right }));
  } finally {
    if (E.isRight(service)) service.right.close();
    if (E.isRight(provider)) provider.right.close();
  }
}

/**
 * The agent's controllers for plans already checked: the publisher, then each plan's sync (and
 * adoption) controllers, on one provider. {@link syncAgent} after its preflight; the live agent
 * (`watchPublishedResources`) each time the PublishedResources change.
 *
 * @example
 * ```ts
 * const controllers = agentControllers(options, await preflight(options.config, clients));
 * ```
 * @param options - the config and both kubeconfigs.
 * @param plans - what preflight returned.
 * @returns the controllers.
 */
export function agentControllers(options: SyncAgentOptions, plans: readonly PublishedPlan[]): readonly Controller<KubeObject>[] {
  const shared = syncAgentProvider(options, plans.map((p) => p.kcp));
  const publisher = publisherController(plans, { provider: shared, apiExport: options.config.apiExport });
  return [publisher, ...plans.map((plan) => syncController(plan, { provider: shared })), ...plans.flatMap((plan) => adoptControllers(plan, { provider: shared }))];
}
