// The sync agent, assembled: the config checked against both servers once (preflight), then one
// publisher and one sync controller per published resource, all on ONE provider so a single run
// shares its clusters, clients and watches: the consumer workspaces of the APIExport, the service
// cluster, and the provider workspace where the export lives.
import type { Observable } from 'rxjs';
import { map, merge } from 'rxjs';
import type { ClusterClientOptions } from 'rxfleet/client';
import type { KubeconfigSource } from 'rxfleet/client';
import type { KubeObject, ResourceDescriptor } from 'rxfleet';
import { apiExportProvider } from 'rxfleet/providers/kcp';
import type { KcpKubeconfig } from 'rxfleet/providers/kcp';
import { singleClusterProvider } from 'rxfleet/providers/single';
import { withPrefix } from 'rxfleet/providers/multi';
import type { Controller } from 'rxfleet';
import type { Provider } from 'rxfleet/streams';
import { adoptControllers } from './adopt.js';
import { exportCluster, serviceCluster } from './clusters.js';
import type { InstallationCheck } from './installation-gate.js';
import { gatedInstallation } from './installation-gate.js';
import { installationChecks } from './installation-preflight.js';
import { preflightRound } from './preflight-round.js';
import { installationCluster, installationSeparator, namingReports } from './installations.js';
import { defaultAgentName } from './labels.js';
import { preflight } from './preflight.js';
import { publisherController } from './publisher.js';
import type { SchemaFollower } from './schema-follow.js';
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
   * The kcp provider workspace's kubeconfig (its server is `https://<kcp>/clusters/<provider workspace>`)
   * of the default installation; each of the config's `installations` has its own.
   * A function is re-read after each 401 by the APIExport provider (kcp issues a new admin token at every restart).
   */
  readonly kcp: KcpKubeconfig;
  /** The service cluster's kubeconfig. */
  readonly service: KubeconfigSource;
  /** User agent and request timeout of every client the agent makes. */
  readonly client?: ClusterClientOptions;
}

// An installation whose preflight passed at start.
const passedAtStart: InstallationCheck = { passed: true, check: () => Promise.resolve() };

/**
 * The agent's one provider: the APIExport's consumer workspaces, the service cluster as
 * `service`, and the provider workspace as `kcp-export` (see `serviceCluster`, `exportCluster`);
 * each of the config's other `installations` adds its own consumer workspaces and provider
 * workspace, reached with its own kubeconfig, named `<installation>#<name>` (`eu#root`, `eu#kcp-export`).
 *
 * @example
 * ```ts
 * const provider = syncAgentProvider({ config, kcp: { file: 'provider.kubeconfig' }, service: { file: 'service.kubeconfig' } });
 * ```
 * @param options - the config (for the export's name) and both kubeconfigs.
 * @param published - the published resources in kcp (`PublishedPlan.kcp`): their watches list again
 *   when a consumer workspace is bound to a new schema of them (a CRD change), so new fields sync
 *   without a restart. Default none. Or a follower whose set changes while the agent runs
 *   (`schemaFollower`, `follow`), as the agent watching PublishedResources keeps one.
 * @param checks - per installation of `config.installations`, whether its preflight passed at start
 *   and how to run it again: one that did not joins the fleet once it passes. Default: all passed.
 * @returns the provider every controller of the agent shares.
 */
export function syncAgentProvider(options: SyncAgentOptions, published: readonly ResourceDescriptor[] | SchemaFollower = [], checks: ReadonlyMap<string, InstallationCheck> = new Map()): Provider {
  // The published resources' watches follow the schema each workspace is bound to (schema-follow.ts);
  // a follower given is shared by every installation (a binding seen in two may cost one more list).
  const given = Array.isArray(published) ? undefined : (published as SchemaFollower);
  const descriptors: readonly ResourceDescriptor[] = Array.isArray(published) ? published : [];
  // One installation's consumer workspaces and provider workspace, with its own credentials only.
  const installation = (management: KcpKubeconfig, exportName: string): Provider => {
    const follower = given ?? (descriptors.length === 0 ? undefined : schemaFollower(descriptors));
    const managementWatch = follower === undefined ? {} : { managementWatch: { listerWatcherFor: follower.listerWatcherFor } };
    const kubeconfig = typeof management === 'function' ? management() : management;
    return merge(
      apiExportProvider({ management, ...(options.client === undefined ? {} : { client: options.client }), exportName, ...managementWatch }),
      singleClusterProvider({ name: exportCluster, kubeconfig }),
    );
  };
  return merge(
    installation(options.kcp, options.config.apiExport),
    singleClusterProvider({ name: serviceCluster, kubeconfig: options.service }),
    // Each other installation's clusters as `<name>#<cluster>` (installations.ts), its reports naming it too.
    // One not checked at start stays out until its preflight passes (installation-gate.ts).
    ...(options.config.installations ?? []).map((i) =>
      gatedInstallation(i.name, checks.get(i.name) ?? passedAtStart, () =>
        withPrefix(`${i.name}${installationSeparator}`, installation(() => ({ file: i.kubeconfig }), i.apiExport ?? options.config.apiExport)).pipe(map(namingReports(i.name))),
      ),
    ),
  );
}

/**
 * The sync agent's controllers, ready for `run`/`main`: checks the config against the service
 * cluster and kcp first (`preflight`: one `ConfigError` listing every problem), then returns
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
  // One round for the start: the service cluster's CRDs read once for every installation's check,
  // each other installation through one connection; all closed before the controllers run.
  const round = preflightRound(options);
  try {
    const plans = await preflight(options.config, round.clients);
    // The same checks against each other installation's provider workspace (its APIExport above all).
    // A problem stops the start; a kcp that cannot be read keeps only its own installation out.
    return agentControllers(options, plans, await installationChecks(options, round));
  } finally {
    round.close();
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
 * @param checks - the other installations' preflights (see {@link syncAgentProvider}).
 * @returns the controllers.
 */
export function agentControllers(options: SyncAgentOptions, plans: readonly PublishedPlan[], checks: ReadonlyMap<string, InstallationCheck> = new Map()): readonly Controller<KubeObject>[] {
  const shared = syncAgentProvider(options, plans.map((p) => p.kcp), checks);
  return [...publishers(options, plans, shared), ...plans.flatMap((plan) => planControllers(plan, shared))];
}

/**
 * The publishers of the plans: the APIExport's, then one per other kcp installation (named
 * `publisher.<installation>`). The live agent replaces them together when the plans change.
 *
 * @example
 * ```ts
 * handle.add(publishers(options, plans, provider));
 * ```
 * @param options - the config and both kubeconfigs.
 * @param plans - what preflight returned (none: the export is kept as it is).
 * @param provider - the agent's one provider.
 * @param byInstallation - the plans another installation's export gets instead, by its name (the
 *   live agent's: only what was checked against that installation's kcp). Default: `plans` for each.
 * @returns the publishers.
 */
export function publishers(options: SyncAgentOptions, plans: readonly PublishedPlan[], provider: Provider, byInstallation: ReadonlyMap<string, readonly PublishedPlan[]> = new Map()): readonly Controller<KubeObject>[] {
  const agentName = options.config.agentName ?? defaultAgentName;
  const publisher = publisherController(plans, { provider, apiExport: options.config.apiExport, agentName });
  // Each other installation's export is kept by a publisher of its own, named after it.
  const others = (options.config.installations ?? []).map((i) =>
    publisherController(byInstallation.get(i.name) ?? plans, { provider, apiExport: i.apiExport ?? options.config.apiExport, exportCluster: installationCluster(i.name, exportCluster), name: `publisher.${i.name}`, agentName }),
  );
  return [publisher, ...others];
}

/**
 * One plan's controllers: its sync controller, then its adoption controllers (none for an entry
 * with `sync: false`, which is only published). The live agent starts and stops them together when
 * their PublishedResource changes.
 *
 * @example
 * ```ts
 * handle.add(planControllers(plan, provider));
 * ```
 * @param plan - the plan.
 * @param provider - the agent's one provider.
 * @param discovered - for controllers that join a running run: emits once its workspaces are discovered (the orphan sweep waits for it).
 * @returns the controllers.
 */
export function planControllers(plan: PublishedPlan, provider: Provider, discovered?: Observable<unknown>): readonly Controller<KubeObject>[] {
  if (plan.published.sync === false) return [];
  return [syncController(plan, { provider, ...(discovered === undefined ? {} : { discovered }) }), ...adoptControllers(plan, { provider })];
}
