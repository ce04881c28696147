// Namespaces as clusters on a real kube-apiserver, through the runtime: N namespace-clusters are
// served from ONE cluster-wide watch per resource (the cluster cache seam), every key is reconciled
// in its own cluster with req.object from the shared cache, namespaces that appear later join, and
// opting out gives each namespace-cluster a watch of its own.
import { randomBytes } from 'node:crypto';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { ClusterClient } from '../../src/client/index.js';
import { createClusterClient } from '../../src/client/index.js';
import { E } from '../../src/fp/index.js';
import type { Cluster, ConfigMap, KubeObject, ResourceDescriptor, RunHandle } from '../../src/index.js';
import { clusterName, configMaps, controller, done, namespaces as namespaceResource, run } from '../../src/index.js';
import { namespaceProvider } from '../../src/providers/namespaces/index.js';
import { sharedKubeApiserver } from '../support/context.js';
import { eventually } from '../support/wait.js';

const waitFor = (what: string, probe: () => boolean, timeoutMs: number): Promise<true> => eventually(what, () => (probe() ? true : undefined), { timeoutMs });

const quiet = pino({ level: 'silent' });
const suffix = () => randomBytes(3).toString('hex');

/** The admin client of the shared kube-apiserver, counting watch requests per resource. */
function countingHub(): { readonly hub: Cluster; readonly watches: Map<string, number> } {
  const made = createClusterClient(clusterName('hub'), { yaml: sharedKubeApiserver().kubeconfigYaml('admin') });
  if (E.isLeft(made)) throw new Error(made.left.message);
  const base = made.right;
  const watches = new Map<string, number>();
  const client: ClusterClient = {
    ...base,
    watch: <T extends KubeObject>(r: ResourceDescriptor<T>, opts?: Parameters<ClusterClient['watch']>[1]) => {
      watches.set(r.plural, (watches.get(r.plural) ?? 0) + 1);
      return base.watch(r, opts);
    },
  };
  return { hub: { name: clusterName('hub'), client }, watches };
}

async function must<T>(what: string, p: Promise<E.Either<{ readonly message: string }, T>>): Promise<T> {
  const r = await p;
  if (E.isLeft(r)) throw new Error(`${what}: ${r.left.message}`);
  return r.right;
}

async function tenants(hub: Cluster, label: string, count: number): Promise<string[]> {
  const names = Array.from({ length: count }, (_, i) => `shared-${label}-${String(i)}`);
  for (const name of names) {
    await must(`namespace ${name}`, hub.client.create(namespaceResource, { metadata: { name, labels: { shared: label } } }));
    await must(`configmap in ${name}`, hub.client.create(configMaps, { metadata: { name: 'greeting', namespace: name }, data: { from: name } }));
  }
  return names;
}

function start(hub: Cluster, label: string, shareWatches: boolean, seen: Map<string, string>): Promise<RunHandle> {
  const c = controller<ConfigMap>({
    name: `shared-${label}`,
    provider: namespaceProvider({ management: hub, labelSelector: `shared=${label}`, shareWatches }),
    resource: configMaps,
    reconcile: (req) => {
      // Every key belongs to its own namespace-cluster, and the cache serves its object.
      seen.set(`${req.cluster}/${req.key.namespace}/${req.key.name}`, req.object?.data?.from ?? 'no object');
      return done();
    },
  });
  return run(c, { logger: quiet, signals: false, http: false, shutdownDeadlineMs: 5_000 });
}

describe('namespaceProvider with shared watches', () => {
  it('serves thirty namespace-clusters from one ConfigMap watch and reconciles each key in its own cluster', async () => {
    const label = suffix();
    const { hub, watches } = countingHub();
    const names = await tenants(hub, label, 30);
    const seen = new Map<string, string>();
    const handle = await start(hub, label, true, seen);
    await waitFor('every greeting reconciled', () => seen.size >= 30, 60_000);
    expect([...seen.entries()].sort()).toEqual(names.map((n) => [`${n}/${n}/greeting`, n]).sort());
    expect(watches.get('configmaps')).toBe(1);
    await waitFor('ready', () => handle.health.report().ready, 30_000);

    // A namespace created later joins through the same watch, and its object arrives.
    const late = `shared-${label}-late`;
    await must('late namespace', hub.client.create(namespaceResource, { metadata: { name: late, labels: { shared: label } } }));
    await waitFor('late namespace engaged', () => handle.fleet.get(clusterName(late)) !== undefined, 30_000);
    await must('late configmap', hub.client.create(configMaps, { metadata: { name: 'greeting', namespace: late }, data: { from: late } }));
    await waitFor('late greeting reconciled', () => seen.get(`${late}/${late}/greeting`) === late, 30_000);
    expect(watches.get('configmaps')).toBe(1);

    // A change in one namespace wakes only that namespace-cluster's key.
    seen.clear();
    const [first = ''] = names;
    await must('update', hub.client.apply(configMaps, { metadata: { name: 'greeting', namespace: first }, data: { from: `${first}-v2` } }, { fieldManager: 'test', force: true }));
    await waitFor('update reconciled', () => seen.size > 0, 30_000);
    expect([...seen.entries()]).toEqual([[`${first}/${first}/greeting`, `${first}-v2`]]);
    expect((await handle.stop()).reason).toBe('clean');
  });

  it('gives each namespace-cluster a watch of its own when sharing is off', async () => {
    const label = suffix();
    const { hub, watches } = countingHub();
    const names = await tenants(hub, label, 5);
    const seen = new Map<string, string>();
    const handle = await start(hub, label, false, seen);
    await waitFor('every greeting reconciled', () => seen.size >= 5, 60_000);
    expect([...seen.keys()].sort()).toEqual(names.map((n) => `${n}/${n}/greeting`).sort());
    expect(watches.get('configmaps')).toBe(5);
    expect((await handle.stop()).reason).toBe('clean');
  });
});
