// Providers that serve their clusters from a shared cache, inside multiProvider, on the real
// servers and through the runtime: namespaces as clusters (one cluster-wide watch split by
// namespace) and kcp's APIExport provider (one wildcard watch split by workspace). Renamed
// `<provider>#<cluster>`, every cluster must still be served by the cache under its new name: the
// reconciler reads each live object (never `undefined`, which means deleted), every cluster
// syncs, and /readyz turns ready.
import { randomBytes } from 'node:crypto';
import { pino } from 'pino';
import { map } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';
import type { Cluster, KubeObject, ResourceDescriptor, RunHandle } from '../../src/index.js';
import { clusterName, configMaps, controller, done, namespaces as namespaceResource, run } from '../../src/index.js';
import { apiExportProvider } from '../../src/providers/kcp/index.js';
import { multiProvider } from '../../src/providers/multi/index.js';
import { namespaceProvider } from '../../src/providers/namespaces/index.js';
import type { Provider } from '../../src/streams/index.js';
import { engaged } from '../../src/streams/index.js';
import type { Widget } from '../support/kcp-apiexport.js';
import { createIn, setupApiExport } from '../support/kcp-apiexport.js';
import { sharedKcp, sharedKubeApiserver } from '../support/context.js';
import { eventually, must } from '../support/wait.js';
import { clusterFrom, httpGet } from './runtime-support.js';

const quiet = pino({ level: process.env.RT_LOG ?? 'silent' });
const fastWatch = { backoff: { initialMs: 200, factor: 2, maxMs: 2_000, resetAfterMs: 60_000 }, authBackoff: { initialMs: 500, factor: 2, maxMs: 2_000, resetAfterMs: 60_000 } };
const handles: RunHandle[] = [];
afterEach(async () => {
  await Promise.all(handles.splice(0).map((h) => h.stop({ deadlineMs: 0 })));
});

/** The provider, each engaged cluster's own client recording the watches asked of it (none while its cache serves them). */
function recordingOwnWatches(provider: Provider, into: string[]): Provider {
  const recording = (c: Cluster): Cluster => ({
    ...c,
    client: { ...c.client, watch: (r, o) => (into.push(`${c.name} ${r.plural}`), c.client.watch(r, o)) },
  });
  return provider.pipe(map((ev) => (ev.type === 'engaged' ? engaged(recording(ev.cluster)) : ev)));
}

/** What a run saw: each reconcile as `cluster/namespace/name → what the reconciler read`. */
interface Seen {
  readonly reads: Map<string, string>;
  /** Reconciles that read no object, though no object is ever deleted in these tests. */
  readonly undefinedReads: string[];
}

async function start<T extends KubeObject>(name: string, provider: Provider, resource: ResourceDescriptor<T>, read: (o: T) => string): Promise<{ handle: RunHandle; seen: Seen }> {
  const seen: Seen = { reads: new Map(), undefinedReads: [] };
  const c = controller<T>({
    name,
    provider,
    resource,
    reconcile: (req) => {
      const at = `${req.cluster}/${req.key.namespace}/${req.key.name}`;
      if (req.object === undefined) seen.undefinedReads.push(at);
      else seen.reads.set(at, read(req.object));
      return done();
    },
  });
  const handle = await run(c, { logger: quiet, signals: false, http: { port: 0 }, shutdownDeadlineMs: 5_000 });
  handles.push(handle);
  return { handle, seen };
}

/** Waits for /readyz to answer 200 and gives its body; on time-out, the last answer and what was reconciled. */
async function ready(handle: RunHandle, seen: Seen): Promise<string> {
  const url = handle.url ?? '';
  let last = '';
  return eventually(
    '/readyz to answer 200',
    async () => {
      const r = await httpGet(`${url}/readyz`);
      last = `${String(r.status)} ${r.body}`;
      return r.status === 200 ? r.body : undefined;
    },
    { context: () => `last /readyz: ${last}\nreconciled: ${JSON.stringify([...seen.reads])}\nread undefined: ${JSON.stringify(seen.undefinedReads)}` },
  );
}

describe('providers that serve from a shared cache, inside multiProvider', () => {
  it('namespaces with shared watches: each ns#<namespace> reads its live objects, syncs, and /readyz turns ready', async () => {
    const label = randomBytes(3).toString('hex');
    const hub = clusterFrom('hub', sharedKubeApiserver().kubeconfigYaml('admin'));
    const names = [0, 1, 2].map((i) => `multi-${label}-${String(i)}`);
    for (const n of names) {
      must(await hub.client.create(namespaceResource, { metadata: { name: n, labels: { multi: label } } }), `namespace ${n}`);
      must(await hub.client.create(configMaps, { metadata: { name: 'greeting', namespace: n }, data: { from: n } }), `configmap in ${n}`);
    }
    const ownWatches: string[] = [];
    const provider = recordingOwnWatches(multiProvider({ ns: namespaceProvider({ management: hub, labelSelector: `multi=${label}`, managementWatch: fastWatch }) }), ownWatches);
    const { handle, seen } = await start(`multi-ns-${label}`, provider, configMaps, (cm) => cm.data?.from ?? 'no data');

    const body = await ready(handle, seen);
    for (const n of names) expect(body).toContain(`cluster ns#${n}: synced`);
    await eventually('every greeting reconciled', () => seen.reads.size >= names.length, { timeoutMs: 30_000 });
    expect([...seen.reads.entries()].sort()).toEqual(names.map((n) => [`ns#${n}/${n}/greeting`, n]).sort());
    expect(seen.undefinedReads).toEqual([]);
    expect(handle.health.report().clusters.map((c) => [c.cluster, c.state]).sort()).toEqual(names.map((n) => [`ns#${n}`, 'synced']).sort());
    // Served by the provider's one cluster-wide watch, not by a watch of each cluster.
    expect(ownWatches).toEqual([]);

    // A change reaches the renamed cluster's reconciler with the new object.
    const [first = ''] = names;
    must(await hub.client.apply(configMaps, { metadata: { name: 'greeting', namespace: first }, data: { from: `${first}-v2` } }, { fieldManager: 'test', force: true }), 'update');
    await eventually('update reconciled', () => seen.reads.get(`ns#${first}/${first}/greeting`) === `${first}-v2`, { timeoutMs: 30_000 });
    expect(seen.undefinedReads).toEqual([]);
    expect(handle.fleet.get(clusterName(`ns#${first}`))).toBeDefined();
    expect((await handle.stop()).reason).toBe('clean');
  });

  it("kcp's APIExport provider: each kcp#<workspace> reads its live widgets, syncs, and /readyz turns ready", async () => {
    const fx = await setupApiExport(sharedKcp().adminKubeconfigPath, { consumers: 2 });
    for (const [i, ws] of fx.consumers.entries()) {
      await createIn(fx.workspaceKubeConfig(ws), `/apis/${fx.group}/v1/namespaces/default/widgets`, { apiVersion: `${fx.group}/v1`, kind: 'Widget', metadata: { name: 'w', namespace: 'default' }, spec: { size: i + 1 } });
    }
    const ownWatches: string[] = [];
    const exported = apiExportProvider({ management: () => ({ yaml: fx.providerKubeconfig() }), managementWatch: fastWatch, exportName: fx.exportName });
    const provider = recordingOwnWatches(multiProvider({ kcp: exported }), ownWatches);
    const { handle, seen } = await start<Widget>(`multi-kcp-${fx.group.slice(0, 9)}`, provider, fx.widgets, (w) => String(w.spec?.size));

    const body = await ready(handle, seen);
    for (const ws of fx.consumers) expect(body).toContain(`cluster kcp#${ws.logicalCluster}: synced`);
    await eventually('every widget reconciled', () => seen.reads.size >= fx.consumers.length, { timeoutMs: 30_000 });
    expect([...seen.reads.entries()].sort()).toEqual(fx.consumers.map((ws, i) => [`kcp#${ws.logicalCluster}/default/w`, String(i + 1)]).sort());
    expect(seen.undefinedReads).toEqual([]);
    expect(handle.health.report().clusters.map((c) => [c.cluster, c.state]).sort()).toEqual(fx.consumers.map((ws) => [`kcp#${ws.logicalCluster}`, 'synced']).sort());
    // Served by the endpoint's one wildcard watch, not by a watch of each workspace.
    expect(ownWatches).toEqual([]);
    expect((await handle.stop()).reason).toBe('clean');
  });
});
