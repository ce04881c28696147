// projection.scope on the real kcp and kube-apiserver, `rxfleet-sync-agent` as its own process (issue
// 28 item 4): the example's namespaced Database CRD, published by a PublishedResource as a
// cluster-scoped resource in kcp. A consumer's cluster-scoped object lands in the workspace's
// namespace on the service cluster (api-syncagent's default naming, the object's namespace read as
// ''), its status comes back, and a delete removes the copy first.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resource } from '../../src/index.js';
import { apiResourceSchemas } from '../../src/providers/kcp/index.js';
import type { Database } from '../../examples/sync-agent/api.js';
import { getOrUndefined, waitForExport } from '../support/sync-agent-kcp.js';
import { waitFor } from '../support/sync-agent-process.js';
import { backRef } from '../support/sync-agent-service.js';
import { must } from '../support/wait.js';
import type { PublishedSetup } from './sync-published-resource-support.js';
import { startPublishedSetup } from './sync-published-resource-support.js';

let s: PublishedSetup;
// The Database resource as consumers see it: cluster-scoped.
const clusterDbsIn = (group: string): ReturnType<typeof resource<Database>> => resource<Database>({ group, version: 'v1', plural: 'databases', kind: 'Database', namespaced: false });
const clusterDbs = (): ReturnType<typeof resource<Database>> => clusterDbsIn(s.svc.group);

beforeAll(async () => {
  const pr = (group: string): unknown => ({ apiVersion: 'syncagent.kcp.io/v1alpha1', kind: 'PublishedResource', metadata: { name: 'cluster-databases' }, spec: { resource: { apiGroup: group, kind: 'Database', versions: ['v1'] }, projection: { scope: 'Cluster' } } });
  s = await startPublishedSetup((service) => ({ agentName: service.agentName, apiExport: service.exportName, published: [pr(service.group)] }), (service) => clusterDbsIn(service.group), false);
});

afterAll(async () => {
  await s.stop();
});

describe('rxfleet-sync-agent: a namespaced CRD published cluster-scoped (projection.scope)', () => {
  it('the APIResourceSchema is cluster-scoped; a s.consumer object lands in the workspace namespace, Ready comes back, a delete removes the copy first', async () => {
    const exported = await waitForExport(s.provider, s.svc.exportName, (e) => (e.spec?.resources ?? []).length > 0, s.context);
    const ars = must(await s.provider.get(apiResourceSchemas, exported.spec?.resources?.[0]?.schema ?? ''));
    expect(ars.spec.scope).toBe('Cluster');

    must(await s.consumer.apply(clusterDbs(), { metadata: { name: 'orders' }, spec: { engine: 'postgres', size: 1 } }, { fieldManager: 's.consumer' }));
    const ready = await waitFor('orders Ready in the workspace', async () => {
      const d = await getOrUndefined<Database>(s.consumer, clusterDbs(), 'orders');
      return d?.status?.phase === 'Ready' ? d : undefined;
    }, { context: s.context });
    expect(ready.metadata.namespace).toBeUndefined();
    const copies = (await s.svc.copiesFrom(s.logical)).filter((c) => backRef(c).name === 'orders');
    expect(copies.map((c) => [c.metadata.namespace, backRef(c).namespace])).toEqual([[s.logical, '']]);

    must(await s.consumer.delete(clusterDbs(), 'orders'));
    await waitFor('orders and its copy gone', async () => {
      const [d, left] = await Promise.all([getOrUndefined<Database>(s.consumer, clusterDbs(), 'orders'), s.svc.copiesFrom(s.logical)]);
      return d === undefined && left.every((c) => backRef(c).name !== 'orders') ? true : undefined;
    }, { context: s.context });
  });
});
