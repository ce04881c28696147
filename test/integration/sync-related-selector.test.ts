// Related objects found by a label selector on the service cluster (issue 28 item 4), on the real kcp
// and kube-apiserver with `rxfleet-sync-agent` as its own process, every workspace's copies in ONE
// service namespace. The service's operator (here, the test) makes token Leases for a copy, labelled
// with the copy's name and with `kind=token`. One selector names the copy (`db: {{ .LocalObject.metadata.name }}`);
// another is written to catch every tenant's tokens (`kind: token`). Every check reads the data that arrived.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClusterClient } from '../../src/client/index.js';
import type { ResourceDescriptor } from '../../src/index.js';
import type { Lease } from '../../src/resources/index.js';
import { leases } from '../../src/resources/index.js';
import type { Database } from '../../examples/sync-agent/api.js';
import { databasesIn } from '../../examples/sync-agent/api.js';
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

type Db = Database & { readonly status?: Database['status'] & { readonly conditions?: readonly Condition[] } };
interface Condition { readonly type: string; readonly status: string; readonly reason: string; readonly message: string }
interface Workspace { readonly ws: KcpWorkspace; readonly client: ClusterClient }

let svc: TenancyService;
let agent: SyncAgentProcess;
let a: Workspace;
let b: Workspace;
const context = (): string => agent.tail(60);
const dbs = (): ResourceDescriptor<Db> => databasesIn(svc.group);
const holder = (l: Lease | undefined): string | undefined => l?.spec?.holderIdentity;
const synced = (d: Db | undefined): Condition | undefined => d?.status?.conditions?.find((c) => c.type === 'sync.rxfleet.dev/Synced');
const leasesOf = async (w: Workspace): Promise<readonly Lease[]> => must(await w.client.list(leases, { namespace: 'default' })).items;

const regex = (prefix: string): { readonly regex: { readonly pattern: string; readonly replacement: string } } => ({ regex: { pattern: '^.*-(t[0-9]+)$', replacement: `${prefix}-$1` } });
const config = (namespace: string): SyncConfig => ({
  agentName: svc.agentName,
  apiExport: svc.exportName,
  published: [
    {
      name: 'databases',
      crd: { group: svc.group, kind: 'Database' },
      naming: { namespace, name: '{{ .ClusterName }}-{{ sha3short .Object.metadata.namespace 8 }}-{{ sha3short .Object.metadata.name 8 }}' },
      syncUp: { status: true },
      related: [
        { identifier: 'tokens', origin: 'service', group: 'coordination.k8s.io', version: 'v1', resource: 'leases', object: { selector: { matchLabels: { 'svc.example.dev/db': '{{ .LocalObject.metadata.name }}' }, rewrite: regex('token') } } },
        { identifier: 'broad', origin: 'service', group: 'coordination.k8s.io', version: 'v1', resource: 'leases', object: { selector: { matchLabels: { 'svc.example.dev/kind': 'token' }, rewrite: regex('broad') } } },
      ],
    },
  ],
});

async function copyOf(w: Workspace, name: string): Promise<Db> {
  return waitFor(`the copy of ${w.ws.logicalCluster}/default/${name}`, async () => (await svc.copiesFrom(w.ws.logicalCluster)).find((c) => backRef(c).name === name) as Db | undefined, { context });
}

/** What the service's operator makes for a copy: a token Lease labelled with the copy's name. */
const token = (copy: Db, n: number, holderIdentity: string): Lease => ({
  apiVersion: 'coordination.k8s.io/v1',
  kind: 'Lease',
  metadata: { name: `${copy.metadata.name ?? ''}-t${n}`, namespace: svc.sharedNamespace, labels: { 'svc.example.dev/db': copy.metadata.name ?? '', 'svc.example.dev/kind': 'token' } },
  spec: { holderIdentity },
});

const workspaceLease = (w: Workspace, name: string, holderIdentity: string): Promise<Lease> =>
  waitFor(`the Lease ${name} in ${w.ws.logicalCluster} held by ${holderIdentity}`, async () => {
    const l = await getOrUndefined<Lease>(w.client, leases, name, 'default');
    return holder(l) === holderIdentity ? l : undefined;
  }, { context });

const refusedIn = (w: Workspace, name: string): Promise<Condition> =>
  waitFor(`the refusal in ${name}'s status`, async () => {
    const c = synced(await getOrUndefined(w.client, dbs(), name, 'default'));
    return c?.status === 'False' ? c : undefined;
  }, { context });

const workspace = async (): Promise<Workspace> => {
  const ws = await sharedKcp().createWorkspace();
  return { ws, client: clientFrom(ws.path, ws.kubeconfigYaml()) };
};

beforeAll(async () => {
  const kas = sharedKubeApiserver();
  svc = await startTenancyService(kas.kubeconfigYaml('admin'));
  const [provider, wa, wb] = await Promise.all([workspace(), workspace(), workspace()]);
  [a, b] = [wa, wb];
  const files = { configFile: tempFile('sync.yaml', JSON.stringify(config(svc.sharedNamespace))), kcpKubeconfig: tempFile('kcp.kubeconfig', provider.ws.kubeconfigYaml()), serviceKubeconfig: tempFile('service.kubeconfig', kas.kubeconfigYaml('admin')) };
  agent = startSyncAgent(files);
  const exported = await waitForExport(provider.client, svc.exportName, (e) => (e.spec?.resources ?? []).length > 0 && (e.spec?.permissionClaims ?? []).length > 0, context);
  await Promise.all([bindExport(a.client, exported, provider.ws.path, dbs()), bindExport(b.client, exported, provider.ws.path, dbs())]);
});

afterAll(async () => {
  await agent.stop(10_000);
  await svc.stop();
});

describe('rxfleet-sync-agent: related objects found by a label selector (one service namespace for every workspace)', () => {
  let victim: Db;

  it('a selector that names the copy brings each of its objects up under its rewritten name, and follows a change', async () => {
    must(await a.client.apply(dbs(), { metadata: { name: 'orders', namespace: 'default' }, spec: { engine: 'postgres', size: 1, connectionSecretName: 'orders-conn' } }, { fieldManager: 'consumer' }));
    victim = await copyOf(a, 'orders');
    must(await svc.client.create(leases, token(victim, 1, 'a-secret-1')));
    must(await svc.client.create(leases, token(victim, 2, 'a-secret-2')));
    const [t1] = await Promise.all([workspaceLease(a, 'token-t1', 'a-secret-1'), workspaceLease(a, 'token-t2', 'a-secret-2')]);
    expect(backRef(t1)).toMatchObject({ cluster: a.ws.logicalCluster, namespace: 'default', name: 'orders' });
    // A change on the service side wakes the consumer object (the selector, rendered per copy).
    must(await svc.client.patch(leases, `${victim.metadata.name ?? ''}-t1`, { spec: { holderIdentity: 'a-secret-1b' } }, { type: 'merge', namespace: svc.sharedNamespace }));
    await workspaceLease(a, 'token-t1', 'a-secret-1b');
  });

  it('a selector written to catch every tenant\'s objects delivers none of them: each is refused where it is not proven', async () => {
    // The broad selector matches A's tokens, which prove nothing for anyone (no owner reference, no
    // back-reference, the selector does not name a copy): refused for A too, nothing copied.
    const forA = await refusedIn(a, 'orders');
    expect(forA.message).toContain('related "broad" (Lease');
    expect(forA.message).toContain('match the selector without being proven to belong to this object');
    must(await b.client.apply(dbs(), { metadata: { name: 'thief', namespace: 'default' }, spec: { engine: 'postgres', size: 1, connectionSecretName: 'thief-conn' } }, { fieldManager: 'consumer' }));
    const thief = await copyOf(b, 'thief');
    const refused = await refusedIn(b, 'thief');
    expect(refused.message).toContain('related "broad" (Lease');
    expect(refused.message).not.toContain(victim.metadata.name ?? '');
    expect(refused.message).not.toContain(a.ws.logicalCluster);
    // Sentinel: B's own token arrives through the selector that names B's copy; none of A's ever did.
    must(await svc.client.create(leases, token(thief, 1, 'b-secret-1')));
    await workspaceLease(b, 'token-t1', 'b-secret-1');
    const held = (await leasesOf(b)).map(holder);
    expect(held).not.toContain('a-secret-1b');
    expect(held).not.toContain('a-secret-2');
    expect((await leasesOf(a)).map(holder)).not.toContain('b-secret-1');
    expect(await getOrUndefined<Lease>(b.client, leases, 'broad-t1', 'default')).toBeUndefined();
  });
});
