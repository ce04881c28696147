// The sync agent against kcp as it is deployed (rxfleet/envtest's startShardedKcp: a cache server,
// the root shard, shard-1 and a front-proxy, each its own process) and the shared kube-apiserver as
// the service cluster: `rxfleet-sync-agent` as its own OS process, configured with the provider
// workspace on the root shard through the front-proxy, publishes the example's CRD into its
// APIExport; one consumer workspace on each shard binds it, and each one's objects go down to the
// service cluster (spec), come back up (status, the connection Secret) and are deleted from the
// consumer side, copy first. The shard-1 consumer is only reachable through shard-1's URL in the
// export's endpoint slice: an agent that served one shard alone would fail here.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClusterClient } from '../../src/client/index.js';
import type { ShardedKcpHandle } from '../../src/envtest/kcp-sharded-handle.js';
import { startShardedKcp } from '../../src/envtest/kcp-sharded.js';
import type { KcpWorkspace } from '../../src/envtest/kcp-workspace.js';
import type { Database } from '../../examples/sync-agent/api.js';
import { databasesIn } from '../../examples/sync-agent/api.js';
import { sharedKubeApiserver } from '../support/context.js';
import { bindExport, getOrUndefined, waitForExport } from '../support/sync-agent-kcp.js';
import type { SyncAgentProcess } from '../support/sync-agent-process.js';
import { startSyncAgent, tempFile, waitFor } from '../support/sync-agent-process.js';
import { deletionOrder } from '../support/sync-agent-scenarios.js';
import type { ServiceSide } from '../support/sync-agent-service.js';
import { backRef, startService } from '../support/sync-agent-service.js';
import { must } from '../support/wait.js';
import { clientFrom } from './runtime-support.js';

interface Consumer {
  readonly shard: string;
  readonly ws: KcpWorkspace;
  readonly client: ClusterClient;
}

let kcp: ShardedKcpHandle | undefined;
let svc: ServiceSide | undefined;
let agent: SyncAgentProcess | undefined;
const consumers: Consumer[] = [];
const context = (): string => agent?.tail(60) ?? '';
const service = (): ServiceSide => {
  if (svc === undefined) throw new Error('the service side starts in beforeAll');
  return svc;
};
const kcpDatabases = (): ReturnType<typeof databasesIn> => databasesIn(service().group);
/** The one service copy of `name` from the consumer's workspace (by back-reference), if any. */
const copyOf = async (c: Consumer, name: string): Promise<Database | undefined> => {
  const copies = (await service().copiesFrom(c.ws.logicalCluster)).filter((d) => backRef(d).name === name);
  if (copies.length > 1) throw new Error(`${copies.length} copies of ${c.ws.path}/default/${name}`);
  return copies[0];
};

beforeAll(async () => {
  kcp = await startShardedKcp();
  const kas = sharedKubeApiserver();
  svc = await startService(kas.kubeconfigYaml('admin'));
  const provider = await kcp.createWorkspace(undefined, { shard: 'root' });
  const providerClient = clientFrom(provider.path, provider.kubeconfigYaml());
  const files = { configFile: tempFile('sync.yaml', svc.configYaml), kcpKubeconfig: tempFile('kcp.kubeconfig', provider.kubeconfigYaml()), serviceKubeconfig: tempFile('service.kubeconfig', kas.kubeconfigYaml('admin')) };
  agent = startSyncAgent(files);
  const exported = await waitForExport(providerClient, svc.exportName, (e) => (e.spec?.resources ?? []).some((r) => r.name === 'databases') && (e.spec?.permissionClaims ?? []).some((c) => c.resource === 'secrets'), context);
  for (const shard of ['root', 'shard-1']) {
    const ws = await kcp.createWorkspace(undefined, { shard });
    consumers.push({ shard, ws, client: clientFrom(ws.path, ws.kubeconfigYaml()) });
  }
  await Promise.all(consumers.map((c) => bindExport(c.client, exported, provider.path, kcpDatabases())));
});

afterAll(async () => {
  await agent?.stop(10_000);
  await svc?.stop();
  await kcp?.stop();
});

describe('rxfleet-sync-agent across the shards of a sharded kcp', () => {
  it('engages the consumer workspace of each shard', async () => {
    for (const c of consumers) {
      await waitFor(`${c.shard}'s consumer ${c.ws.logicalCluster} engaged`, () => (agent?.lines().some((l) => l.msg === 'cluster engaged' && l.cluster === c.ws.logicalCluster) === true ? true : undefined), { context, timeoutMs: 90_000 });
    }
  });

  it('an object in each shard\'s consumer goes down to the service cluster and its status comes back up', async () => {
    for (const [i, c] of consumers.entries()) {
      const size = i + 1;
      must(await c.client.apply(kcpDatabases(), { metadata: { name: 'orders', namespace: 'default' }, spec: { engine: 'postgres', size, connectionSecretName: 'orders-db' } }, { fieldManager: 'consumer' }));
      const copy = await waitFor(`the copy of ${c.shard}'s ${c.ws.path}/default/orders on the service cluster`, () => copyOf(c, 'orders'), { context, timeoutMs: 90_000 });
      const consumer = await waitFor(`${c.shard}'s orders Ready`, async () => {
        const d = await getOrUndefined(c.client, kcpDatabases(), 'orders', 'default');
        return d?.status?.phase === 'Ready' ? d : undefined;
      }, { context, timeoutMs: 90_000 });
      // Down: the spec as the consumer wrote it (the Secret's name is the agent's), in a namespace of
      // the consumer's own, pointing back at the consumer's object by uid.
      expect(copy.spec.size).toBe(size);
      expect(copy.metadata.namespace).toBe(c.ws.logicalCluster);
      expect(backRef(copy)).toMatchObject({ cluster: c.ws.logicalCluster, namespace: 'default', name: 'orders', uid: consumer.metadata.uid });
      // Up: the status the service-side operator wrote on that copy.
      expect(consumer.status).toMatchObject({ phase: 'Ready', endpoint: `${copy.metadata.name ?? ''}.${c.ws.logicalCluster}.svc:5432`, observedSize: size });
    }
    // A spec change in the shard-1 consumer travels down and its effect comes back up.
    const [, onShard1] = consumers;
    if (onShard1 === undefined) throw new Error('fixture');
    must(await onShard1.client.patch(kcpDatabases(), 'orders', { spec: { size: 5 } }, { type: 'merge', namespace: 'default' }));
    await waitFor('size 5 on the shard-1 copy', async () => ((await copyOf(onShard1, 'orders'))?.spec.size === 5 ? true : undefined), { context });
    await waitFor('observedSize 5 back on shard-1', async () => ((await getOrUndefined(onShard1.client, kcpDatabases(), 'orders', 'default'))?.status?.observedSize === 5 ? true : undefined), { context });
  });

  it('a delete in each shard\'s consumer removes the service copy first, then the consumer\'s object', async () => {
    for (const c of consumers) {
      const seen = await deletionOrder({ consumer: c.client, resource: kcpDatabases(), copy: () => copyOf(c, 'temp'), context, create: { engine: 'postgres', size: 1, connectionSecretName: 'temp-db' } });
      expect(seen.consumerGoneBeforeCopy).toBe(false);
      // The other object of the workspace is untouched.
      expect((await service().copiesFrom(c.ws.logicalCluster)).map((d) => backRef(d).name)).toEqual(['orders']);
    }
  });
});
