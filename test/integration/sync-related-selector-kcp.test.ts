// Related objects found by a label selector in the consumer's workspace (`origin: kcp`), and
// `matchExpressions` in related selectors of both origins (issue 28 item 4), on the real kcp and
// kube-apiserver with `rxfleet-sync-agent` as its own process, every workspace's copies in ONE
// service namespace. Two workspaces use the same object and Lease names; one forges a back-reference
// to the other's object. Every check reads the data that arrived.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClusterClient } from '../../src/client/index.js';
import type { ResourceDescriptor } from '../../src/index.js';
import type { Lease } from '../../src/resources/index.js';
import { leases } from '../../src/resources/index.js';
import { sourceLabel } from '../../src/sinks/index.js';
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
const derived = /^[0-9a-f]{20}-[0-9a-f]{8}-[0-9a-f]{8}$/;

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
        // Down: the consumer's Leases labelled with the object's name, gold tier only.
        { identifier: 'cfg', origin: 'kcp', group: 'coordination.k8s.io', version: 'v1', resource: 'leases', object: { selector: { matchLabels: { 'app.example.dev/db': '{{ .RemoteObject.metadata.name }}' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['gold'] }], rewrite: { template: '{{ .Value }}' } } } },
        // Up: the operator's Leases labelled with the copy's name, except internal ones.
        { identifier: 'tokens', origin: 'service', group: 'coordination.k8s.io', version: 'v1', resource: 'leases', object: { selector: { matchLabels: { 'svc.example.dev/db': '{{ .LocalObject.metadata.name }}' }, matchExpressions: [{ key: 'svc.example.dev/kind', operator: 'NotIn', values: ['internal'] }], rewrite: { regex: { pattern: '^.*-(t[0-9]+)$', replacement: 'token-$1' } } } } },
      ],
    },
  ],
});

async function copyOf(w: Workspace, name: string): Promise<Db> {
  return waitFor(`the copy of ${w.ws.logicalCluster}/default/${name}`, async () => (await svc.copiesFrom(w.ws.logicalCluster)).find((c) => backRef(c).name === name) as Db | undefined, { context });
}

const lease = (name: string, labels: Readonly<Record<string, string>>, holderIdentity: string, extra: Partial<Lease['metadata']> = {}): Lease => ({
  apiVersion: 'coordination.k8s.io/v1',
  kind: 'Lease',
  metadata: { name, namespace: 'default', labels, ...extra },
  spec: { holderIdentity },
});
const gold = (db: string): Record<string, string> => ({ 'app.example.dev/db': db, tier: 'gold' });

/** The agent's Lease copies in the shared service namespace whose back-reference names `w`'s `name`. */
async function serviceCopies(w: Workspace, name: string): Promise<readonly Lease[]> {
  const all = must(await svc.client.list(leases, { namespace: svc.sharedNamespace })).items;
  return all.filter((l) => l.metadata.labels?.['sync.rxfleet.dev/related'] === 'cfg' && l.metadata.annotations?.['rxfleet.dev/source-cluster'] !== undefined && backRef(l).cluster === w.ws.logicalCluster && backRef(l).name === name);
}

const copiesHeld = (w: Workspace, name: string, holders: readonly string[]): Promise<readonly Lease[]> =>
  waitFor(`${w.ws.logicalCluster}/default/${name}'s service-side Leases held by ${holders.join(', ')}`, async () => {
    const got = await serviceCopies(w, name);
    return JSON.stringify(got.map(holder).sort()) === JSON.stringify([...holders].sort()) ? got : undefined;
  }, { context });

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

describe('rxfleet-sync-agent: related objects selected in the workspace (origin kcp), and matchExpressions', () => {
  let victim: Db;
  let aCopies: readonly Lease[];

  it('the consumer\'s labelled objects meeting matchExpressions go down under names the agent derives, and follow a label change', async () => {
    must(await a.client.create(leases, lease('cfg-1', gold('orders'), 'a-gold')));
    must(await a.client.create(leases, lease('cfg-2', { 'app.example.dev/db': 'orders', tier: 'bronze' }, 'a-bronze')));
    must(await a.client.create(leases, lease('cfg-3', gold('billing'), 'a-billing')));
    must(await a.client.apply(dbs(), { metadata: { name: 'orders', namespace: 'default' }, spec: { engine: 'postgres', size: 1, connectionSecretName: 'orders-conn' } }, { fieldManager: 'consumer' }));
    victim = await copyOf(a, 'orders');
    const [only] = await copiesHeld(a, 'orders', ['a-gold']);
    expect(only?.metadata.name).toMatch(derived);
    // The service's operator finds them by its copy's own source label.
    expect(only?.metadata.labels?.[sourceLabel]).toBe(victim.metadata.labels?.[sourceLabel]);
    // cfg-2 now meets the expression (a workspace change wakes the consumer object): it goes down too.
    must(await a.client.patch(leases, 'cfg-2', { metadata: { labels: { tier: 'gold' } } }, { type: 'merge', namespace: 'default' }));
    aCopies = await copiesHeld(a, 'orders', ['a-gold', 'a-bronze']);
    expect(aCopies.every((l) => derived.test(l.metadata.name ?? ''))).toBe(true);
  });

  it('another workspace with the same names gets copies of its own, and a forged back-reference to the other tenant is refused', async () => {
    must(await b.client.create(leases, lease('cfg-1', gold('orders'), 'b-gold')));
    // B's Lease claims to be A's object's (the back-reference of A's copy, verbatim).
    const forged = { labels: { ...gold('orders'), [sourceLabel]: victim.metadata.labels?.[sourceLabel] ?? '' }, annotations: Object.fromEntries(Object.entries(victim.metadata.annotations ?? {}).filter(([k]) => k.startsWith('rxfleet.dev/source'))) };
    must(await b.client.create(leases, lease('cfg-9', forged.labels, 'b-forged', { annotations: forged.annotations })));
    must(await b.client.apply(dbs(), { metadata: { name: 'orders', namespace: 'default' }, spec: { engine: 'postgres', size: 1, connectionSecretName: 'orders-conn' } }, { fieldManager: 'consumer' }));
    const [bGold] = await copiesHeld(b, 'orders', ['b-gold']);
    expect(aCopies.map((l) => l.metadata.name)).not.toContain(bGold?.metadata.name);
    const refused = await waitFor('the refusal in B\'s status', async () => {
      const c = synced(await getOrUndefined(b.client, dbs(), 'orders', 'default'));
      return c?.status === 'False' ? c : undefined;
    }, { context });
    expect(refused.message).toContain('related "cfg" (Lease');
    expect(refused.message).not.toContain(a.ws.logicalCluster);
    // Sentinel: a later Lease of B arrives; the forged one never went anywhere, and A's copies are A's.
    must(await b.client.create(leases, lease('cfg-4', gold('orders'), 'b-gold-2')));
    await copiesHeld(b, 'orders', ['b-gold', 'b-gold-2']);
    const all = must(await svc.client.list(leases, { namespace: svc.sharedNamespace })).items;
    expect(all.map(holder)).not.toContain('b-forged');
    expect((await serviceCopies(a, 'orders')).map(holder).sort()).toEqual(['a-bronze', 'a-gold']);
  });

  it('a service-origin selector with matchExpressions brings up only the objects that meet them', async () => {
    const copy = victim.metadata.name ?? '';
    const token = (n: number, kind: string, holderIdentity: string): Lease => {
      const l = lease(`${copy}-t${n}`, { 'svc.example.dev/db': copy, 'svc.example.dev/kind': kind }, holderIdentity);
      return { ...l, metadata: { ...l.metadata, namespace: svc.sharedNamespace } };
    };
    must(await svc.client.create(leases, token(1, 'token', 'tok-1')));
    must(await svc.client.create(leases, token(2, 'internal', 'tok-internal')));
    await workspaceLease(a, 'token-t1', 'tok-1');
    // Sentinel: a later token arrives; the internal one never did.
    must(await svc.client.create(leases, token(3, 'token', 'tok-3')));
    await workspaceLease(a, 'token-t3', 'tok-3');
    expect(await getOrUndefined<Lease>(a.client, leases, 'token-t2', 'default')).toBeUndefined();
  });

  it('deleting the consumer object deletes its service-side copies and leaves the workspace\'s Leases', async () => {
    must(await a.client.delete(dbs(), 'orders', { namespace: 'default' }));
    await waitFor('A\'s service-side Lease copies gone', async () => ((await serviceCopies(a, 'orders')).length === 0 ? true : undefined), { context });
    expect(holder(await getOrUndefined<Lease>(a.client, leases, 'cfg-1', 'default'))).toBe('a-gold');
    expect((await serviceCopies(b, 'orders')).map(holder).sort()).toEqual(['b-gold', 'b-gold-2']);
  });
});
