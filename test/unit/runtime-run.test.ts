// run() end to end without a server: injected watch sources stand in for the API, so the tests
// can hold a list back (readiness), hold a reconcile open (graceful stop) or answer 404 (a resource
// a cluster does not serve). The same behaviours are proven against real servers in
// test/integration/runtime.test.ts.
import { pino } from 'pino';
import type { Observable } from 'rxjs';
import { BehaviorSubject, defer, filter, finalize, firstValueFrom, NEVER, of, Subject, toArray } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { ConfigMap, KubeError, KubeObject, ObjectKey, ObjectList, ResourceDescriptor } from '../../src/index.js';
import { clusterName, configMaps, E, formatKey, kubeError, objectKey } from '../../src/index.js';
import { done } from '../../src/operators/index.js';
import type { KeyedEvent, WatchSource } from '../../src/streams/index.js';
import { staticProvider } from '../../src/streams/index.js';
import { fakeCluster } from '../../src/testing/index.js';
import type { ControllerReconciler, HealthReport, RunHandle } from '../../src/runtime/index.js';
import { ConfigError, controller, run } from '../../src/runtime/index.js';

type ListAnswer = Either404 | Observable<E.Either<KubeError, ObjectList>>;
type Either404 = 'notFound';

const cm = (name: string): ConfigMap => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default', uid: `u-${name}`, resourceVersion: '1' } });
const listOf = (...items: ConfigMap[]) => of(E.right({ metadata: { resourceVersion: '1' }, items }));

/** A source per cluster: the list answer the test chose, then a watch that stays open. */
function sources(answers: Record<string, ListAnswer>) {
  return <T extends KubeObject>(cluster: { name: string }, _r: ResourceDescriptor<T>): WatchSource<T> => ({
    list: () => {
      const a = answers[cluster.name] ?? listOf();
      if (a === 'notFound') return of(E.left(kubeError('NotFound', clusterName(cluster.name), 'the server could not find the requested resource', { code: 404 })));
      return a as Observable<E.Either<KubeError, ObjectList<T>>>;
    },
    watch: () => NEVER,
  });
}

const quiet = pino({ level: 'silent' });
const untilReport = (h: RunHandle, p: (r: HealthReport) => boolean) => firstValueFrom(h.health.changes.pipe(filter(p)));

function start(reconcile: ControllerReconciler<ConfigMap>, answers: Record<string, ListAnswer>, onUnsubscribe?: () => void) {
  const provider = staticProvider([fakeCluster('east'), fakeCluster('west')]).pipe(finalize(() => onUnsubscribe?.()));
  const c = controller({
    name: 'test',
    provider,
    resource: configMaps,
    reconcile,
    watchConfig: { streamingList: false, sourceFor: sources(answers) },
  });
  return run(c, { logger: quiet, signals: false, http: false, shutdownDeadlineMs: 5_000 });
}

describe('run', () => {
  it('should become ready only when every cluster has synced its cache', async () => {
    const westList = new Subject<E.Either<KubeError, ObjectList>>();
    const handle = await start(() => done(), { east: listOf(cm('a')), west: westList });
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
    while (signal === undefined) await new Promise((r) => setTimeout(r, 5));
    const result = await handle.stop({ deadlineMs: 50 });
    expect(result).toMatchObject({ reason: 'deadline', code: 1, aborted: 1 });
    expect(signal.aborted).toBe(true);
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
    expect(report.clusters.find((c) => c.cluster === 'east')).toMatchObject({ state: 'unhealthy', reason: expect.stringContaining('install its CRD') as unknown });
    while (seen.length === 0) await new Promise((r) => setTimeout(r, 5));
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
      watch: { clusters: (cl) => cl.name !== 'target' },
      watchConfig: { streamingList: false, sourceFor: sources({ east: listOf(cm('a')) }) },
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

  describe('with a source', () => {
    const east = clusterName('east');
    const west = clusterName('west');

    /** A source standing in for a shared cache (kcp's wildcard cache): events, reads and per-cluster sync. */
    function fakeSource() {
      const events = new Subject<KeyedEvent<ConfigMap>>();
      const objects = new Map<string, ConfigMap>();
      const synced = { east: new BehaviorSubject(false), west: new BehaviorSubject(false) };
      const opened: string[] = [];
      const c = controller({
        name: 'test',
        provider: staticProvider([fakeCluster('east'), fakeCluster('west')]),
        resource: configMaps,
        source: {
          events,
          lookup: (key: ObjectKey) => objects.get(formatKey(key)),
          synced: (cluster) => (cluster === east ? synced.east : synced.west),
        },
        reconcile: () => done(),
        // Any informer the runtime opened would list through here.
        watchConfig: {
          streamingList: false,
          sourceFor: (cluster, r) => {
            opened.push(`${cluster.name}/${r.plural}`);
            return sources({})(cluster, r);
          },
        },
      });
      return { c, events, objects, synced, opened };
    }

    it('should reconcile the source\'s keys with req.object read from its lookup, opening no primary watch', async () => {
      const { c, events, objects, opened } = fakeSource();
      const seen: string[] = [];
      const handle = await run(
        { ...c, reconcile: (req) => (seen.push(`${req.cluster}/${req.key.name}/${req.object?.metadata.uid ?? 'no object'}`), done()) },
        { logger: quiet, signals: false, http: false, shutdownDeadlineMs: 5_000 },
      );
      // The cache holds a newer object than the event carried: the reconciler gets the cache's.
      objects.set(formatKey(objectKey(east, 'default', 'a')), { ...cm('a'), metadata: { ...cm('a').metadata, uid: 'from-lookup' } });
      events.next({ type: 'applied', key: objectKey(east, 'default', 'a'), resource: configMaps, object: cm('a') });
      events.next({ type: 'deleted', key: objectKey(west, 'default', 'b'), resource: configMaps, object: cm('b') });
      while (seen.length < 2) await new Promise((r) => setTimeout(r, 5));
      expect(seen.sort()).toEqual(['east/a/from-lookup', 'west/b/no object']);
      expect(opened).toEqual([]);
      expect((await handle.stop()).reason).toBe('clean');
    });

    it('should be ready only while the source says every cluster has synced', async () => {
      const { c, synced } = fakeSource();
      const handle = await run(c, { logger: quiet, signals: false, http: false, shutdownDeadlineMs: 5_000 });
      const states = () => handle.health.report().clusters.map((cl) => [cl.cluster, cl.state]);
      expect(handle.health.report().ready).toBe(false);
      expect(states()).toEqual([
        ['east', 'syncing'],
        ['west', 'syncing'],
      ]);
      synced.east.next(true);
      expect(states()).toEqual([
        ['east', 'synced'],
        ['west', 'syncing'],
      ]);
      expect(handle.health.report().ready).toBe(false);
      synced.west.next(true);
      expect(handle.health.report().ready).toBe(true);
      synced.west.next(false); // e.g. the source relists after losing its watch
      expect(handle.health.report().ready).toBe(false);
      synced.west.next(true);
      expect(handle.health.report().ready).toBe(true);
      expect((await handle.stop()).reason).toBe('clean');
    });

    it('should count the source as synced from engagement when it cannot say, and ask only the clusters it serves', async () => {
      const base = fakeSource();
      const { synced: _s, ...noSynced } = base.c.source ?? { events: NEVER, lookup: () => undefined };
      const plain = await run({ ...base.c, source: noSynced }, { logger: quiet, signals: false, http: false, shutdownDeadlineMs: 5_000 });
      expect(plain.health.report()).toMatchObject({ ready: true, clusters: [{ cluster: 'east', state: 'synced' }, { cluster: 'west', state: 'synced' }] });
      await plain.stop();

      const served = fakeSource();
      const some = await run({ ...served.c, source: { ...(served.c.source ?? noSynced), clusters: (cl) => cl.name === 'east' } }, { logger: quiet, signals: false, http: false, shutdownDeadlineMs: 5_000 });
      expect(some.health.report().clusters.map((cl) => [cl.cluster, cl.state])).toEqual([
        ['east', 'syncing'],
        ['west', 'synced'],
      ]);
      served.synced.east.next(true);
      expect(some.health.report().ready).toBe(true);
      await some.stop();
    });

    it('should refuse a source without lookup, or together with watch', () => {
      const { c } = fakeSource();
      const { events } = c.source ?? { events: NEVER };
      expect(() => controller({ ...c, source: { events } as never })).toThrow(ConfigError);
      expect(() => controller({ ...c, watch: { namespace: 'default' } })).toThrow(/either `watch`.*or `source`/);
    });
  });
});
