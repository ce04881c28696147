// run() end to end without a server: injected watch sources stand in for the API, so the tests
// can hold a list back (readiness), hold a reconcile open (graceful stop) or answer 404 (a resource
// a cluster does not serve). The same behaviours are proven against real servers in
// test/integration/runtime.test.ts. Provider reports and process metrics in a run:
// runtime-run-reports.test.ts.
import { pino } from 'pino';
import { defer, filter, finalize, firstValueFrom, NEVER, Subject, toArray } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { kubeError } from '../../src/client/index.js';
import { E } from '../../src/fp/index.js';
import type { ClusterName, ConfigMap, ControllerReconciler, KubeError, KubeObject, ObjectList, ResourceDescriptor, RunHandle } from '../../src/index.js';
import { clusterName, ConfigError, configMaps, controller, done, run } from '../../src/index.js';
import type { HealthReport } from '../../src/runtime/index.js';
import type { CacheView, Cluster, WatchEvent, WatchHealth } from '../../src/streams/index.js';
import { staticProvider } from '../../src/streams/index.js';
import { splitCache } from '../../src/streams/split-cache.js';
import { fakeCluster } from '../../src/testing/index.js';
import { unhurried } from '../support/unhurried.js';
import { eventually } from '../support/wait.js';
import type { ListAnswer } from './run-sources.js';
import { cm, listOf, sources } from './run-sources.js';

const quiet = pino({ level: 'silent' });
const untilReport = (h: RunHandle, p: (r: HealthReport) => boolean) => firstValueFrom(h.health.changes.pipe(filter(p)));

function start(reconcile: ControllerReconciler<ConfigMap>, answers: Record<string, ListAnswer>, onUnsubscribe?: () => void) {
  const provider = staticProvider([fakeCluster('east'), fakeCluster('west')]).pipe(finalize(() => onUnsubscribe?.()));
  const c = controller({
    name: 'test',
    provider,
    resource: configMaps,
    reconcile,
    watchOptions: { streamingList: false, listerWatcherFor: sources(answers) },
  });
  return run(c, { logger: quiet, signals: false, http: false, shutdownDeadlineMs: 5_000 });
}

describe('run', () => {
  it('should become ready only when every cluster has synced its cache', async () => {
    const westList = new Subject<E.Either<KubeError, ObjectList>>();
    const handle = await start(() => done(), { east: listOf(cm('a')), west: westList });
    // Both clusters are watched, and east's list answered, on later turns: wait for that; west's list,
    // held back, then keeps the run unready.
    const settled = () => {
      const cs = handle.health.report().clusters;
      return cs.length === 2 && cs.some((c) => c.cluster === 'east' && c.state === 'synced');
    };
    await eventually('both clusters watched, east synced', settled, { timeoutMs: 5_000 });
    expect(handle.health.report().ready).toBe(false);
    expect(handle.health.report().clusters.map((c) => [c.cluster, c.state])).toEqual([
      ['east', 'synced'],
      ['west', 'syncing'],
    ]);
    westList.next(E.right({ metadata: { resourceVersion: '1' }, items: [cm('b')] }));
    westList.complete();
    await untilReport(handle, (r) => r.ready);
    expect((await handle.stop()).reason).toBe('clean');
  });

  it('should let an in-flight reconcile finish on stop, then release the provider', async () => {
    let release: () => void = () => undefined;
    let started: () => void = () => undefined;
    const running = new Promise<void>((r) => (started = r));
    let unsubscribed = false;
    const handle = await start(
      () =>
        defer(async () => {
          started();
          await new Promise<void>((r) => (release = r));
          return done();
        }),
      { east: listOf(cm('a')) },
      () => (unsubscribed = true),
    );
    const outcomes = firstValueFrom(handle.outcomes.pipe(toArray()));
    await running;
    const stopping = handle.stop();
    await untilReport(handle, (r) => r.phase === 'stopping');
    expect(unsubscribed).toBe(false); // watches and provider stay while the reconcile runs
    release();
    const result = await stopping;
    expect(result).toMatchObject({ reason: 'clean', code: 0, aborted: 0 });
    expect((await outcomes).map((o) => o.result)).toEqual(['done']);
    expect(unsubscribed).toBe(true);
    expect(handle.health.report()).toMatchObject({ phase: 'stopped', ready: false, clusters: [] });
  });

  it('should abort reconciles still running at the deadline and say so in the exit code', async () => {
    let signal: AbortSignal | undefined;
    const handle = await start(
      (_req, ctx) => {
        signal = ctx.signal;
        return NEVER;
      },
      { east: listOf(cm('a')) },
    );
    await untilReport(handle, (r) => r.ready);
    const aborting = await eventually('the reconcile to start', () => signal, { timeoutMs: 5_000 });
    const result = await handle.stop({ deadlineMs: 50 });
    expect(result).toMatchObject({ reason: 'deadline', code: 1, aborted: 1 });
    expect(aborting.aborted).toBe(true);
  });

  it('should report a cluster that does not serve the resource as unhealthy and keep the others working', async () => {
    const seen: string[] = [];
    const handle = await start(
      (req) => {
        // The object is there from the first reconcile, even while the listing is still filling the store.
        seen.push(`${req.cluster}/${req.key.name}/${req.object?.metadata.uid ?? 'no object'}`);
        return done();
      },
      { east: 'notFound', west: listOf(cm('b')) },
    );
    const report = await untilReport(handle, (r) => r.ready);
    expect(report.clusters.find((c) => c.cluster === 'east')).toMatchObject({ state: 'unhealthy', reason: expect.stringContaining(': install its CRD, or check') as unknown });
    await eventually('a reconcile', () => seen.length > 0, { timeoutMs: 5_000 });
    expect(seen).toEqual(['west/b/u-b']);
    expect(await handle.metrics.registry.metrics()).toMatch(/rxfleet_reconcile_total\{cluster="west",result="done",controller="test"\} 1/);
    await handle.stop();
  });
  it('should keep a cluster that no watch selects engaged and ready until it is disengaged', async () => {
    const c = controller({
      name: 'test',
      provider: staticProvider([fakeCluster('east'), fakeCluster('target')]),
      resource: configMaps,
      reconcile: () => done(),
      select: { clusterSelector: (cl) => cl.name !== 'target' },
      watchOptions: { streamingList: false, listerWatcherFor: sources({ east: listOf(cm('a')) }) },
    });
    const handle = await run(c, { logger: quiet, signals: false, http: false, shutdownDeadlineMs: 5_000 });
    await untilReport(handle, (r) => r.ready);
    expect(handle.health.report().clusters.map((cl) => [cl.cluster, cl.state])).toEqual([
      ['east', 'synced'],
      ['target', 'synced'],
    ]);
    expect((await handle.metrics.registry.getSingleMetricAsString('rxfleet_engaged_clusters')).trim().split('\n').pop()).toMatch(/ 2$/);
    expect((await handle.stop()).reason).toBe('clean');
  });

  describe('with clusters whose provider keeps a cache', () => {
    const east = clusterName('east');
    const west = clusterName('west');

    /**
     * Two clusters served from one shared watch split by namespace (what the kcp and namespaces
     * providers do): the runtime must take events, reads and readiness from the cache and open no
     * watch of its own for what the cache serves.
     */
    function cached() {
      const shared = new Subject<WatchEvent<ConfigMap>>();
      const health = new Subject<WatchHealth>();
      const split = splitCache<ConfigMap>({ events: shared, health, scopeOf: (o) => (o.metadata.namespace === undefined ? undefined : clusterName(o.metadata.namespace)), scheduler: unhurried });
      const opened: string[] = [];
      const withCache = (name: ClusterName): Cluster => ({
        ...fakeCluster(name),
        // Serves only all-namespace selections: anything else falls back to a watch of the runtime's.
        cache: { view: <R extends KubeObject>(r: ResourceDescriptor<R>, o: { readonly namespace?: string }, as: ClusterName) => (o.namespace === undefined && r.plural === 'configmaps' ? (split.view(name, as) as unknown as CacheView<R>) : undefined) },
      });
      const c = controller({
        name: 'test',
        provider: staticProvider([withCache(east), withCache(west)]),
        resource: configMaps,
        reconcile: () => done(),
        // Any informer the runtime opened would list through here.
        watchOptions: {
          streamingList: false,
          listerWatcherFor: (cluster, r) => {
            opened.push(`${cluster.name}/${r.plural}`);
            return sources({})(cluster, r);
          },
        },
      });
      const listed = (...objects: ConfigMap[]) => {
        shared.next({ type: 'initStarted' });
        for (const object of objects) shared.next({ type: 'initApply', object });
        shared.next({ type: 'initDone' });
      };
      return { c, shared, health, listed, opened };
    }
    const inNs = (name: string, namespace: string, uid = `u-${name}`): ConfigMap => ({ ...cm(name), metadata: { ...cm(name).metadata, namespace, uid } });

    it('reconciles the keys of each cluster from the cache, with req.object read from its store, opening no watch', async () => {
      const { c, shared, listed, opened } = cached();
      const seen: string[] = [];
      const handle = await run(
        { ...c, reconcile: (req) => (seen.push(`${req.cluster}/${req.key.name}/${req.object?.metadata.uid ?? 'no object'}`), done()) },
        { logger: quiet, signals: false, http: false, shutdownDeadlineMs: 5_000 },
      );
      listed(inNs('a', 'east'), inNs('b', 'west'));
      await eventually('both listed keys reconciled', () => seen.length >= 2, { timeoutMs: 5_000 });
      expect(seen.sort()).toEqual(['east/a/u-a', 'west/b/u-b']);
      // A change in one cluster wakes only that cluster's key, and the reconciler reads the cache.
      shared.next({ type: 'applied', object: inNs('a', 'east', 'newer') });
      shared.next({ type: 'deleted', object: inNs('b', 'west') });
      await eventually('both changed keys reconciled', () => seen.length >= 4, { timeoutMs: 5_000 });
      expect(seen.slice(2).sort()).toEqual(['east/a/newer', 'west/b/no object']);
      expect(opened).toEqual([]);
      expect((await handle.stop()).reason).toBe('clean');
    });

    it('is ready only once the shared watch has listed, and not while it relists', async () => {
      const { c, shared, health, listed } = cached();
      const handle = await run(c, { logger: quiet, signals: false, http: false, shutdownDeadlineMs: 5_000 });
      const states = () => handle.health.report().clusters.map((cl) => [cl.cluster, cl.state]);
      const h = (synced: boolean, state: WatchHealth['state']): WatchHealth => ({ cluster: clusterName('shared'), resource: 'configmaps', state, synced, relists: 0, reconnects: 0, interruptions: 0 });
      health.next(h(false, 'listing'));
      expect(handle.health.report().ready).toBe(false);
      expect(states()).toEqual([
        ['east', 'syncing'],
        ['west', 'syncing'],
      ]);
      listed(inNs('a', 'east'));
      health.next(h(true, 'connected'));
      expect(states()).toEqual([
        ['east', 'synced'],
        ['west', 'synced'],
      ]);
      expect(handle.health.report().ready).toBe(true);
      // The shared watch failing makes every cluster it serves unhealthy, named after the cluster.
      health.next({ ...h(true, 'backingOff'), lastError: kubeError('Transient', clusterName('shared'), 'connection reset') });
      expect(states()).toEqual([
        ['east', 'unhealthy'],
        ['west', 'unhealthy'],
      ]);
      shared.complete();
      expect((await handle.stop()).reason).toBe('clean');
    });

    it('opens a watch of its own for a selection the cache does not serve', async () => {
      const { c, opened } = cached();
      const handle = await run({ ...c, select: { namespace: 'default' } }, { logger: quiet, signals: false, http: false, shutdownDeadlineMs: 5_000 });
      // The informers open as the clusters engage, which need not have happened when run() resolves.
      await eventually('both clusters watched', () => opened.length >= 2, { timeoutMs: 5_000 });
      expect(opened.sort()).toEqual(['east/configmaps', 'west/configmaps']);
      expect((await handle.stop()).reason).toBe('clean');
    });

    it('refuses the removed source option and says what replaced it', () => {
      const { c } = cached();
      expect(() => controller({ ...c, source: { events: NEVER } } as never)).toThrow(ConfigError);
      expect(() => controller({ ...c, source: { events: NEVER } } as never)).toThrow(/cache/);
    });
  });
});
