// Watched PublishedResources change one at a time (issue 28 item 4): `rxfleet-sync-agent` as its own
// OS process with `watchPublishedResources: true`, two PublishedResources ("a" and "b", two CRDs of
// two stand-in services on the shared kube-apiserver) published into one APIExport. Changing "a"
// restarts only a's controller: b's keeps running (no new start line, its sync goes on) and the probe
// server stays where it was, while a's change reaches the export. Each served one carries
// `status.resourceSchemaName` (the schema in the export, as api-syncagent writes it). Deleting "a"
// removes its entry from the export; b's entry and an entry added by hand stay. Created again with
// `synchronization.enabled: false`, "a" is published and not synced (no controller starts for it).
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClusterClient } from '../../src/client/index.js';
import type { KubeObject } from '../../src/index.js';
import type { Database } from '../../examples/sync-agent/api.js';
import { databasesIn } from '../../examples/sync-agent/api.js';
import { sharedKcp, sharedKubeApiserver } from '../support/context.js';
import type { Export } from '../support/sync-agent-kcp.js';
import { bindExport, exportsV1alpha2, getOrUndefined, schemasV1alpha1, waitForExport } from '../support/sync-agent-kcp.js';
import type { SyncAgentProcess } from '../support/sync-agent-process.js';
import { startSyncAgent, tempFile, waitFor } from '../support/sync-agent-process.js';
import type { ServiceSide } from '../support/sync-agent-service.js';
import { startService } from '../support/sync-agent-service.js';
import { installPublishedResourceCrd, publishedResourceOf, publishedResources, readyCondition } from '../support/sync-published-resources.js';
import { must, retrying } from '../support/wait.js';
import { clientFrom } from './runtime-support.js';

let a: ServiceSide;
let b: ServiceSide;
let agent: SyncAgentProcess;
let consumer: ClusterClient;
let provider: ClusterClient;
let logicalCluster: string;
const tag = randomBytes(3).toString('hex');
const prA = `a-${tag}`;
const prB = `b-${tag}`;
const context = (): string => agent.tail(60);
const entryOf = (ex: Export, group: string): { readonly name: string; readonly schema: string } | undefined => ex.spec?.resources?.find((r) => r.group === group && r.name === 'databases');
const controllerOf = (pr: string): string => `${a.agentName}.${pr}`;
const linesSince = (from: number, msg: string): readonly Record<string, unknown>[] => agent.lines().slice(from).filter((l) => l.msg === msg);
const urls = (from: number): readonly unknown[] => [...new Set(agent.lines().slice(from).flatMap((l) => (typeof l.url === 'string' ? [l.url] : [])))];

// Retried while the workspace does not serve the resource yet (a binding's resources arrive one by one).
const createDatabase = (svc: ServiceSide, name: string): Promise<Database> =>
  retrying(`create ${name} in ${svc.group}`, () => consumer.apply(databasesIn(svc.group), { metadata: { name, namespace: 'default' }, spec: { engine: 'postgres', size: 1, connectionSecretName: `${name}-db` } }, { fieldManager: 'consumer' }), { alsoRetry: ['NotFound'] });
const ready = (svc: ServiceSide, name: string): Promise<Database> =>
  waitFor(`default/${name} (${svc.group}) Ready in the consumer workspace`, async () => {
    const d = await getOrUndefined(consumer, databasesIn(svc.group), name, 'default');
    return d?.status?.phase === 'Ready' ? d : undefined;
  }, { context });

beforeAll(async () => {
  const kas = sharedKubeApiserver();
  [a, b] = await Promise.all([startService(kas.kubeconfigYaml('admin')), startService(kas.kubeconfigYaml('admin'))]);
  await installPublishedResourceCrd(a.client);
  const kcp = sharedKcp();
  const [p, ws] = await Promise.all([kcp.createWorkspace(), kcp.createWorkspace()]);
  provider = clientFrom(p.path, p.kubeconfigYaml());
  consumer = clientFrom(ws.path, ws.kubeconfigYaml());
  logicalCluster = ws.logicalCluster;
  const config = [`apiExport: ${a.exportName}`, `agentName: ${a.agentName}`, 'watchPublishedResources: true', `publishedResourceSelector: rxfleet-test=${tag}`].join('\n');
  agent = startSyncAgent({ configFile: tempFile('sync.yaml', config), kcpKubeconfig: tempFile('kcp.kubeconfig', p.kubeconfigYaml()), serviceKubeconfig: tempFile('service.kubeconfig', kas.kubeconfigYaml('admin')) });
  must(await a.client.create(publishedResources, publishedResourceOf(prA, a.group, 'Database', tag)));
  must(await a.client.create(publishedResources, publishedResourceOf(prB, b.group, 'Database', tag)));
  const ex = await waitForExport(provider, a.exportName, (e) => entryOf(e, a.group) !== undefined && entryOf(e, b.group) !== undefined, context);
  await bindExport(consumer, ex, p.path, databasesIn(a.group));
  await Promise.all([createDatabase(a, 'a1'), createDatabase(b, 'b1')]);
  await Promise.all([ready(a, 'a1'), ready(b, 'b1')]);
});

afterAll(async () => {
  await agent.stop(10_000);
  await Promise.all([a.client.delete(publishedResources, prA), a.client.delete(publishedResources, prB)]);
  await Promise.all([a.stop(), b.stop()]);
});

describe('watched PublishedResources change one at a time', () => {
  it('changing "a" restarts only its controller: b keeps running and syncing, the probe server stays, a\'s change takes effect', async () => {
    const from = agent.lines().length;
    const url = urls(0).at(-1);
    const before = entryOf(must(await provider.get(exportsV1alpha2, a.exportName)), a.group)?.schema;
    must(await a.client.patch(publishedResources, prA, { spec: { projection: { shortNames: [`a${tag}`] } } }, { type: 'merge' }));
    // The change takes effect: a new schema with the short name in the export, a's controller started again.
    const ex = await waitForExport(provider, a.exportName, (e) => entryOf(e, a.group)?.schema !== before, context);
    const ars = must(await provider.get(schemasV1alpha1, entryOf(ex, a.group)?.schema ?? '')) as KubeObject & { spec?: { names?: { shortNames?: readonly string[] } } };
    expect(ars.spec?.names?.shortNames).toEqual([`a${tag}`]);
    await waitFor('a\'s controller started again', () => (linesSince(from, 'controller running').some((l) => l.controller === controllerOf(prA)) ? true : undefined), { context });
    await createDatabase(a, 'a2');
    await createDatabase(b, 'b2');
    await Promise.all([ready(a, 'a2'), ready(b, 'b2')]);
    // b's controller never stopped or started; no controller but a's (and the publisher) did.
    const started = linesSince(from, 'controller running').map((l) => l.controller);
    expect(started).not.toContain(controllerOf(prB));
    expect(linesSince(from, 'controllers removed').flatMap((l) => l.controllers as readonly string[])).not.toContain(controllerOf(prB));
    // The same probe server: under --port 0 a new run would have listened on another port.
    expect(url).toBeDefined();
    expect(urls(from)).toEqual([url]);
  });

  it('a served PublishedResource carries status.resourceSchemaName: the schema of its entry in the export', async () => {
    const ex = must(await provider.get(exportsV1alpha2, a.exportName));
    for (const [pr, svc] of [[prA, a], [prB, b]] as const) {
      const schema = entryOf(ex, svc.group)?.schema;
      expect(schema).toBeDefined();
      await waitFor(`${pr} status.resourceSchemaName ${schema ?? ''}`, async () => ((await getOrUndefined(a.client, publishedResources, pr))?.status?.resourceSchemaName === schema ? true : undefined), { context });
    }
    expect((await readyCondition(a.client, prB, 'True', context)).reason).toBe('Served');
  });

  it('deleting "a" removes the entry the agent added for it; b\'s entry and one added by hand stay, and b keeps syncing', async () => {
    // An entry added by hand: a copy of b's schema under another resource name, without the agent's labels.
    const ex = must(await provider.get(exportsV1alpha2, a.exportName));
    const bSchema = must(await provider.get(schemasV1alpha1, entryOf(ex, b.group)?.schema ?? '')) as KubeObject & { spec: { names: Record<string, unknown> } };
    const handName = `v0hand.widgets.${b.group}`;
    must(await provider.create(schemasV1alpha1, { apiVersion: 'apis.kcp.io/v1alpha1', kind: 'APIResourceSchema', metadata: { name: handName }, spec: { ...bSchema.spec, names: { ...bSchema.spec.names, plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList', shortNames: [] } } }));
    const hand = { group: b.group, name: 'widgets', schema: handName, storage: { crd: {} } };
    await retrying('add the hand-made entry', async () => {
      const now = must(await provider.get(exportsV1alpha2, a.exportName));
      return provider.update(exportsV1alpha2, { ...now, spec: { ...now.spec, resources: [...(now.spec?.resources ?? []), hand] } });
    }, { alsoRetry: ['Conflict'] });
    must(await a.client.delete(publishedResources, prA));
    const after = await waitForExport(provider, a.exportName, (e) => entryOf(e, a.group) === undefined, context);
    expect(entryOf(after, b.group)?.schema).toBe(entryOf(ex, b.group)?.schema);
    expect(after.spec?.resources?.some((r) => r.schema === handName)).toBe(true);
    await createDatabase(b, 'b3');
    await ready(b, 'b3');
  });

  it('created again with synchronization.enabled: false, "a" is published (its entry is back) and not synced: no controller starts for it', async () => {
    const from = agent.lines().length;
    must(await a.client.create(publishedResources, publishedResourceOf(prA, a.group, 'Database', tag, { synchronization: { enabled: false } })));
    expect((await readyCondition(a.client, prA, 'True', context)).reason).toBe('Served');
    await waitForExport(provider, a.exportName, (e) => entryOf(e, a.group) !== undefined, context);
    await waitFor('the set running with "a" again', () => (linesSince(from, 'running the published resources').some((l) => (l.published as readonly string[]).includes(prA)) ? true : undefined), { context });
    await createDatabase(a, 'a3');
    // A sentinel after it: b's sync goes on, so the agent was running all along.
    await createDatabase(b, 'b4');
    await ready(b, 'b4');
    expect(linesSince(from, 'controller running').map((l) => l.controller)).not.toContain(controllerOf(prA));
    expect(must(await consumer.get(databasesIn(a.group), 'a3', { namespace: 'default' })).metadata.finalizers ?? []).toEqual([]);
    expect((await a.copiesFrom(logicalCluster)).map((c) => c.metadata.annotations?.['rxfleet.dev/source-name'])).not.toContain('a3');
  });
});
