// projection.scope the other way on the real kcp and kube-apiserver (issue 28 item 4): a
// cluster-scoped CRD published as Namespaced in kcp. Copies are cluster-scoped on the service
// cluster, named by a template that reads the workspace, namespace and name; status comes up from
// the copy; a delete removes the copy first.
import { randomBytes } from 'node:crypto';
import { dump } from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClusterClient } from '../../src/client/index.js';
import { customResourceDefinitions, resource } from '../../src/index.js';
import { E } from '../../src/fp/index.js';
import type { Database } from '../../examples/sync-agent/api.js';
import { databaseCrd } from '../../examples/sync-agent/api.js';
import { sharedKcp, sharedKubeApiserver } from '../support/context.js';
import { bindExport, getOrUndefined, waitForExport } from '../support/sync-agent-kcp.js';
import type { SyncAgentProcess } from '../support/sync-agent-process.js';
import { startSyncAgent, tempFile, waitFor } from '../support/sync-agent-process.js';
import { backRef } from '../support/sync-agent-service.js';
import { must } from '../support/wait.js';
import { clientFrom } from './runtime-support.js';

const group = `dbc${randomBytes(4).toString('hex')}.example.dev`;
const onService = resource<Database>({ group, version: 'v1', plural: 'databases', kind: 'Database', namespaced: false });
const inKcp = resource<Database>({ group, version: 'v1', plural: 'databases', kind: 'Database', namespaced: true });
let agent: SyncAgentProcess;
let service: ClusterClient;
let consumer: ClusterClient;
const context = (): string => agent.tail(60);

beforeAll(async () => {
  const kas = sharedKubeApiserver();
  service = clientFrom('service', kas.kubeconfigYaml('admin'));
  const crd = databaseCrd(group);
  must(await service.apply(customResourceDefinitions, { ...crd, spec: { ...crd.spec, scope: 'Cluster' } }, { fieldManager: 'test', force: true }));
  await waitFor(`databases.${group} served`, async () => (E.isRight(await service.list(onService, { limit: 1 })) ? true : undefined));
  const [p, ws] = await Promise.all([sharedKcp().createWorkspace(), sharedKcp().createWorkspace()]);
  const provider = clientFrom(p.path, p.kubeconfigYaml());
  consumer = clientFrom(ws.path, ws.kubeconfigYaml());
  const pr = { apiVersion: 'syncagent.kcp.io/v1alpha1', kind: 'PublishedResource', metadata: { name: 'namespaced-databases' }, spec: { resource: { apiGroup: group, kind: 'Database', versions: ['v1'] }, projection: { scope: 'Namespaced' }, naming: { name: '{{ .ClusterName }}-{{ sha3short .Object.metadata.namespace 8 }}-{{ sha3short .Object.metadata.name 8 }}' } } };
  const config = { agentName: 'namespaced-agent', apiExport: `databases.${group}`, published: [pr] };
  agent = startSyncAgent({ configFile: tempFile('sync.yaml', dump(config)), kcpKubeconfig: tempFile('kcp.kubeconfig', p.kubeconfigYaml()), serviceKubeconfig: tempFile('service.kubeconfig', kas.kubeconfigYaml('admin')) });
  const exported = await waitForExport(provider, `databases.${group}`, (e) => (e.spec?.resources ?? []).length > 0, context);
  await bindExport(consumer, exported, p.path, inKcp);
});

afterAll(async () => {
  await agent.stop(10_000);
});

describe('rxfleet-sync-agent: a cluster-scoped CRD published namespaced (projection.scope)', () => {
  it('two namespaces with one name get two cluster-scoped copies; status comes up; a delete removes the copy first', async () => {
    for (const ns of ['default', 'team']) {
      if (ns !== 'default') must(await consumer.apply(resource({ group: '', version: 'v1', plural: 'namespaces', kind: 'Namespace', namespaced: false }), { metadata: { name: ns } }, { fieldManager: 'consumer' }));
      must(await consumer.apply(inKcp, { metadata: { name: 'orders', namespace: ns }, spec: { engine: 'postgres', size: 1 } }, { fieldManager: 'consumer' }));
    }
    const copies = await waitFor('two service copies', async () => {
      const listed = must(await service.listAll(onService, { labelSelector: 'sync.rxfleet.dev/agent=namespaced-agent' })).items;
      return listed.length === 2 ? listed : undefined;
    }, { context });
    expect(copies.map((c) => [c.metadata.namespace, backRef(c).namespace, backRef(c).name]).sort()).toEqual([[undefined, 'default', 'orders'], [undefined, 'team', 'orders']]);

    const team = copies.find((c) => backRef(c).namespace === 'team');
    must(await service.patch(onService, team?.metadata.name ?? '', { status: { phase: 'Ready', endpoint: 'team' } }, { type: 'merge', subresource: 'status' }));
    const ready = await waitFor('team/orders Ready in the workspace', async () => {
      const d = await getOrUndefined<Database>(consumer, inKcp, 'orders', 'team');
      return d?.status?.phase === 'Ready' ? d : undefined;
    }, { context });
    expect(ready.status?.endpoint).toBe('team');
    expect((await getOrUndefined<Database>(consumer, inKcp, 'orders', 'default'))?.status?.phase).toBeUndefined();

    must(await consumer.delete(inKcp, 'orders', { namespace: 'team' }));
    await waitFor('team/orders and its copy gone', async () => {
      const [d, left] = await Promise.all([getOrUndefined<Database>(consumer, inKcp, 'orders', 'team'), service.listAll(onService, { labelSelector: 'sync.rxfleet.dev/agent=namespaced-agent' })]);
      return d === undefined && must(left).items.every((c) => backRef(c).namespace !== 'team') ? true : undefined;
    }, { context });
  });
});
