// The kcp-provider example, built and run with plain `node` against the shared kcp and
// kube-apiserver: a provider workspace exports the MongoDB API (installed by the example), two
// consumer workspaces bind it and create an instance with the same namespace/name, and each gets
// its own downstream object and its own status back; deleting one removes only its projection.
// The controller names its resource like any other (no kcp-specific source): each workspace's
// watch is a view of the export's wildcard watch.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClusterClient } from '../../src/client/index.js';
import { resourceId } from '../../src/client/index.js';
import { E } from '../../src/fp/index.js';
import type { ConfigMap, KubeObject } from '../../src/index.js';
import { clusterName, configMaps, resource } from '../../src/index.js';
import { readBackReference, sourceClusterAnnotation, sourceNameAnnotation, sourceNamespaceAnnotation } from '../../src/sinks/index.js';
import type { MongoDB } from '../../examples/kcp-provider/api.js';
import { DEFAULT_EXPORT, mongodbs } from '../../examples/kcp-provider/api.js';
import { FINALIZER, downstreamName } from '../../examples/kcp-provider/controller.js';
import { sharedKcp, sharedKubeApiserver } from '../support/context.js';
import type { KcpWorkspace } from '../support/kcp.js';
import type { Running } from './examples-support.js';
import { buildExamples, kubeconfigFile, startExample, terminate } from './examples-support.js';
import { clientFrom } from './runtime-support.js';
import { eventually, must } from '../support/wait.js';

const apiExports = resource({ group: 'apis.kcp.io', version: 'v1alpha2', plural: 'apiexports', kind: 'APIExport', namespaced: false });
interface Binding extends KubeObject {
  readonly status?: { readonly phase?: string };
}
const apiBindings = resource<Binding>({ group: 'apis.kcp.io', version: 'v1alpha2', plural: 'apibindings', kind: 'APIBinding', namespaced: false });

const running: Running[] = [];
beforeAll(async () => {
  await buildExamples();
});
afterAll(async () => {
  await Promise.all(running.map((r) => terminate(r, 5_000)));
});

const found = async <T extends KubeObject>(client: ClusterClient, r: Parameters<ClusterClient['get']>[0], name: string, namespace?: string): Promise<T | undefined> => {
  const got = await client.get(r, name, namespace === undefined ? {} : { namespace });
  return E.isRight(got) ? (got.right as T) : undefined;
};

/** Binds the provider's export in a consumer workspace and waits until MongoDBs are served there. */
async function bind(client: ClusterClient, provider: KcpWorkspace): Promise<void> {
  const binding = { metadata: { name: 'mongodb' }, spec: { reference: { export: { path: provider.path, name: DEFAULT_EXPORT } } } };
  must(await client.apply(apiBindings, binding, { fieldManager: 'test' }));
  await eventually(`the binding in ${client.cluster} to be Bound`, async () => ((await found<Binding>(client, apiBindings, 'mongodb'))?.status?.phase === 'Bound' ? true : undefined));
  await eventually(`mongodbs served in ${client.cluster}`, async () => (E.isRight(await client.list(mongodbs, { namespace: 'default', limit: 1 })) ? true : undefined));
}

describe('example: kcp-provider', () => {
  it('projects each consumer instance downstream, writes its own status back, cleans up on delete, and exits 0 on SIGTERM', async () => {
    const kcp = sharedKcp();
    const [provider, a, b] = await Promise.all([kcp.createWorkspace(), kcp.createWorkspace(), kcp.createWorkspace()]);
    const kas = sharedKubeApiserver();
    const namespace = await kas.createNamespace('mongodb');
    const downstream = clientFrom('downstream', kas.kubeconfigYaml('admin'));
    const r = startExample('kcp-provider', ['--provider', kubeconfigFile(provider.kubeconfigYaml()), '--downstream', kubeconfigFile(kas.kubeconfigYaml('admin')), '--namespace', namespace], {
      INSTALL_API: '1',
    });
    running.push(r);

    // The example installs the export; the consumers bind it while the controller runs.
    const providerClient = clientFrom(provider.path, provider.kubeconfigYaml());
    await eventually(`the APIExport in ${provider.path} (output so far:\n${r.output()})`, async () => found(providerClient, apiExports, DEFAULT_EXPORT));
    const consumers = [
      { ws: a, client: clientFrom(a.path, a.kubeconfigYaml()), spec: { version: '7.0', storageGB: 10 } },
      { ws: b, client: clientFrom(b.path, b.kubeconfigYaml()), spec: { version: '6.0', storageGB: 20 } },
    ] as const;
    await Promise.all(consumers.map((c) => bind(c.client, provider)));

    // The same namespace/name in both workspaces.
    for (const c of consumers) must(await c.client.apply(mongodbs, { metadata: { name: 'orders', namespace: 'default' }, spec: c.spec }, { fieldManager: 'test' }));

    const nameOf = (ws: KcpWorkspace): string => downstreamName(clusterName(ws.logicalCluster), 'default', 'orders');
    for (const c of consumers) {
      const name = nameOf(c.ws);
      const cm = await eventually(`the projection of ${c.ws.path}/default/orders (output so far:\n${r.output()})`, async () => found<ConfigMap>(downstream, configMaps, name, namespace));
      expect(cm.data).toEqual({ version: c.spec.version, storageGB: String(c.spec.storageGB) });
      expect(readBackReference(cm)).toMatchObject({ cluster: c.ws.logicalCluster, namespace: 'default', name: 'orders', resource: 'mongodbs.databases.example.dev' });
      expect(cm.metadata.annotations?.[sourceClusterAnnotation]).toBe(c.ws.logicalCluster);
      expect(cm.metadata.annotations?.[sourceNamespaceAnnotation]).toBe('default');
      expect(cm.metadata.annotations?.[sourceNameAnnotation]).toBe('orders');

      // Its own status, derived from its own projection, in its own workspace.
      const db = await eventually(`the status of ${c.ws.path}/default/orders`, async () => {
        const got = await found<MongoDB>(c.client, mongodbs, 'orders', 'default');
        return got?.status?.phase === 'Provisioned' ? got : undefined;
      });
      expect(db.status?.endpoint).toBe(`mongodb://${name}.${namespace}.svc:27017`);
      expect(db.metadata.finalizers).toContain(FINALIZER);
    }
    // Readiness follows each cluster's watch: a workspace is synced once its shard's wildcard watch
    // has listed (its informer is a view of it), the downstream cluster by its own watch.
    const url = /"url":"(http:\/\/[^"]+)"/.exec(r.output())?.[1];
    expect(url).toBeDefined();
    const ready = await eventually(`/readyz to answer 200 (output so far:\n${r.output()})`, async () => {
      const res = await fetch(`${url ?? ''}/readyz`);
      return res.status === 200 ? res.text() : undefined;
    });
    for (const c of consumers) expect(ready).toContain(`cluster ${c.ws.logicalCluster}: synced`);
    expect(ready).toContain('cluster downstream: synced');
    for (const c of consumers) {
      const synced = r.output().split('\n').some((l) => l.includes('"msg":"cache synced"') && l.includes(`"cluster":"${c.ws.logicalCluster}"`) && l.includes(`"resource":"${resourceId(mongodbs)}"`));
      expect(synced).toBe(true);
    }

    const [first, second] = consumers;
    expect(nameOf(first.ws)).not.toBe(nameOf(second.ws));
    expect((await found<MongoDB>(first.client, mongodbs, 'orders', 'default'))?.status?.endpoint).not.toContain(second.ws.logicalCluster);
    expect((await found<MongoDB>(second.client, mongodbs, 'orders', 'default'))?.status?.endpoint).not.toContain(first.ws.logicalCluster);

    // A projection deleted downstream is put back.
    must(await downstream.delete(configMaps, nameOf(second.ws), { namespace }));
    await eventually('the deleted projection restored', async () => found(downstream, configMaps, nameOf(second.ws), namespace));

    // Deleting the first instance removes its projection (then the instance), and nothing of the second.
    must(await first.client.delete(mongodbs, 'orders', { namespace: 'default' }));
    await eventually(
      `the first projection and instance gone (output so far:\n${r.output()})`,
      async () =>
      (await found(downstream, configMaps, nameOf(first.ws), namespace)) === undefined && (await found(first.client, mongodbs, 'orders', 'default')) === undefined ? true : undefined,
    );
    expect(await found(downstream, configMaps, nameOf(second.ws), namespace)).toBeDefined();
    expect((await found<MongoDB>(second.client, mongodbs, 'orders', 'default'))?.status?.phase).toBe('Provisioned');

    expect(await terminate(r)).toBe(0);
    const out = r.output();
    expect(out).toContain('"msg":"stopped: every in-flight reconcile finished"');
    expect(out).not.toMatch(/"token"|Bearer [A-Za-z0-9]/);
  });
});
