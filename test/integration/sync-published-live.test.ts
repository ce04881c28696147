// PublishedResources watched live on the service cluster (issue 28 item 4): `rxfleet-sync-agent` as
// its own OS process with `watchPublishedResources: true` and no published entry of its own, between
// the shared kcp and kube-apiserver. The package's CRD is applied; then a PublishedResource created
// there is published and synced, one that cannot be served is refused on its own status while the
// other keeps syncing, a change reaches the APIExport's schema, and a deleted one stops syncing until
// it is created again: all without restarting the agent.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClusterClient } from '../../src/client/index.js';
import type { KubeObject } from '../../src/index.js';
import { resource } from '../../src/index.js';
import type { Database } from '../../examples/sync-agent/api.js';
import { databasesIn } from '../../examples/sync-agent/api.js';
import { sharedKcp, sharedKubeApiserver } from '../support/context.js';
import type { Export } from '../support/sync-agent-kcp.js';
import { bindExport, getOrUndefined, schemasV1alpha1, waitForExport } from '../support/sync-agent-kcp.js';
import type { SyncAgentProcess } from '../support/sync-agent-process.js';
import { startSyncAgent, tempFile, waitFor } from '../support/sync-agent-process.js';
import type { ServiceSide } from '../support/sync-agent-service.js';
import { startService } from '../support/sync-agent-service.js';
import type { PublishedResourceObject } from '../support/sync-published-resources.js';
import { installPublishedResourceCrd, publishedResourceOf, publishedResources, readyCondition as readyOn } from '../support/sync-published-resources.js';
import { must } from '../support/wait.js';
import { clientFrom } from './runtime-support.js';

let svc: ServiceSide;
let agent: SyncAgentProcess;
let consumer: ClusterClient;
let provider: ClusterClient;
let providerPath: string;
let logicalCluster: string;
const tag = randomBytes(3).toString('hex');
const good = `dbs-${tag}`;
const bad = `nothing-${tag}`;
const context = (): string => agent.tail(50);
const kcpDatabases = (): ReturnType<typeof databasesIn> => databasesIn(svc.group);
const schemaOf = (ex: Export): string | undefined => ex.spec?.resources?.find((r) => r.name === 'databases')?.schema;

const publishedResource = (name: string, kind: string): PublishedResourceObject => publishedResourceOf(name, svc.group, kind, tag);
const readyCondition = (name: string, status: string): ReturnType<typeof readyOn> => readyOn(svc.client, name, status, context);

const createDatabase = async (name: string, metadata: { labels?: Record<string, string>; annotations?: Record<string, string> } = {}): Promise<void> => {
  must(await consumer.apply(kcpDatabases(), { metadata: { name, namespace: 'default', ...metadata }, spec: { engine: 'postgres', size: 1, connectionSecretName: `${name}-db` } }, { fieldManager: 'consumer' }));
};
const ready = (name: string): Promise<Database> =>
  waitFor(`default/${name} Ready in the consumer workspace`, async () => {
    const d = await getOrUndefined(consumer, kcpDatabases(), name, 'default');
    return d?.status?.phase === 'Ready' ? d : undefined;
  }, { context });

/**
 * The agent's `rxfleet_requests_total` line of its own requests (not a controller's) with `verb`,
 * once there and once its `rxfleet_cluster_requests_total` has `cluster` (its only cluster with
 * that verb: the agent's own clients read kcp once, at preflight, and write only the service).
 */
const agentRequest = (cluster: string, verb: string): Promise<string> =>
  waitFor(`the agent's own ${verb} requests to ${cluster} in /metrics`, async () => {
    const url = agent.lines().findLast((l) => typeof l.url === 'string')?.url;
    if (typeof url !== 'string') return undefined;
    const own = (await (await fetch(`${url}/metrics`)).text()).split('\n').filter((l) => l.includes('controller="rxfleet-sync-agent"'));
    if (!own.some((l) => l.startsWith('rxfleet_cluster_requests_total{') && l.includes(`cluster="${cluster}"`))) return undefined;
    return own.find((l) => l.startsWith('rxfleet_requests_total{') && l.includes(`verb="${verb}"`));
  }, { context, timeoutMs: 20_000 });

/** The `published` list of the agent's last "running the published resources" line, once it has logged one after `from` lines. */
const runningSince = (from: number): (readonly string[])[] =>
  agent
    .lines()
    .slice(from)
    .filter((l) => l.msg === 'running the published resources')
    .map((l) => l.published as readonly string[]);

beforeAll(async () => {
  const kas = sharedKubeApiserver();
  svc = await startService(kas.kubeconfigYaml('admin'));
  // The package's CRD, applied as a user would (another test may have applied it already).
  await installPublishedResourceCrd(svc.client);
  const kcp = sharedKcp();
  const [p, ws] = await Promise.all([kcp.createWorkspace(), kcp.createWorkspace()]);
  provider = clientFrom(p.path, p.kubeconfigYaml());
  providerPath = p.path;
  consumer = clientFrom(ws.path, ws.kubeconfigYaml());
  logicalCluster = ws.logicalCluster;
  const config = [`apiExport: ${svc.exportName}`, `agentName: ${svc.agentName}`, 'watchPublishedResources: true', `publishedResourceSelector: rxfleet-test=${tag}`].join('\n');
  agent = startSyncAgent({ configFile: tempFile('sync.yaml', config), kcpKubeconfig: tempFile('kcp.kubeconfig', p.kubeconfigYaml()), serviceKubeconfig: tempFile('service.kubeconfig', kas.kubeconfigYaml('admin')) });
  await waitFor('the agent running with no published resource', () => (runningSince(0).length > 0 ? true : undefined), { context });
});

afterAll(async () => {
  await agent.stop(10_000);
  await Promise.all([svc.client.delete(publishedResources, good), svc.client.delete(publishedResources, bad)]);
  await svc.stop();
});

describe('rxfleet-sync-agent with watchPublishedResources: PublishedResources on the service cluster, live', () => {
  it('a PublishedResource created while the agent runs is published and synced, and marked Ready', async () => {
    must(await svc.client.create(publishedResources, publishedResource(good, 'Database')));
    const ex = await waitForExport(provider, svc.exportName, (e) => schemaOf(e) !== undefined, context);
    await bindExport(consumer, ex, providerPath, kcpDatabases());
    await createDatabase('first', { labels: { team: 'payments' }, annotations: { 'example.dev/owner': 'ops' } });
    await ready('first');
    expect((await readyCondition(good, 'True')).reason).toBe('Served');
    // The agent's own status patch is a request like any other: counted on its /metrics.
    expect(await agentRequest('service', 'patch')).toContain('result="2xx"');
    // Its reads too: the watch of the PublishedResources.
    expect(await agentRequest('service', 'watch')).toContain('result="2xx"');
    // api-syncagent's default: the consumer's labels and annotations go down; kcp's do not.
    const copy = (await svc.copiesFrom(logicalCluster)).find((c) => c.metadata.annotations?.['rxfleet.dev/source-name'] === 'first');
    expect(copy?.metadata.labels?.team).toBe('payments');
    expect(copy?.metadata.annotations?.['example.dev/owner']).toBe('ops');
    expect(copy?.metadata.annotations?.['kcp.io/cluster']).toBeUndefined();
  });

  it('one that fails preflight is refused on its own status; the other keeps syncing', async () => {
    must(await svc.client.create(publishedResources, publishedResource(bad, 'Nothing')));
    const refused = await readyCondition(bad, 'False');
    expect(refused.reason).toBe('Refused');
    expect(refused.message).toContain(`PublishedResource "${bad}" on the service cluster`);
    expect(refused.message).toContain(`Nothing`);
    await createDatabase('second');
    await ready('second');
    expect((await readyCondition(good, 'True')).reason).toBe('Served');
  });

  it('a change of its spec reaches the APIExport: a new schema with the projected short name', async () => {
    const before = schemaOf(must(await provider.get<Export>(resource<Export>({ group: 'apis.kcp.io', version: 'v1alpha2', plural: 'apiexports', kind: 'APIExport', namespaced: false }), svc.exportName)));
    must(await svc.client.patch(publishedResources, good, { spec: { projection: { shortNames: [`db${tag}`] } } }, { type: 'merge' }));
    const ex = await waitForExport(provider, svc.exportName, (e) => schemaOf(e) !== undefined && schemaOf(e) !== before, context);
    const ars = must(await provider.get(schemasV1alpha1, schemaOf(ex) ?? '')) as KubeObject & { spec?: { names?: { shortNames?: readonly string[] } } };
    expect(ars.spec?.names?.shortNames).toEqual([`db${tag}`]);
    await createDatabase('third');
    await ready('third');
  });

  it('deleted, its sync stops (the agent runs without it); created again, what was made meanwhile syncs', async () => {
    const from = agent.lines().length;
    must(await svc.client.delete(publishedResources, good));
    await waitFor('the agent running without it', () => (runningSince(from).some((names) => !names.includes(good)) ? true : undefined), { context });
    await createDatabase('meanwhile');
    const meanwhile = must(await consumer.get(kcpDatabases(), 'meanwhile', { namespace: 'default' }));
    expect(meanwhile.metadata.finalizers ?? []).toEqual([]);
    must(await svc.client.create(publishedResources, publishedResource(good, 'Database')));
    await ready('meanwhile');
  });
});
