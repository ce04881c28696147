// Related objects of any resource (issue 28 item 4): Leases (coordination.k8s.io/v1, a group other
// than core) travel with each Database, one from the workspace down (`origin: kcp`, named by
// `spec.configName`) and one from the service cluster up (`origin: service`, named by
// `spec.connectionSecretName`, its holder rewritten by a mutation), on the real kcp and kube-apiserver with `rxfleet-sync-agent` as its own
// process, every workspace's copies in ONE service namespace. Then tenants try to reach each other's
// Leases, and preflight refuses a resource no server serves. Every check reads the data that arrived.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClusterClient } from '../../src/client/index.js';
import type { ResourceDescriptor } from '../../src/index.js';
import { ConfigError } from '../../src/index.js';
import type { Lease } from '../../src/resources/index.js';
import { leases } from '../../src/resources/index.js';
import { withBackReference } from '../../src/sinks/index.js';
import type { Database } from '../../examples/sync-agent/api.js';
import { databasesIn } from '../../examples/sync-agent/api.js';
import { preflight } from '../../packages/sync-agent/src/preflight.js';
import type { SyncConfig } from '../../packages/sync-agent/src/types.js';
import { sharedKcp, sharedKubeApiserver } from '../support/context.js';
import type { KcpWorkspace } from '../support/kcp.js';
import { bindExport, getOrUndefined, waitForExport } from '../support/sync-agent-kcp.js';
import type { SyncAgentProcess } from '../support/sync-agent-process.js';
import { startSyncAgent, tempFile, waitFor } from '../support/sync-agent-process.js';
import { backRef } from '../support/sync-agent-service.js';
import { must } from '../support/wait.js';
import { clientFrom } from './runtime-support.js';
import type { TenancyService } from './sync-tenancy-support.js';
import { startTenancyService } from './sync-tenancy-support.js';

type Db = Database & { readonly spec: Database['spec'] & { readonly configName?: string }; readonly status?: Database['status'] & { readonly conditions?: readonly Condition[] } };
interface Condition { readonly type: string; readonly status: string; readonly reason: string; readonly message: string }
interface Workspace { readonly ws: KcpWorkspace; readonly client: ClusterClient }

let svc: TenancyService;
let agent: SyncAgentProcess;
let provider: Workspace;
let a: Workspace;
let b: Workspace;
const context = (): string => agent.tail(60);
const dbs = (): ResourceDescriptor<Db> => databasesIn(svc.group);
const holder = (l: Lease | undefined): string | undefined => l?.spec?.holderIdentity;
const synced = (d: Db | undefined): Condition | undefined => d?.status?.conditions?.find((c) => c.type === 'sync.rxfleet.dev/Synced');

/** Leases down (`lock`) and up (`grant`), given by group, version and resource. */
const config = (namespace: string, lockGroup = 'coordination.k8s.io'): SyncConfig => ({
  agentName: svc.agentName,
  apiExport: svc.exportName,
  published: [
    {
      name: 'databases',
      crd: { group: svc.group, kind: 'Database' },
      naming: { namespace, name: '{{ .ClusterName }}-{{ sha3short .Object.metadata.namespace 8 }}-{{ sha3short .Object.metadata.name 8 }}' },
      syncUp: { status: true },
      related: [
        { identifier: 'lock', origin: 'kcp', group: lockGroup, version: 'v1', resource: 'leases', object: { path: 'spec.configName' } },
        // The holder is rewritten on the way up (the primary's mutation engine): granted-to-x → for-x.
        { identifier: 'grant', origin: 'service', group: 'coordination.k8s.io', resource: 'leases', object: { path: 'spec.connectionSecretName' }, mutation: { spec: [{ regex: { path: 'spec.holderIdentity', pattern: '^granted-to-(.*)$', replacement: 'for-$1' } }] } },
      ],
    },
  ],
});

/** The copy of a consumer object in the shared service namespace (found by its back-reference). */
async function copyOf(w: Workspace, name: string): Promise<Db> {
  return waitFor(`the copy of ${w.ws.logicalCluster}/default/${name}`, async () => (await svc.copiesFrom(w.ws.logicalCluster)).find((c) => backRef(c).name === name) as Db | undefined, { context });
}

const lease = (name: string, namespace: string, holderIdentity: string): Lease => ({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name, namespace }, spec: { holderIdentity } });

/** A Lease on the service cluster with this holder, at `name` in the shared namespace. */
const serviceLease = (name: string, holderIdentity: string): Promise<Lease> =>
  waitFor(`the service-side Lease ${name} held by ${holderIdentity}`, async () => {
    const l = await getOrUndefined<Lease>(svc.client, leases, name, svc.sharedNamespace);
    return holder(l) === holderIdentity ? l : undefined;
  }, { context });

/** A Lease in a workspace's default namespace with this holder. */
const workspaceLease = (w: Workspace, name: string, holderIdentity: string): Promise<Lease> =>
  waitFor(`the Lease ${name} in ${w.ws.logicalCluster} held by ${holderIdentity}`, async () => {
    const l = await getOrUndefined<Lease>(w.client, leases, name, 'default');
    return holder(l) === holderIdentity ? l : undefined;
  }, { context });

const workspace = async (): Promise<Workspace> => {
  const ws = await sharedKcp().createWorkspace();
  return { ws, client: clientFrom(ws.path, ws.kubeconfigYaml()) };
};

beforeAll(async () => {
  const kas = sharedKubeApiserver();
  svc = await startTenancyService(kas.kubeconfigYaml('admin'));
  [provider, a, b] = await Promise.all([workspace(), workspace(), workspace()]);
  const files = { configFile: tempFile('sync.yaml', JSON.stringify(config(svc.sharedNamespace))), kcpKubeconfig: tempFile('kcp.kubeconfig', provider.ws.kubeconfigYaml()), serviceKubeconfig: tempFile('service.kubeconfig', kas.kubeconfigYaml('admin')) };
  agent = startSyncAgent(files);
  const claims = (e: { spec?: { permissionClaims?: readonly { group?: string; resource: string }[] } }): string[] => (e.spec?.permissionClaims ?? []).map((c) => `${c.resource}.${c.group ?? ''}`);
  const exported = await waitForExport(provider.client, svc.exportName, (e) => (e.spec?.resources ?? []).length > 0 && claims(e).join() === 'leases.coordination.k8s.io', context);
  await Promise.all([bindExport(a.client, exported, provider.ws.path, dbs()), bindExport(b.client, exported, provider.ws.path, dbs())]);
});

afterAll(async () => {
  await agent.stop(10_000);
  await svc.stop();
});

describe('rxfleet-sync-agent: related objects of any resource (Leases, coordination.k8s.io/v1)', () => {
  let victim: Db;

  it('a Lease goes down from the workspace and another comes up from the service cluster, each with its contents and back-reference', async () => {
    must(await a.client.create(leases, lease('a-lock', 'default', 'tenant-a')));
    must(await a.client.apply(dbs(), { metadata: { name: 'orders', namespace: 'default' }, spec: { engine: 'postgres', size: 1, configName: 'a-lock', connectionSecretName: 'a-grant' } }, { fieldManager: 'consumer' }));
    victim = await copyOf(a, 'orders');
    // Down: at the name the agent derived and wrote into the copy's spec.
    const down = await serviceLease(victim.spec.configName ?? '', 'tenant-a');
    expect(victim.spec.configName).not.toBe('a-lock');
    expect(backRef(down)).toMatchObject({ cluster: a.ws.logicalCluster, namespace: 'default', name: 'orders' });
    // Up: the service's operator (here, the test) makes the Lease where the copy's spec says.
    must(await svc.client.create(leases, lease(victim.spec.connectionSecretName ?? '', svc.sharedNamespace, 'granted-to-a')));
    const up = await workspaceLease(a, 'a-grant', 'for-a');
    expect(backRef(up)).toMatchObject({ cluster: a.ws.logicalCluster, namespace: 'default', name: 'orders' });
    // A change on the origin side travels (the Lease watch wakes the consumer object).
    must(await a.client.patch(leases, 'a-lock', { spec: { holderIdentity: 'tenant-a-2' } }, { type: 'merge', namespace: 'default' }));
    await serviceLease(victim.spec.configName ?? '', 'tenant-a-2');
  });

  it('a consumer naming another tenant\'s Leases (their service-side names) gets only its own', async () => {
    // B learned the names A's Leases have on the service cluster, and names them in its own spec.
    const [aLock, aGrant] = [victim.spec.configName ?? '', victim.spec.connectionSecretName ?? ''];
    must(await b.client.create(leases, lease(aLock, 'default', 'tenant-b')));
    must(await b.client.apply(dbs(), { metadata: { name: 'thief', namespace: 'default' }, spec: { engine: 'postgres', size: 1, configName: aLock, connectionSecretName: aGrant } }, { fieldManager: 'consumer' }));
    const thief = await copyOf(b, 'thief');
    // Sentinel: B's own Lease went down, to B's own place, in the reconcile that handled both Leases.
    await serviceLease(thief.spec.configName ?? '', 'tenant-b');
    expect(thief.spec.configName).not.toBe(aLock);
    expect(thief.spec.connectionSecretName).not.toBe(aGrant);
    // A's grant never reached B; A's Leases on the service side are as A's sync made them.
    expect(await getOrUndefined<Lease>(b.client, leases, aGrant, 'default')).toBeUndefined();
    expect(holder(await getOrUndefined<Lease>(svc.client, leases, aLock, svc.sharedNamespace))).toBe('tenant-a-2');
    expect(holder(await getOrUndefined<Lease>(svc.client, leases, aGrant, svc.sharedNamespace))).toBe('granted-to-a');
    // B's own grant, once the operator makes it, is what B gets.
    must(await svc.client.create(leases, lease(thief.spec.connectionSecretName ?? '', svc.sharedNamespace, 'granted-to-b')));
    await workspaceLease(b, aGrant, 'for-b');
    expect(synced(await getOrUndefined(b.client, dbs(), 'thief', 'default'))).toBeUndefined();
  });

  it('a forged back-reference on a service-side Lease is never delivered, and the refusal is in the consumer object\'s status', async () => {
    must(await b.client.apply(dbs(), { metadata: { name: 'target', namespace: 'default' }, spec: { engine: 'postgres', size: 1, connectionSecretName: 'target-grant' } }, { fieldManager: 'consumer' }));
    const target = await copyOf(b, 'target');
    const at = target.spec.connectionSecretName ?? '';
    must(await svc.client.create(leases, lease(at, svc.sharedNamespace, 'granted-to-target')));
    await workspaceLease(b, 'target-grant', 'for-target');
    // Someone on the service side puts A's holder in B's Lease, with a back-reference claiming B's
    // object (well-formed: the hash matches, only the uid is not B's).
    const forged = withBackReference({ metadata: { name: at, namespace: svc.sharedNamespace } }, { ...backRef(target), uid: 'forged-uid' });
    must(await svc.client.patch(leases, at, { metadata: forged.metadata, spec: { holderIdentity: 'granted-to-a' } }, { type: 'merge', namespace: svc.sharedNamespace }));
    const refused = await waitFor('the refusal in target\'s status', async () => {
      const c = synced((await getOrUndefined(b.client, dbs(), 'target', 'default')));
      return c?.status === 'False' ? c : undefined;
    }, { context });
    expect(refused.reason).toBe('Refused');
    expect(refused.message).toContain('related "grant" (Lease');
    expect(refused.message).toContain('belongs to another object');
    expect(holder(must(await b.client.get<Lease>(leases, 'target-grant', { namespace: 'default' })))).toBe('for-target');
  });

  it('deleting the consumer object deletes the Lease copies the agent made on both sides, never an origin object', async () => {
    const [lockCopy, grantOrigin] = [victim.spec.configName ?? '', victim.spec.connectionSecretName ?? ''];
    must(await a.client.delete(dbs(), 'orders', { namespace: 'default' }));
    await waitFor('the copies gone', async () => {
      const [down, up, db] = await Promise.all([getOrUndefined<Lease>(svc.client, leases, lockCopy, svc.sharedNamespace), getOrUndefined<Lease>(a.client, leases, 'a-grant', 'default'), getOrUndefined(a.client, dbs(), 'orders', 'default')]);
      return down === undefined && up === undefined && db === undefined ? true : undefined;
    }, { context });
    // The origin objects are their owners': the workspace's Lease and the operator's stay.
    expect(holder(await getOrUndefined<Lease>(a.client, leases, 'a-lock', 'default'))).toBe('tenant-a-2');
    expect(holder(await getOrUndefined<Lease>(svc.client, leases, grantOrigin, svc.sharedNamespace))).toBe('granted-to-a');
  });

  it('preflight refuses a related resource no server serves, naming the published resource, the identifier and the cluster', async () => {
    const clients = { service: svc.client, kcp: provider.client };
    const err = await preflight(config(svc.sharedNamespace, 'nope.example.dev'), clients).then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toContain(`published[0] "databases": related[0] "lock": group nope.example.dev has no version v1 (leases.v1.nope.example.dev) in kcp workspace ${provider.client.cluster} (its origin side)`);
    // The same configuration with a served group starts.
    expect((await preflight(config(svc.sharedNamespace), clients)).map((p) => Object.keys(p.related ?? {}))).toEqual([['lock', 'grant']]);
  });
});
