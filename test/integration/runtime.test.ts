// The runtime against real servers: a controller over two kcp workspaces and the kube-apiserver
// becomes ready as caches sync, labels its metrics by cluster, keeps working when one cluster does
// not serve its resource, and on stop lets in-flight reconciles finish (or aborts them at the
// deadline).
import { pino } from 'pino';
import { defer } from 'rxjs';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { E } from '../../src/fp/index.js';
import type { Cluster, ConfigMap, ControllerReconciler, KubeObject, RunHandle } from '../../src/index.js';
import { configMaps, controller, customResourceDefinitions, done, resource, run } from '../../src/index.js';
import { staticProvider } from '../../src/streams/index.js';
import { httpGet, randomName, workspaceCluster } from './runtime-support.js';
import { eventually, must } from '../support/wait.js';

const quiet = pino({ level: process.env.RT_LOG ?? 'silent' });
const handles: RunHandle[] = [];
afterEach(async () => {
  await Promise.all(handles.splice(0).map((h) => h.stop({ deadlineMs: 0 })));
});

async function start<T extends KubeObject>(clusters: readonly Cluster[], res: typeof configMaps | ReturnType<typeof resource<T>>, reconcile: ControllerReconciler<T>, deadline = 10_000) {
  const c = controller({ name: randomName('rt'), provider: staticProvider(clusters), resource: res as ReturnType<typeof resource<T>>, reconcile, select: { namespace: 'default' } });
  const handle = await run(c, { logger: quiet, signals: false, http: { port: 0 }, shutdownDeadlineMs: deadline });
  handles.push(handle);
  return handle;
}

describe('run against kcp workspaces', () => {
  let east: Cluster;
  let west: Cluster;
  beforeAll(async () => {
    [east, west] = (await Promise.all([workspaceCluster(), workspaceCluster()])).map((w) => w.cluster) as [Cluster, Cluster];
  });

  it('flips /readyz once every cluster has synced, and labels metrics by cluster', async () => {
    const seen = new Set<string>();
    const handle = await start<ConfigMap>([east, west], configMaps, (req) => {
      seen.add(req.cluster);
      return done();
    });
    // Nothing can have been listed yet: the lists need network round trips.
    expect(handle.health.report().ready).toBe(false);
    const url = handle.url ?? '';
    await eventually('/readyz to answer 200', async () => ((await httpGet(`${url}/readyz`)).status === 200 ? true : undefined));
    const ready = await httpGet(`${url}/readyz`);
    expect(ready.body).toContain(`cluster ${east.name}: synced`);
    expect(ready.body).toContain(`cluster ${west.name}: synced`);
    expect((await httpGet(`${url}/healthz`)).status).toBe(200);
    // Universal workspaces start with a kube-root-ca.crt ConfigMap in default: each cluster reconciles at least one key.
    await eventually('a reconcile in each cluster', () => (seen.size === 2 ? true : undefined));
    const metrics = (await httpGet(`${url}/metrics`)).body;
    for (const c of [east, west]) {
      expect(metrics).toContain(`rxfleet_watch_synced{cluster="${c.name}",resource="configmaps"`);
      expect(metrics).toMatch(new RegExp(`rxfleet_reconcile_total\\{cluster="${c.name.replace(/[:]/g, '\\$&')}",result="done"`));
    }
    expect(metrics).toMatch(/rxfleet_engaged_clusters\{controller="rt-[0-9a-f]+"\} 2/);
  });

  it('lets in-flight reconciles finish their writes on stop', async () => {
    const names = Array.from({ length: 4 }, (_, i) => `slow-${i}`);
    for (const name of names) must(await east.client.apply(configMaps, { metadata: { name, namespace: 'default' }, data: { state: 'new' } }, { fieldManager: 'test' }));
    let started = 0;
    // Each reconcile is held until stop() has been called: in flight when it arrives, by construction.
    let stopCalled: () => void = () => undefined;
    const stopping = new Promise<void>((resolve) => {
      stopCalled = resolve;
    });
    const handle = await start<ConfigMap>([east], configMaps, (req, ctx) => {
      if (req.object?.data?.state !== 'new') return done();
      started++;
      return defer(async () => {
        await stopping;
        must(await ctx.fleet.get(req.cluster)?.client.apply(configMaps, { metadata: { name: req.key.name, namespace: 'default' }, data: { state: 'reconciled' } }, { fieldManager: 'rt', force: true }) ?? E.left({ message: 'cluster gone' }));
        return done();
      });
    });
    await eventually(`the slow reconciles to start (${started} started)`, () => (started >= names.length ? true : undefined));
    const stopped = handle.stop();
    stopCalled();
    const result = await stopped;
    expect(result).toMatchObject({ reason: 'clean', code: 0, aborted: 0 });
    for (const name of names) {
      const cm = must(await east.client.get(configMaps, name, { namespace: 'default' }));
      expect(cm.data?.state).toBe('reconciled');
    }
    expect(handle.health.report().phase).toBe('stopped');
  });

  it('aborts reconciles still running at the deadline and reports it in the exit code', async () => {
    const name = randomName('stuck');
    must(await west.client.apply(configMaps, { metadata: { name, namespace: 'default' } }, { fieldManager: 'test' }));
    let aborted: AbortSignal | undefined;
    const handle = await start<ConfigMap>([west], configMaps, (req, ctx) => {
      if (req.key.name !== name) return done();
      aborted = ctx.signal;
      return new Promise((resolve) => { ctx.signal.addEventListener('abort', () => { resolve(done()); }); });
    }, 300);
    await eventually('the stuck reconcile to start', () => aborted);
    const result = await handle.stop();
    expect(result).toMatchObject({ reason: 'deadline', code: 1, aborted: 1 });
    expect(aborted?.aborted).toBe(true);
  });

  it('reports a cluster that does not serve the resource as unhealthy, and keeps the others working', async () => {
    const group = `${randomName('g')}.rxfleet.dev`;
    const gadgets = resource({ group, version: 'v1', plural: 'gadgets', kind: 'Gadget', namespaced: true });
    must(await east.client.apply(
        customResourceDefinitions,
        {
          metadata: { name: `gadgets.${group}` },
          spec: {
            group,
            scope: 'Namespaced',
            names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', listKind: 'GadgetList' },
            versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
          },
        },
        { fieldManager: 'test' },
      ));
    await eventually('gadgets to be served in east', async () => (E.isRight(await east.client.list(gadgets, { namespace: 'default', limit: 1 })) ? true : undefined));
    must(await east.client.apply(gadgets, { metadata: { name: 'g1', namespace: 'default' } }, { fieldManager: 'test' }));
    const seen: string[] = [];
    const handle = await start<KubeObject>([east, west], gadgets, (req) => {
      seen.push(`${req.cluster}/${req.key.name}`);
      return done();
    });
    const url = handle.url ?? '';
    await eventually('/readyz to answer 200', async () => ((await httpGet(`${url}/readyz`)).status === 200 ? true : undefined));
    const west_ = handle.health.report().clusters.find((c) => c.cluster === west.name);
    expect(west_).toMatchObject({ state: 'unhealthy', reason: expect.stringContaining(`resource gadgets.${group} is not served`) as unknown });
    expect((await httpGet(`${url}/readyz`)).body).toContain(`cluster ${west.name}: unhealthy`);
    await eventually('the east gadget to be reconciled', () => (seen.includes(`${east.name}/g1`) ? true : undefined));
    expect((await httpGet(`${url}/metrics`)).body).toContain(`rxfleet_watch_healthy{cluster="${west.name}",resource="gadgets.${group}"`);
  });
});
