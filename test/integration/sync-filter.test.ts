// The published filter on the real kcp and kube-apiserver, `rxfleet-sync-agent` as its own process (issue
// 28 item 2): an object that stops matching `filter.labelSelector` is released, its service copy and
// connection Secret deleted and the agent's finalizer removed, so a later delete completes instead
// of hanging; an object that never matched is never touched.
import { load } from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClusterClient } from '../../src/client/index.js';
import type { Secret } from '../../src/index.js';
import { secrets } from '../../src/index.js';
import type { Database } from '../../examples/sync-agent/api.js';
import { databasesIn } from '../../examples/sync-agent/api.js';
import { sharedKcp, sharedKubeApiserver } from '../support/context.js';
import { bindExport, getOrUndefined, waitForExport } from '../support/sync-agent-kcp.js';
import type { SyncAgentProcess } from '../support/sync-agent-process.js';
import { startSyncAgent, tempFile, waitFor } from '../support/sync-agent-process.js';
import type { ServiceSide } from '../support/sync-agent-service.js';
import { backRef, startService } from '../support/sync-agent-service.js';
import { must } from '../support/wait.js';
import { clientFrom } from './runtime-support.js';

let svc: ServiceSide;
let agent: SyncAgentProcess;
let consumer: ClusterClient;
let logical: string;
const context = (): string => agent.tail(60);
const dbs = (): ReturnType<typeof databasesIn> => databasesIn(svc.group);
const finalizer = (): string => `sync.rxfleet.dev/${svc.agentName}`;
const copiesOf = async (name: string): Promise<readonly Database[]> => (await svc.copiesFrom(logical)).filter((c) => backRef(c).name === name);

beforeAll(async () => {
  const kas = sharedKubeApiserver();
  svc = await startService(kas.kubeconfigYaml('admin'), { readyAfterMs: 200, deprovisionMs: 500 });
  const [p, ws] = await Promise.all([sharedKcp().createWorkspace(), sharedKcp().createWorkspace()]);
  const provider = clientFrom(p.path, p.kubeconfigYaml());
  consumer = clientFrom(ws.path, ws.kubeconfigYaml());
  logical = ws.logicalCluster;
  // The example's configuration, with a label filter.
  const config = load(svc.configYaml) as { published: { filter?: unknown }[] };
  for (const entry of config.published) entry.filter = { labelSelector: 'sync=yes' };
  const files = { configFile: tempFile('sync.yaml', JSON.stringify(config)), kcpKubeconfig: tempFile('kcp.kubeconfig', p.kubeconfigYaml()), serviceKubeconfig: tempFile('service.kubeconfig', kas.kubeconfigYaml('admin')) };
  agent = startSyncAgent(files);
  const exported = await waitForExport(provider, svc.exportName, (e) => (e.spec?.resources ?? []).length > 0 && (e.spec?.permissionClaims ?? []).length > 0, context);
  await bindExport(consumer, exported, p.path, dbs());
});

afterAll(async () => {
  await agent.stop(10_000);
  await svc.stop();
});

describe('rxfleet-sync-agent: the label filter releases what leaves it', () => {
  it('an object that loses its label is released: its copy and Secret deleted, the finalizer removed, and a delete then completes', async () => {
    must(await consumer.apply(dbs(), { metadata: { name: 'plain', namespace: 'default' }, spec: { engine: 'postgres', size: 1, connectionSecretName: 'plain-db' } }, { fieldManager: 'consumer' }));
    must(await consumer.apply(dbs(), { metadata: { name: 'orders', namespace: 'default', labels: { sync: 'yes' } }, spec: { engine: 'postgres', size: 1, connectionSecretName: 'orders-db' } }, { fieldManager: 'consumer' }));
    await waitFor('orders synced: Ready and its Secret', async () => {
      const d = await getOrUndefined(consumer, dbs(), 'orders', 'default');
      const s = await getOrUndefined<Secret>(consumer, secrets, 'orders-db', 'default');
      return d?.status?.phase === 'Ready' && s !== undefined ? true : undefined;
    }, { context });
    expect((await getOrUndefined(consumer, dbs(), 'orders', 'default'))?.metadata.finalizers).toContain(finalizer());
    expect(await copiesOf('orders')).toHaveLength(1);
    // The object that never matched was never taken.
    expect((await getOrUndefined(consumer, dbs(), 'plain', 'default'))?.metadata.finalizers ?? []).not.toContain(finalizer());
    expect(await copiesOf('plain')).toEqual([]);

    must(await consumer.patch(dbs(), 'orders', { metadata: { labels: { sync: null } } }, { type: 'merge', namespace: 'default' }));
    const released = await waitFor('orders released: no finalizer, no copy, no Secret', async () => {
      const d = await getOrUndefined(consumer, dbs(), 'orders', 'default');
      if (d === undefined || (d.metadata.finalizers ?? []).includes(finalizer())) return undefined;
      const [copies, secret] = await Promise.all([copiesOf('orders'), getOrUndefined<Secret>(consumer, secrets, 'orders-db', 'default')]);
      return copies.length === 0 && secret === undefined ? d : undefined;
    }, { context });
    expect(released.metadata.deletionTimestamp).toBeUndefined();
    must(await consumer.delete(dbs(), 'orders', { namespace: 'default' }));
    await waitFor('orders deleted', async () => ((await getOrUndefined(consumer, dbs(), 'orders', 'default')) === undefined ? true : undefined), { context });
  });
});
