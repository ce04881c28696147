// Cluster API and ClusterProfile providers against real servers: their CRDs (test/fixtures) are
// installed in the shared kube-apiserver, which is the management cluster; the clusters they
// describe are a kcp workspace and the kube-apiserver itself.
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { beforeAll, describe, expect, it } from 'vitest';
import { resourcePath } from '../../src/client/paths.js';
import { E } from '../../src/fp/index.js';
import type { Cluster } from '../../src/index.js';
import { customResourceDefinitions, secrets } from '../../src/index.js';
import { capiClusterResource, clusterApiProvider } from '../../src/providers/cluster-api/index.js';
import { clusterProfileProvider, clusterProfileResource } from '../../src/providers/cluster-profiles/index.js';
import { sharedKcp, sharedKubeApiserver } from '../support/context.js';
import { clusterFrom } from './streams-support.js';
import { b64, createConfigMap, engagedAfter, isDisengaged, isEngaged, kubeApiserverAccess, recorder, seeConfigMap, show } from './providers-support.js';
import { randomName } from './targets.js';
import { eventually, must } from '../support/wait.js';

let hub: Cluster;
let ws: { yaml: string; cluster: Cluster; server: string; caData: string; token: string };

async function installCrd(fixture: string, name: string, probe: () => Promise<E.Either<{ type: string; message: string }, unknown>>): Promise<void> {
  // Server-side apply takes YAML as is: the fixture goes to the server without a YAML parser here.
  const yaml = readFileSync(new URL(`../fixtures/${fixture}`, import.meta.url), 'utf8');
  must(await hub.client.raw({ method: 'PATCH', path: `${resourcePath(customResourceDefinitions, { name })}?fieldManager=rxfleet-test&force=true`, body: yaml, contentType: 'application/apply-patch+yaml' }), `apply ${fixture}`);
  await eventually(`${fixture} served`, async () => {
    const r = await probe();
    return E.isRight(r) ? true : r.left.type === 'NotFound' ? undefined : Promise.reject(new Error(r.left.message));
  });
}

beforeAll(async () => {
  hub = clusterFrom('hub', sharedKubeApiserver().kubeconfigYaml('admin'));
  const w = await sharedKcp().createWorkspace();
  const kc = new KubeConfig();
  kc.loadFromString(w.kubeconfigYaml());
  const c = kc.getCurrentCluster();
  const u = kc.getCurrentUser();
  if (c === null || u?.token === undefined) throw new Error('kcp kubeconfig without token');
  ws = { yaml: w.kubeconfigYaml(), cluster: clusterFrom(w.path, w.kubeconfigYaml()), server: c.server, caData: c.caData ?? '', token: u.token };
  await installCrd('cluster-api-crd.yaml', 'clusters.cluster.x-k8s.io', () => hub.client.list(capiClusterResource(), { limit: 1 }));
  await installCrd('cluster-profile-crd.yaml', 'clusterprofiles.multicluster.x-k8s.io', () => hub.client.list(clusterProfileResource, { limit: 1 }));
});

describe('clusterApiProvider against kube-apiserver (management)', () => {
  it('should engage a Cluster once its control plane is initialised, re-engage on a rotated kubeconfig Secret or new labels, ignore annotations and disengage on delete', async () => {
    const ns = await sharedKubeApiserver().createNamespace('capi');
    const capi = capiClusterResource();
    const kubeconfigSecret = (cluster: string, yaml: string) => ({
      metadata: { name: `${cluster}-kubeconfig`, namespace: ns, labels: { 'cluster.x-k8s.io/cluster-name': cluster } },
      data: { value: b64(yaml) },
    });
    must(await hub.client.create(capi, { metadata: { name: 'prod', namespace: ns }, spec: {} }), 'prod');
    must(await hub.client.create(secrets, kubeconfigSecret('prod', ws.yaml)), 'prod secret');

    const rec = recorder();
    rec.start(clusterApiProvider({ management: hub, namespace: ns }));
    const early = await rec.waitReport('prod skipped', (r) => r.type === 'skipped' && r.candidate === `${ns}/prod`);
    expect(early.type === 'skipped' && early.reason).toBe(`Cluster ${ns}/prod: control plane not initialised yet`);

    must(await hub.client.patch(capi, 'prod', { status: { initialization: { controlPlaneInitialized: true } } }, { type: 'merge', namespace: ns, subresource: 'status' }), 'prod ready');
    const prod = await rec.waitEvent('prod engaged', isEngaged(`${ns}/prod`));
    if (prod.type !== 'engaged') throw new Error('unreachable');
    const cmW = randomName('capi-ws');
    await createConfigMap(ws.cluster.client, 'default', cmW);
    expect(await seeConfigMap(prod.cluster, 'default', cmW)).toBe(cmW);

    // A v1beta1-style Cluster (condition), created later, waits for its Secret.
    must(await hub.client.create(capi, { metadata: { name: 'late', namespace: ns }, spec: {} }), 'late');
    must(await hub.client.patch(capi, 'late', { status: { conditions: [{ type: 'ControlPlaneInitialized', status: 'True' }] } }, { type: 'merge', namespace: ns, subresource: 'status' }), 'late ready');
    await rec.waitReport('late missing Secret', (r) => r.type === 'skipped' && r.candidate === `${ns}/late` && r.reason === `kubeconfig Secret ${ns}/late-kubeconfig of Cluster ${ns}/late not found`);
    must(await hub.client.create(secrets, kubeconfigSecret('late', sharedKubeApiserver().kubeconfigYaml('admin'))), 'late secret');
    await rec.waitEvent('late engaged', isEngaged(`${ns}/late`));

    // Annotations on the Cluster and on the Secret: nothing. A Cluster and its Secret created after
    // them are the sentinel: each of the provider's two watches is handled in order, and prod would
    // be disengaged as its annotation is handled, so once the sentinel is engaged, both were.
    const before = rec.events.length;
    must(await hub.client.patch(capi, 'prod', { metadata: { annotations: { touched: 'yes' } } }, { type: 'merge', namespace: ns }), 'annotate prod');
    must(await hub.client.patch(secrets, 'prod-kubeconfig', { metadata: { annotations: { touched: 'yes' } } }, { type: 'merge', namespace: ns }), 'annotate secret');
    must(await hub.client.create(capi, { metadata: { name: 'sentinel', namespace: ns }, spec: {} }), 'sentinel');
    must(await hub.client.patch(capi, 'sentinel', { status: { initialization: { controlPlaneInitialized: true } } }, { type: 'merge', namespace: ns, subresource: 'status' }), 'sentinel ready');
    must(await hub.client.create(secrets, kubeconfigSecret('sentinel', ws.yaml)), 'sentinel secret');
    await rec.waitEvent('sentinel engaged', isEngaged(`${ns}/sentinel`));
    expect(rec.events.slice(before).map(show)).toEqual([`+${ns}/sentinel`]);

    // The Cluster's labels are the cluster's: a label change re-engages it with them.
    must(await hub.client.patch(capi, 'prod', { metadata: { labels: { touched: 'yes' } } }, { type: 'merge', namespace: ns }), 'label prod');
    const relabelled = await engagedAfter(rec, `${ns}/prod`, before);
    if (relabelled.type !== 'engaged') throw new Error('unreachable');
    expect(relabelled.cluster.labels).toEqual({ touched: 'yes' });
    expect(relabelled.cluster.identity).toEqual({ provider: 'cluster-api', from: `Cluster ${ns}/prod` });
    const count = rec.events.length;

    // Rotated kubeconfig pointing at the kube-apiserver: re-engaged, sees that server's objects.
    const kasNs = await sharedKubeApiserver().createNamespace('capi-switch');
    const cmK = randomName('capi-kas');
    await createConfigMap(hub.client, kasNs, cmK);
    must(await hub.client.patch(secrets, 'prod-kubeconfig', { data: { value: b64(sharedKubeApiserver().kubeconfigYaml('admin')) } }, { type: 'merge', namespace: ns }), 'rotate');
    const prod2 = await engagedAfter(rec, `${ns}/prod`, count);
    if (prod2.type !== 'engaged') throw new Error('unreachable');
    expect(await seeConfigMap(prod2.cluster, kasNs, cmK)).toBe(cmK);

    must(await hub.client.delete(capi, 'late', { namespace: ns }), 'delete late');
    await rec.waitEvent('late disengaged', isDisengaged(`${ns}/late`));
    rec.stop();
  });
});

/** A credential plugin that reads the cluster from KUBERNETES_EXEC_INFO and issues that server's token. */
function inventoryPlugin(): { command: string; dir: string } {
  const dir = mkdtempSync(join(tmpdir(), 'rxfleet-cp-'));
  writeFileSync(join(dir, 'kcp-token'), ws.token);
  writeFileSync(join(dir, 'kas-token'), kubeApiserverAccess().token);
  const command = join(dir, 'plugin.sh');
  writeFileSync(
    command,
    `#!/bin/sh
case "$KUBERNETES_EXEC_INFO" in
  *"${new URL(ws.server).origin}"*) token=$(cat "${dir}/kcp-token") ;;
  *) token=$(cat "${dir}/kas-token") ;;
esac
printf '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"%s"}}' "$token"
`,
  );
  chmodSync(command, 0o755);
  return { command, dir };
}

describe('clusterProfileProvider against kube-apiserver (hub)', () => {
  it('should engage healthy profiles through the configured exec plugin with their identity and labels, re-engage when the endpoint changes, and skip the others with reasons', async () => {
    const ns = await sharedKubeApiserver().createNamespace('inventory');
    const kas = kubeApiserverAccess();
    const healthy = (status: string) => [{ type: 'ControlPlaneHealthy', status, reason: 'Test', message: '', lastTransitionTime: new Date().toISOString() }];
    const create = async (name: string, status: Record<string, unknown>, labels: Record<string, string> = {}): Promise<void> => {
      must(await hub.client.create(clusterProfileResource, { metadata: { name, namespace: ns, labels }, spec: { displayName: name, clusterManager: { name: 'test' } } }), name);
      must(await hub.client.patch(clusterProfileResource, name, { status }, { type: 'merge', namespace: ns, subresource: 'status' }), `${name} status`);
    };
    await create(
      'p1',
      {
        conditions: healthy('True'),
        accessProviders: [{ name: 'test-tokens', cluster: { server: kas.server, 'certificate-authority-data': kas.caData } }],
        properties: [{ name: 'cluster.clusterset.k8s.io', value: 'p1.fleet.example' }],
      },
      { region: 'eu' },
    );
    await create('sick', { conditions: healthy('False'), accessProviders: [{ name: 'test-tokens', cluster: { server: kas.server, 'certificate-authority-data': kas.caData } }] });
    await create('foreign', { conditions: healthy('True'), accessProviders: [{ name: 'someone-else', cluster: { server: kas.server } }] });

    const plugin = inventoryPlugin();
    const rec = recorder();
    rec.start(
      clusterProfileProvider({
        management: hub,
        namespace: ns,
        providers: [{ name: 'test-tokens', execConfig: { command: plugin.command, apiVersion: 'client.authentication.k8s.io/v1', provideClusterInfo: true } }],
        recheckIntervalMs: 1_000,
      }),
    );
    const p1 = await rec.waitEvent('p1 engaged', isEngaged(`${ns}/p1`));
    if (p1.type !== 'engaged') throw new Error('unreachable');
    // Identity from the KEP-2149 ClusterProperty, labels from the profile.
    expect(p1.cluster.identity).toEqual({ provider: 'cluster-profiles', from: `ClusterProfile ${ns}/p1`, id: 'p1.fleet.example' });
    expect(p1.cluster.labels).toEqual({ region: 'eu' });
    const kasNs = await sharedKubeApiserver().createNamespace('inventory-cm');
    const cmK = randomName('cp-kas');
    await createConfigMap(hub.client, kasNs, cmK);
    expect(await seeConfigMap(p1.cluster, kasNs, cmK)).toBe(cmK);
    const sick = await rec.waitReport('sick skipped', (r) => r.type === 'skipped' && r.candidate === `${ns}/sick`);
    expect(sick.type === 'skipped' && sick.reason).toBe(`ClusterProfile ${ns}/sick: ControlPlaneHealthy is not True`);
    const foreign = await rec.waitReport('foreign skipped', (r) => r.type === 'skipped' && r.candidate === `${ns}/foreign`);
    expect(foreign.type === 'skipped' && foreign.reason).toBe(`ClusterProfile ${ns}/foreign: no configured plugin for access providers "someone-else"`);

    // The profile now publishes the kcp workspace's endpoint: re-engaged; the plugin issues kcp's token.
    const count = rec.events.length;
    must(await hub.client.patch(clusterProfileResource, 'p1', { status: { accessProviders: [{ name: 'test-tokens', cluster: { server: ws.server, 'certificate-authority-data': ws.caData } }] } }, { type: 'merge', namespace: ns, subresource: 'status' }), 'p1 moves');
    const p1b = await engagedAfter(rec, `${ns}/p1`, count);
    if (p1b.type !== 'engaged') throw new Error('unreachable');
    const cmW = randomName('cp-ws');
    await createConfigMap(ws.cluster.client, 'default', cmW);
    expect(await seeConfigMap(p1b.cluster, 'default', cmW)).toBe(cmW);

    // Healthy again: engaged.
    must(await hub.client.patch(clusterProfileResource, 'sick', { status: { conditions: healthy('True') } }, { type: 'merge', namespace: ns, subresource: 'status' }), 'sick heals');
    await rec.waitEvent('sick engaged', isEngaged(`${ns}/sick`));

    must(await hub.client.delete(clusterProfileResource, 'p1', { namespace: ns }), 'delete p1');
    await rec.waitEvent('p1 disengaged', isDisengaged(`${ns}/p1`));
    rec.stop();
  });
});
