// The set-up the sync agent's integration tests share, on the real kcp and kube-apiserver: a service
// side, a provider workspace and consumer workspaces, `rxfleet-sync-agent` as its own process with
// the test's configuration, the export bound in every consumer; and the reads those tests make of
// what arrived (a copy, a Lease, a refusal in a consumer object's status). `relatedScenario` is it
// with the tenancy service side (every workspace's copies in ONE service namespace).
import { afterAll, beforeAll } from 'vitest';
import type { ClusterClient } from '../../src/client/index.js';
import type { ResourceDescriptor } from '../../src/index.js';
import type { Lease } from '../../src/resources/index.js';
import { leases } from '../../src/resources/index.js';
import type { Database } from '../../examples/sync-agent/api.js';
import { databasesIn } from '../../examples/sync-agent/api.js';
import type { SyncConfig } from '../../packages/sync-agent/src/types.js';
import { sharedKcp, sharedKubeApiserver } from '../support/context.js';
import type { KcpWorkspace } from '../support/kcp.js';
import type { Export, ExportClaim } from '../support/sync-agent-kcp.js';
import { bindExport, getOrUndefined, waitForExport } from '../support/sync-agent-kcp.js';
import type { SyncAgentProcess, SyncAgentSpec } from '../support/sync-agent-process.js';
import { startSyncAgent, tempFile, waitFor } from '../support/sync-agent-process.js';
import type { ServiceSide } from '../support/sync-agent-service.js';
import { backRef } from '../support/sync-agent-service.js';
import { clientFrom } from './runtime-support.js';
import type { TenancyService } from './sync-tenancy-support.js';
import { startTenancyService } from './sync-tenancy-support.js';

/** A kcp workspace and a client of it. */
export interface AgentWorkspace {
  readonly ws: KcpWorkspace;
  readonly client: ClusterClient;
}

/** A condition of a consumer object's status, as the agent writes it. */
export interface SyncCondition {
  readonly type: string;
  readonly status: string;
  readonly reason: string;
  readonly message: string;
}

/** A consumer object whose status may carry the agent's conditions. */
export type Conditioned = Database & { readonly status?: Database['status'] & { readonly conditions?: readonly SyncCondition[] } };

/** What an agent scenario sets up. */
export interface AgentScenarioOptions<S extends ServiceSide> {
  /** Starts the service side on the shared kube-apiserver (given its admin kubeconfig). */
  readonly service: (kubeconfigYaml: string) => Promise<S>;
  /** How many consumer workspaces bind the export. */
  readonly consumers: number;
  /** The agent's configuration, given the service side and the consumer workspaces (text is written as it is). */
  readonly config: (svc: S, consumers: readonly AgentWorkspace[]) => SyncConfig | string;
  /** What the export's permission claims must be before it is bound (default: at least one). */
  readonly claimed?: (claims: readonly ExportClaim[]) => boolean;
  /** Runs once the service side is up, before any workspace exists. */
  readonly beforeWorkspaces?: (svc: S) => Promise<void>;
  /** Runs once the workspaces exist, before the agent starts. */
  readonly beforeAgent?: (consumers: readonly AgentWorkspace[]) => Promise<void>;
}

/** What a related scenario sets up: the tenancy service side, whose CRD may gain more spec fields. */
export interface RelatedScenarioOptions extends Omit<AgentScenarioOptions<TenancyService>, 'service'> {
  /** More string fields the Database CRD's spec gains (besides `configName`). */
  readonly specFields?: readonly string[];
}

/** A running agent scenario and the reads its tests make. */
export interface AgentScenario<S extends ServiceSide, Db extends Database> {
  readonly svc: S;
  /** The first consumer workspace. */
  readonly a: AgentWorkspace;
  /** The second consumer workspace (with `consumers: 2`). */
  readonly b: AgentWorkspace;
  readonly agent: SyncAgentProcess;
  readonly provider: AgentWorkspace;
  readonly consumers: readonly AgentWorkspace[];
  readonly exported: Export;
  /** The agent's configuration and kubeconfig files. */
  readonly files: SyncAgentSpec;
  /** The consumers' Databases (the published resource). */
  readonly dbs: ResourceDescriptor<Db>;
  /** The agent's last log lines, for failure messages. */
  readonly context: () => string;
  /** The copy of a consumer object on the service cluster (found by its back-reference). */
  readonly copyOf: (w: AgentWorkspace, name: string, namespace?: string) => Promise<Db>;
  /** A Lease in a workspace with this holder (namespace default `default`). */
  readonly workspaceLease: (w: AgentWorkspace, name: string, holderIdentity: string, namespace?: string) => Promise<Lease>;
  /** The Synced=False condition the agent writes into a consumer object's status once it refuses. */
  readonly refusedIn: (w: AgentWorkspace, name: string) => Promise<SyncCondition>;
}

/** The related tests' scenario: the tenancy service side. */
export type RelatedScenario<Db extends Database> = AgentScenario<TenancyService, Db>;

/** A started scenario, and how to stop it. */
interface Started<S extends ServiceSide, Db extends Database> extends AgentScenario<S, Db> {
  /** Stops the agent, then the service side. */
  stop(): Promise<void>;
}

/** The holder of a Lease. */
export const holder = (l: Lease | undefined): string | undefined => l?.spec?.holderIdentity;

/** The agent's Synced condition in a consumer object's status. */
export const synced = (d: Conditioned | undefined): SyncCondition | undefined => d?.status?.conditions?.find((c) => c.type === 'sync.rxfleet.dev/Synced');

/** An export's claims as `resource.group`, sorted (`leases.coordination.k8s.io`, `secrets.`). */
export const claimNames = (claims: readonly ExportClaim[]): string[] => claims.map((c) => `${c.resource}.${c.group ?? ''}`).sort();

async function workspace(): Promise<AgentWorkspace> {
  const ws = await sharedKcp().createWorkspace();
  return { ws, client: clientFrom(ws.path, ws.kubeconfigYaml()) };
}

/**
 * The related tests' scenario of the calling test file: the tenancy service side (its CRD widened by
 * `specFields`), started before its tests and stopped after them.
 *
 * @example
 * ```ts
 * const s = relatedScenario<Database>({ consumers: 2, config: (svc) => sharedNamespaceSyncConfig(svc, svc.sharedNamespace) });
 * it('copies', async () => expect(await s.copyOf(s.a, 'orders')).toBeDefined());
 * ```
 * @param o - consumers, CRD fields, configuration, what the export must claim, steps before.
 * @returns the scenario, once its tests run.
 */
export function relatedScenario<Db extends Database>(o: RelatedScenarioOptions): RelatedScenario<Db> {
  return agentScenario<TenancyService, Db>({ ...o, service: (kubeconfigYaml) => startTenancyService(kubeconfigYaml, o.specFields) });
}

/**
 * The scenario of the calling test file: started before its tests (beforeAll) and stopped after
 * them (afterAll); read it inside a test.
 *
 * @example
 * ```ts
 * const s = agentScenario<ServiceSide, Database>({ service: (yaml) => startService(yaml), consumers: 1, config: (svc) => svc.configYaml });
 * ```
 * @param o - the service side, consumers, configuration, what the export must claim, steps before.
 * @returns the scenario, once its tests run.
 */
export function agentScenario<S extends ServiceSide, Db extends Database>(o: AgentScenarioOptions<S>): AgentScenario<S, Db> {
  let started: Started<S, Db> | undefined;
  beforeAll(async () => {
    started = await startAgentScenario<S, Db>(o);
  });
  afterAll(async () => {
    await started?.stop();
  });
  const now = (): Started<S, Db> => {
    if (started === undefined) throw new Error('the sync agent scenario is not running: read it inside a test');
    return started;
  };
  return {
    get svc() { return now().svc; },
    get a() { return now().a; },
    get b() { return now().b; },
    get agent() { return now().agent; },
    get provider() { return now().provider; },
    get consumers() { return now().consumers; },
    get exported() { return now().exported; },
    get files() { return now().files; },
    get dbs() { return now().dbs; },
    context: () => now().context(),
    copyOf: (w, name, namespace) => now().copyOf(w, name, namespace),
    workspaceLease: (w, name, holderIdentity, namespace) => now().workspaceLease(w, name, holderIdentity, namespace),
    refusedIn: (w, name) => now().refusedIn(w, name),
  };
}

/**
 * Starts the service side, the workspaces and the agent, and binds the agent's export in every
 * consumer. A failure on the way stops what had started and is thrown.
 *
 * @param o - the service side, consumers, configuration, what the export must claim, steps before.
 * @returns the running scenario.
 */
async function startAgentScenario<S extends ServiceSide, Db extends Database>(o: AgentScenarioOptions<S>): Promise<Started<S, Db>> {
  const kas = sharedKubeApiserver();
  const svc = await o.service(kas.kubeconfigYaml('admin'));
  let agent: SyncAgentProcess | undefined;
  try {
    await o.beforeWorkspaces?.(svc);
    const [provider, ...consumers] = await Promise.all(Array.from({ length: o.consumers + 1 }, workspace));
    if (provider === undefined) throw new Error('no provider workspace');
    await o.beforeAgent?.(consumers);
    const config = o.config(svc, consumers);
    const files = { configFile: tempFile('sync.yaml', typeof config === 'string' ? config : JSON.stringify(config)), kcpKubeconfig: tempFile('kcp.kubeconfig', provider.ws.kubeconfigYaml()), serviceKubeconfig: tempFile('service.kubeconfig', kas.kubeconfigYaml('admin')) };
    const started = startSyncAgent(files);
    agent = started;
    const context = (): string => started.tail(60);
    const dbs = databasesIn(svc.group) as ResourceDescriptor<Db>;
    const conditioned: ResourceDescriptor<Conditioned> = dbs;
    const claimed = o.claimed ?? ((c) => c.length > 0);
    const exported = await waitForExport(provider.client, svc.exportName, (e) => (e.spec?.resources ?? []).length > 0 && claimed(e.spec?.permissionClaims ?? []), context);
    await Promise.all(consumers.map((w) => bindExport(w.client, exported, provider.ws.path, dbs)));
    const consumer = (i: number): AgentWorkspace => {
      const w = consumers[i];
      if (w === undefined) throw new Error(`the scenario has ${consumers.length} consumer workspace(s), not ${i + 1}`);
      return w;
    };
    return {
      svc, agent: started, provider, consumers, exported, files, dbs, context,
      get a() { return consumer(0); },
      get b() { return consumer(1); },
      copyOf: (w, name, namespace = 'default') =>
        waitFor(`the copy of ${w.ws.logicalCluster}/${namespace}/${name}`, async () => (await svc.copiesFrom(w.ws.logicalCluster)).find((c) => backRef(c).namespace === namespace && backRef(c).name === name) as Db | undefined, { context }),
      workspaceLease: (w, name, holderIdentity, namespace = 'default') =>
        waitFor(`the Lease ${namespace}/${name} in ${w.ws.logicalCluster} held by ${holderIdentity}`, async () => {
          const l = await getOrUndefined<Lease>(w.client, leases, name, namespace);
          return holder(l) === holderIdentity ? l : undefined;
        }, { context }),
      refusedIn: (w, name) =>
        waitFor(`the refusal in ${w.ws.logicalCluster}/default/${name}'s status`, async () => {
          const c = synced(await getOrUndefined(w.client, conditioned, name, 'default'));
          return c?.status === 'False' ? c : undefined;
        }, { context }),
      stop: async () => {
        await started.stop(10_000);
        await svc.stop();
      },
    };
  } catch (err) {
    await agent?.stop(10_000);
    await svc.stop();
    throw err;
  }
}
