// The sync agent end to end: `rxfleet-sync-agent` as its own OS process, configured by the example's
// config.yaml, between the shared kcp (a provider workspace, consumer workspaces A and B) and the
// shared kube-apiserver as the service cluster, where the example's stand-in operator marks each
// Database Ready after a moment and writes its connection Secret. Every scenario of issue 17's
// "What it must show", in order, on the same agent (restarted once by kill -9).
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClusterClient } from '../../src/client/index.js';
import { E } from '../../src/fp/index.js';
import type { Namespace, Secret } from '../../src/index.js';
import { namespaces, secrets } from '../../src/index.js';
import type { Database } from '../../examples/sync-agent/api.js';
import { databasesIn, installDatabaseCrd } from '../../examples/sync-agent/api.js';
import { sharedKcp, sharedKubeApiserver } from '../support/context.js';
import type { KcpWorkspace } from '../support/kcp.js';
import type { Export } from '../support/sync-agent-kcp.js';
import { bindExport, bindingsV1alpha2, BINDING, getOrUndefined, schemasV1alpha1, unbindExport, waitForExport } from '../support/sync-agent-kcp.js';
import type { SyncAgentProcess } from '../support/sync-agent-process.js';
import { startSyncAgent, tempFile, waitFor } from '../support/sync-agent-process.js';
import type { ServiceSide } from '../support/sync-agent-service.js';
import { backRef, startService } from '../support/sync-agent-service.js';
import { badConfigRun, deletionOrder, restartScenario } from '../support/sync-agent-scenarios.js';
import { must } from '../support/wait.js';
import { clientFrom } from './runtime-support.js';

const sha3short = (s: string): string => createHash('sha3-256').update(s).digest('hex').slice(0, 20);
const decoded = (s: Secret | undefined, k: string): string => Buffer.from(s?.data?.[k] ?? '', 'base64').toString('utf8');

let svc: ServiceSide;
let agent: SyncAgentProcess;
let files: { configFile: string; kcpKubeconfig: string; serviceKubeconfig: string };
let provider: { ws: KcpWorkspace; client: ClusterClient };
let a: { ws: KcpWorkspace; client: ClusterClient };
let b: { ws: KcpWorkspace; client: ClusterClient };
let exported: Export;
const context = (): string => agent.tail(60);
const kcpDatabases = (): ReturnType<typeof databasesIn> => databasesIn(svc.group);
const schemaOf = (ex: Export): string | undefined => ex.spec?.resources?.find((r) => r.name === 'databases')?.schema;
/** Where the agent puts a consumer's object on the service cluster (api-syncagent's default naming). */
const copyName = (ws: KcpWorkspace, ns: string, name: string): { namespace: string; name: string } => ({ namespace: ws.logicalCluster, name: `${sha3short(ns)}-${sha3short(name)}` });
const copyOf = (ws: KcpWorkspace, name: string): Promise<Database | undefined> => {
  const at = copyName(ws, 'default', name);
  return getOrUndefined(svc.client, svc.databases, at.name, at.namespace);
};
const ready = (c: ClusterClient, name: string): Promise<Database> =>
  waitFor(`${c.cluster}/default/${name} Ready`, async () => {
    const d = await getOrUndefined(c, kcpDatabases(), name, 'default');
    return d?.status?.phase === 'Ready' ? d : undefined;
  }, { context });
const spec = (engine: string, size: number, secret: string): Database['spec'] => ({ engine, size, connectionSecretName: secret });

beforeAll(async () => {
  const kcp = sharedKcp();
  const kas = sharedKubeApiserver();
  svc = await startService(kas.kubeconfigYaml('admin'));
  const [p, wa, wb] = await Promise.all([kcp.createWorkspace(), kcp.createWorkspace(), kcp.createWorkspace()]);
  provider = { ws: p, client: clientFrom(p.path, p.kubeconfigYaml()) };
  a = { ws: wa, client: clientFrom(wa.path, wa.kubeconfigYaml()) };
  b = { ws: wb, client: clientFrom(wb.path, wb.kubeconfigYaml()) };
  files = { configFile: tempFile('sync.yaml', svc.configYaml), kcpKubeconfig: tempFile('kcp.kubeconfig', p.kubeconfigYaml()), serviceKubeconfig: tempFile('service.kubeconfig', kas.kubeconfigYaml('admin')) };
  agent = startSyncAgent(files);
  exported = await waitForExport(provider.client, svc.exportName, (e) => schemaOf(e) !== undefined && (e.spec?.permissionClaims ?? []).some((c) => c.resource === 'secrets'), context);
  await Promise.all([bindExport(a.client, exported, p.path, kcpDatabases()), bindExport(b.client, exported, p.path, kcpDatabases())]);
});

afterAll(async () => {
  await agent.stop(10_000);
  await svc.stop();
});

describe('rxfleet-sync-agent: a service cluster published into kcp by configuration', () => {
  it('publishes the CRD as an APIResourceSchema in the APIExport, claiming secrets', async () => {
    const schema = schemaOf(exported) ?? '';
    expect(schema).toMatch(new RegExp(`^v[0-9a-z]+\\.databases\\.${svc.group.replaceAll('.', '\\.')}$`));
    const ars = await getOrUndefined(provider.client, schemasV1alpha1, schema);
    expect(ars?.metadata.labels?.['sync.rxfleet.dev/agent']).toBe(svc.agentName);
    expect(exported.metadata.annotations?.['sync.rxfleet.dev/agent']).toBe(svc.agentName);
  });

  it('A creates an instance: it appears on the service cluster, Ready comes back, the connection Secret appears in A', async () => {
    const labels = { 'app.kubernetes.io/name': 'orders', team: 'payments' };
    must(await a.client.apply(kcpDatabases(), { metadata: { name: 'orders', namespace: 'default', labels }, spec: spec('postgres', 1, 'orders-db') }, { fieldManager: 'consumer' }));
    const at = copyName(a.ws, 'default', 'orders');
    const copy = await waitFor('the copy of A/default/orders on the service cluster', () => copyOf(a.ws, 'orders'), { context });
    const consumer = await ready(a.client, 'orders');
    // The connection Secret's name on the service side is the agent's (docs/sync.md, Tenancy): a hash
    // of A's object, then of the related identifier; never the name the consumer wrote.
    const derived = `${sha3short(JSON.stringify([a.ws.logicalCluster, `databases.${svc.group}`, 'default', 'orders']))}-${sha3short('connection').slice(0, 8)}`;
    expect(copy.spec).toEqual(spec('postgres', 1, derived));
    // Metadata goes down as configured: the app.kubernetes.io/* label, not the other one.
    expect(copy.metadata.labels?.['app.kubernetes.io/name']).toBe('orders');
    expect(copy.metadata.labels?.team).toBeUndefined();
    expect(copy.metadata.labels).toMatchObject({ 'sync.rxfleet.dev/agent': svc.agentName, 'sync.rxfleet.dev/published': 'databases' });
    expect(backRef(copy)).toMatchObject({ cluster: a.ws.logicalCluster, namespace: 'default', name: 'orders', uid: consumer.metadata.uid });
    const ns = must(await svc.client.get<Namespace>(namespaces, at.namespace));
    expect(ns.metadata.annotations?.['sync.rxfleet.dev/cluster']).toBe(a.ws.logicalCluster);
    expect(ns.metadata.labels?.['sync.rxfleet.dev/agent']).toBe(svc.agentName);
    // The whole status, as the operator wrote it on the service side.
    expect(consumer.status).toMatchObject({ phase: 'Ready', endpoint: `${at.name}.${at.namespace}.svc:5432`, observedSize: 1 });
    expect(consumer.metadata.finalizers).toContain(`sync.rxfleet.dev/${svc.agentName}`);
    const secret = await waitFor('the connection Secret in A', () => getOrUndefined<Secret>(a.client, secrets, 'orders-db', 'default'), { context });
    const original = must(await svc.client.get<Secret>(secrets, derived, { namespace: at.namespace }));
    expect(secret.data).toEqual(original.data);
    expect(secret.metadata.labels).toMatchObject({ 'sync.rxfleet.dev/agent': svc.agentName, 'sync.rxfleet.dev/related': 'connection' });
    expect(backRef(secret)).toMatchObject({ cluster: a.ws.logicalCluster, namespace: 'default', name: 'orders', uid: consumer.metadata.uid });
    expect(decoded(secret, 'endpoint')).toBe(`${at.name}.${at.namespace}.svc:5432`);
  });

  it('a spec update in A reaches the service cluster; a status change there reaches A; service-side spec drift is undone', async () => {
    must(await a.client.patch(kcpDatabases(), 'orders', { spec: { size: 3 } }, { type: 'merge', namespace: 'default' }));
    await waitFor('size 3 on the copy', async () => ((await copyOf(a.ws, 'orders'))?.spec.size === 3 ? true : undefined), { context });
    await waitFor('observedSize 3 back in A', async () => ((await getOrUndefined(a.client, kcpDatabases(), 'orders', 'default'))?.status?.observedSize === 3 ? true : undefined), { context });
    const at = copyName(a.ws, 'default', 'orders');
    must(await svc.client.patch(svc.databases, at.name, { status: { message: 'maintenance on sunday' } }, { type: 'merge', namespace: at.namespace, subresource: 'status' }));
    await waitFor('the service-side status message in A', async () =>
      (await getOrUndefined(a.client, kcpDatabases(), 'orders', 'default'))?.status?.message === 'maintenance on sunday' ? true : undefined, { context });
    must(await svc.client.patch(svc.databases, at.name, { spec: { size: 99 } }, { type: 'merge', namespace: at.namespace }));
    await waitFor('the drifted copy put back to size 3', async () => ((await copyOf(a.ws, 'orders'))?.spec.size === 3 ? true : undefined), { context });
  });

  it('two workspaces create the same namespace/name and neither sees the other\'s object, status or Secret', async () => {
    must(await b.client.apply(kcpDatabases(), { metadata: { name: 'orders', namespace: 'default' }, spec: spec('mysql', 2, 'orders-db') }, { fieldManager: 'consumer' }));
    const inB = await ready(b.client, 'orders');
    const atA = copyName(a.ws, 'default', 'orders');
    const atB = copyName(b.ws, 'default', 'orders');
    expect(atB.namespace).not.toBe(atA.namespace);
    expect(inB.status?.endpoint).toBe(`${atB.name}.${atB.namespace}.svc:3306`);
    const inA = must(await a.client.get(kcpDatabases(), 'orders', { namespace: 'default' }));
    expect(inA.spec.engine).toBe('postgres');
    expect(inA.status?.endpoint).toBe(`${atA.name}.${atA.namespace}.svc:5432`);
    expect(inB.status?.message).toBeUndefined();
    const secretB = await waitFor('the connection Secret in B', async () => {
      const s = await getOrUndefined<Secret>(b.client, secrets, 'orders-db', 'default');
      return decoded(s, 'endpoint').includes(atB.namespace) ? s : undefined;
    }, { context });
    const secretA = must(await a.client.get<Secret>(secrets, 'orders-db', { namespace: 'default' }));
    expect(decoded(secretA, 'endpoint')).toBe(`${atA.name}.${atA.namespace}.svc:5432`);
    expect(decoded(secretB, 'password')).not.toBe(decoded(secretA, 'password'));
    const [copiesA, copiesB] = await Promise.all([svc.copiesFrom(a.ws.logicalCluster), svc.copiesFrom(b.ws.logicalCluster)]);
    expect(copiesA.map((d) => `${d.metadata.namespace ?? ''}/${d.metadata.name ?? ''}`)).toEqual([`${atA.namespace}/${atA.name}`]);
    expect(copiesB.map((d) => `${d.metadata.namespace ?? ''}/${d.metadata.name ?? ''}`)).toEqual([`${atB.namespace}/${atB.name}`]);
    expect(backRef(copiesB[0] ?? inB)).toMatchObject({ cluster: b.ws.logicalCluster, uid: inB.metadata.uid });
  });

  it('deleting in A removes the service-side object first, and A\'s object only after that', async () => {
    const seen = await deletionOrder({ consumer: a.client, resource: kcpDatabases(), copy: () => copyOf(a.ws, 'temp'), context, create: spec('postgres', 1, 'temp-db') });
    // The operator holds the deleted copy a moment (its own finalizer): A's object waited for it.
    expect(seen.bothTerminating).toBe(true);
    expect(seen.consumerGoneBeforeCopy).toBe(false);
    await waitFor('the related Secret temp-db gone from A', async () => ((await getOrUndefined(a.client, secrets, 'temp-db', 'default')) === undefined ? true : undefined), { context });
    expect((await svc.copiesFrom(a.ws.logicalCluster)).map((d) => backRef(d).name)).toEqual(['orders']);
  });

  it('kill -9 mid-sync and a restart leave nothing lost, duplicated or orphaned', async () => {
    const result = await restartScenario({
      consumer: a.client,
      resource: kcpDatabases(),
      service: svc,
      cluster: a.ws.logicalCluster,
      agent: () => agent,
      restart: () => (agent = startSyncAgent(files)),
      context,
    });
    expect(result.killedWith).toBe('SIGKILL');
    expect(result.copiedAtKill).toBeGreaterThanOrEqual(1);
    // Every live object has exactly one copy, pointing back at it by uid; nothing else points at A.
    expect(result.copies).toEqual(result.live);
    expect(result.live).toEqual(['k1', 'k3', 'k4', 'k5', 'orders']);
    expect(result.k1Size).toBe(7);
    // Nor is anything left in the workspace: k0's connection Secret (k0 forced away while the agent was down) goes too.
    expect(result.relatedInConsumer).toEqual(result.live);
  });

  it('unbinding B stops its sync: kcp deletes B\'s objects, the agent deletes their service copies first, A is untouched', async () => {
    const atB = copyName(b.ws, 'default', 'orders');
    await unbindExport(b.client);
    await waitFor('the binding in B gone', async () => ((await getOrUndefined(b.client, bindingsV1alpha2, BINDING)) === undefined ? true : undefined), { context, timeoutMs: 90_000 }).catch(
      async (err: unknown) => {
        // Say why kcp could not finish the unbinding (its conditions, the objects' finalizers).
        const binding = (await getOrUndefined(b.client, bindingsV1alpha2, BINDING)) as { status?: { conditions?: { type: string; status: string; message?: string }[] } } | undefined;
        const stuck = await b.client.list(kcpDatabases(), { namespace: 'default' });
        const held = E.isRight(stuck) ? stuck.right.items.map((d) => `${d.metadata.name ?? ''} finalizers=${JSON.stringify(d.metadata.finalizers)}`) : [];
        const failing = (binding?.status?.conditions ?? []).filter((c) => c.status === 'False').map((c) => `${c.type}: ${c.message ?? ''}`);
        throw new Error(`${err instanceof Error ? err.message : String(err)}\nB's binding: ${failing.join('; ')}\nB's objects: ${held.join('; ')}`);
      },
    );
    expect(await getOrUndefined(svc.client, svc.databases, atB.name, atB.namespace)).toBeUndefined();
    expect(await svc.copiesFrom(b.ws.logicalCluster)).toEqual([]);
    expect(await getOrUndefined(b.client, secrets, 'orders-db', 'default')).toBeUndefined();
    // B no longer serves the API; its workspace left the agent's fleet.
    await waitFor(`B disengaged (${b.ws.logicalCluster})`, () => (agent.lines().some((l) => l.msg === 'cluster disengaged' && l.cluster === b.ws.logicalCluster) ? true : undefined), { context });
    const listed = await b.client.list(kcpDatabases(), { namespace: 'default' });
    expect(E.isLeft(listed) ? listed.left.type : 'served').toBe('NotFound');
    expect((await ready(a.client, 'orders')).status?.endpoint).toContain(a.ws.logicalCluster);
    expect(await copyOf(a.ws, 'orders')).toBeDefined();
  });

  it('a CRD version change on the service cluster rolls out to a new APIResourceSchema', async () => {
    const before = schemaOf(exported) ?? '';
    await installDatabaseCrd(svc.client, svc.group, { withV2: true });
    const after = await waitForExport(provider.client, svc.exportName, (e) => schemaOf(e) !== undefined && schemaOf(e) !== before, context);
    const name = schemaOf(after) ?? '';
    const ars = (await getOrUndefined(provider.client, schemasV1alpha1, name)) as { spec?: { versions?: { name: string; storage?: boolean }[] } } | undefined;
    expect(ars?.spec?.versions?.map((v) => [v.name, v.storage === true])).toEqual([['v1', true], ['v2', false]]);
    // Schemas are immutable: the old one is still there, only the export moved on.
    expect(await getOrUndefined(provider.client, schemasV1alpha1, before)).toBeDefined();
    await waitFor('v2 served in A', async () => (E.isRight(await a.client.list(databasesIn(svc.group, 'v2'), { namespace: 'default', limit: 1 })) ? true : undefined), { context, timeoutMs: 90_000 });
    must(await a.client.patch(kcpDatabases(), 'orders', { spec: { size: 5 } }, { type: 'merge', namespace: 'default' }));
    await waitFor('size 5 on the copy after the change', async () => ((await copyOf(a.ws, 'orders'))?.spec.size === 5 ? true : undefined), { context });
  });

  it('a bad configuration stops `rxfleet-sync-agent` at start with exit code 2, naming the resource, cluster and cause', async () => {
    const run = await badConfigRun(svc.configYaml.replace('kind: Database', 'kind: Nope'), files);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('Nope');
    expect(run.stderr).toContain('databases');
    expect(run.stderr).toContain('on the service cluster');
  });

  it('reports per published resource and per workspace in metrics and logs', async () => {
    const url = agent.lines().find((l) => typeof l.url === 'string')?.url;
    expect(typeof url).toBe('string');
    const metrics = await (await fetch(`${String(url)}/metrics`)).text();
    const perWorkspace = (name: string): string[] => metrics.split('\n').filter((l) => l.startsWith(`${name}{`) && l.includes(`cluster="${a.ws.logicalCluster}"`));
    // The sync controller's own series (controller label: the published resource), per workspace.
    expect(perWorkspace('rxfleet_reconcile_total').some((l) => /controller="[^"]*databases"/.test(l))).toBe(true);
    expect(perWorkspace('rxfleet_cluster_requests_total').some((l) => l.includes('result="2xx"'))).toBe(true);
    // Its writes by controller, every workspace together.
    expect(metrics.split('\n').some((l) => l.startsWith('rxfleet_write_requests_total{') && /controller="[^"]*databases"/.test(l) && l.includes('verb="patch"'))).toBe(true);
    expect(agent.lines().some((l) => l.msg === 'cluster engaged' && l.cluster === a.ws.logicalCluster)).toBe(true);
    // The restarted agent's orphan sweep said which published resource it swept for.
    expect(agent.lines().some((l) => l.published === 'databases' && l.cluster === 'service')).toBe(true);
  });

  it('SIGTERM stops the agent cleanly', async () => {
    expect(await agent.stop()).toBe(0);
    expect(agent.output()).not.toMatch(/"token"|Bearer [A-Za-z0-9]/);
  });
});
