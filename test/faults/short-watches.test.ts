// Many short watch requests in a row: each asks the shared kube-apiserver for `timeoutSeconds=1`, so
// the server ends it cleanly every second while a writer creates, updates and deletes. Every end
// must resume from the last resourceVersion: many reconnects, all of them routine renewals (zero
// interruptions: a real server ends each watch no earlier than the timeoutSeconds it asked for),
// zero relists, zero failures, and the store exact with every write delivered and each delete seen once.
// The same against kcp: its own timeouts of a workspace's watch are renewals too, and so are those
// of the APIExport provider's watches (its endpoint slice, the bindings and the shared wildcard
// watch of its virtual workspace) and of the initializing-workspaces provider's (its WorkspaceType,
// the LogicalClusters of the type's initializing virtual workspace), each request's end judged by
// the state machine's own rule.
import { defer, tap } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Cluster, KubeObject, ResourceDescriptor } from '../../src/index.js';
import { clusterName, configMaps } from '../../src/index.js';
import { randomBytes } from 'node:crypto';
import { apiExportProvider, initializingWorkspaceProvider } from '../../src/providers/kcp/index.js';
import type { ListerWatcher, ProviderReport } from '../../src/streams/index.js';
import { clusterListerWatcher, createFleet, createInformers } from '../../src/streams/index.js';
import { isKubeError } from '../../src/streams/watch-failing.js';
import { failedEnding, watchEnd } from '../../src/streams/watch-end.js';
import { setupApiExport } from '../support/kcp-apiexport.js';
import { createKcpWorkspace, kcpClusterKubeConfig } from '../support/kcp.js';
import { createInitializerType } from '../support/kcp-initializing.js';
import { sharedKcp, sharedKubeApiserver } from '../support/context.js';
import { clusterOf, recorder, storeMatchesServer } from './faults-support.js';
import { eventually, retrying } from '../support/wait.js';

const WATCHES = 10;
/** Writes per watch at most: more than one watch of a second takes at the delivery pace (so writes run up to each renewal and into the gap after it), and a bound on the total (WATCHES × this). */
const WRITES_PER_WATCH = 200;
let cluster: Cluster;
let namespace: string;

beforeAll(async () => {
  cluster = clusterOf('short-watches', sharedKubeApiserver().kubeconfigYaml('admin'));
  namespace = await sharedKubeApiserver().createNamespace('short');
});
afterAll(() => {
  cluster.client.close();
});

describe('watches the server ends every second', () => {
  it(`resumes ${WATCHES} times in a row without a relist, a failure or a lost event`, async () => {
    const informers = createInformers({ serverTimeoutSeconds: { min: 1, max: 1 }, backoff: { initialMs: 100, maxMs: 1_000 } });
    const inf = informers.informer(cluster, configMaps, { namespace });
    const rec = recorder();
    const hsub = inf.health.subscribe(rec.onHealth);
    const sub = inf.events.subscribe(rec.onEvent);
    const created: string[] = [];
    const deleted: string[] = [];
    try {
      await eventually('synced', () => (inf.store.synced(cluster.name) ? true : undefined), { timeoutMs: 30_000, intervalMs: 20 });
      // Writes in every watch and in the gaps between them, paced by the watch itself: each write's
      // update is seen before the next write, and each watch gets at most WRITES_PER_WATCH of them
      // before the loop waits for the server to end it. Bounded by count, whatever the pace.
      const reconnects = (): number => rec.latest()?.reconnects ?? 0;
      let i = 0;
      while (reconnects() < WATCHES) {
        const generation = reconnects();
        for (let k = 0; k < WRITES_PER_WATCH && reconnects() === generation; k++) {
          const name = `s-${i++}`;
          await retrying(`create ${name}`, () => cluster.client.create(configMaps, { metadata: { name, namespace }, data: { v: '1' } }));
          created.push(name);
          await retrying(`update ${name}`, () => cluster.client.patch(configMaps, name, { data: { v: '2' } }, { namespace, type: 'merge' }));
          if (i % 2 === 0) {
            const old = created[i - 2] ?? '';
            await retrying(`delete ${old}`, () => cluster.client.delete(configMaps, old, { namespace }));
            deleted.push(old);
          }
          await eventually(`update of ${name} delivered`, () => rec.versions.get(name)?.has('2'), { timeoutMs: 30_000, intervalMs: 5 });
        }
        await eventually(`watch ${generation + 1} renewed`, () => reconnects() > generation, { timeoutMs: 30_000, intervalMs: 20 });
      }
      await storeMatchesServer(inf.store, cluster.client, namespace, 30_000);
      const last = rec.latest();
      expect(last?.reconnects).toBeGreaterThanOrEqual(WATCHES);
      expect(last?.interruptions, 'interruptions (the server\'s timeouts are renewals)').toBe(0);
      expect(last?.relists, 'relists').toBe(0);
      expect(rec.health.filter((h) => h.failingSinceAt !== undefined || h.state === 'backingOff'), 'failures').toEqual([]);
      for (const name of created) {
        expect(rec.seen.has(name), `${name} seen`).toBe(true);
        expect([...(rec.versions.get(name) ?? [])], `versions of ${name}`).toContain('2');
      }
      for (const name of deleted) expect(rec.deletes.get(name), `deletes of ${name}`).toBe(1);
      expect([...rec.deletes.keys()].filter((n) => !deleted.includes(n)), 'deletes of objects nobody deleted').toEqual([]);
      console.log(JSON.stringify({ shortWatches: { writes: i, reconnects: last?.reconnects, interruptions: last?.interruptions, relists: last?.relists, objects: inf.store.size } }));
    } finally {
      sub.unsubscribe();
      hsub.unsubscribe();
    }
  });
});

describe('watches kcp ends every second', () => {
  it('counts each of kcp\'s own timeouts as a renewal, never an interruption', async () => {
    const ws = await sharedKcp().createWorkspace();
    const kcp = clusterOf('short-watches-kcp', ws.kubeConfig().exportConfig());
    const informers = createInformers({ serverTimeoutSeconds: { min: 1, max: 1 }, backoff: { initialMs: 100, maxMs: 1_000 } });
    const inf = informers.informer(kcp, configMaps, { namespace: 'default' });
    const rec = recorder();
    const hsub = inf.health.subscribe(rec.onHealth);
    const sub = inf.events.subscribe(rec.onEvent);
    try {
      // kcp ends each watch itself at the one second it asked for, as a kube-apiserver does.
      const last = await eventually(`${WATCHES} renewals`, () => ((rec.latest()?.reconnects ?? 0) >= WATCHES ? rec.latest() : undefined), { timeoutMs: 60_000, intervalMs: 50 });
      expect(last.interruptions, 'interruptions (kcp\'s timeouts are renewals)').toBe(0);
      expect(last.relists, 'relists').toBe(0);
      expect(rec.health.filter((h) => h.failingSinceAt !== undefined || h.state === 'backingOff'), 'failures').toEqual([]);
    } finally {
      sub.unsubscribe();
      hsub.unsubscribe();
      kcp.client.close();
    }
  });
});

/** How each watch request resumed from a resourceVersion ended, by resource, judged by `watchEnd`. */
interface Ends {
  readonly of: Map<string, string[]>;
  readonly listerWatcherFor: <T extends KubeObject>(cluster: Cluster, resource: ResourceDescriptor<T>) => ListerWatcher<T>;
}

function judgedEnds(): Ends {
  const of = new Map<string, string[]>();
  return {
    of,
    listerWatcherFor: (cluster, resource) => {
      const lw = clusterListerWatcher(cluster, resource);
      return {
        list: (o) => lw.list(o),
        watch: (o) =>
          defer(() => {
            // A streaming list's request is a listing (kcp's virtual workspace breaks those: a
            // fallback the state machine counts apart); the watches after it are what renews.
            if (o.sendInitialEvents === true) return lw.watch(o);
            const startedAt = Date.now();
            let lines = 0;
            const judge = (ending: 'clean' | 'failed' | 'unopened'): void => {
              const end = watchEnd({ ending, elapsedMs: Date.now() - startedAt, timeoutSeconds: o.timeoutSeconds ?? 0, lines });
              of.set(resource.plural, [...(of.get(resource.plural) ?? []), end]);
            };
            return lw.watch(o).pipe(
              tap({
                next: () => {
                  lines++;
                },
                complete: () => {
                  judge('clean');
                },
                error: (e: unknown) => {
                  judge(isKubeError(e) ? failedEnding(e, lines) : 'failed');
                },
              }),
            );
          }),
      };
    },
  };
}

describe('the APIExport provider\'s watches, kcp ending them every second', () => {
  it('counts each of kcp\'s own timeouts of the endpoint slice, binding and wildcard watches as a renewal, never an interruption', async () => {
    const fx = await setupApiExport(sharedKcp().adminKubeconfigPath, { consumers: 1 });
    const consumer = fx.consumers[0];
    if (consumer === undefined) throw new Error('fixture');
    const ends = judgedEnds();
    const managementWatch = { serverTimeoutSeconds: { min: 1, max: 1 }, backoff: { initialMs: 100, maxMs: 1_000 }, listerWatcherFor: ends.listerWatcherFor };
    const fleet = createFleet(apiExportProvider({ management: () => ({ yaml: fx.providerKubeconfig() }), managementWatch, exportName: fx.exportName }));
    const reports: ProviderReport[] = [];
    const rsub = fleet.reports.subscribe((r) => reports.push(r));
    const esub = fleet.engagements.subscribe();
    const rec = recorder();
    try {
      const cluster = await eventually('the consumer engaged', () => fleet.get(clusterName(consumer.logicalCluster)), { timeoutMs: 60_000, intervalMs: 50 });
      // The consumer's informer is a view of the provider's shared wildcard watch of widgets.
      const inf = createInformers().informer(cluster, fx.widgets);
      const hsub = inf.health.subscribe(rec.onHealth);
      const sub = inf.events.subscribe();
      try {
        const kinds = ['apiexportendpointslices', 'apibindings', fx.widgets.plural];
        await eventually(`${WATCHES} ends of each of ${kinds.join(', ')}`, () => (kinds.every((k) => (ends.of.get(k)?.length ?? 0) >= WATCHES) ? true : undefined), {
          timeoutMs: 90_000,
          intervalMs: 50,
          context: () => JSON.stringify(Object.fromEntries(ends.of)),
        });
        for (const k of kinds) expect(ends.of.get(k)?.filter((e) => e !== 'renewal'), `${k}: ends other than renewals`).toEqual([]);
        const last = rec.latest();
        expect(last?.shared, 'a view of the shared watch').toBeDefined();
        expect(last?.reconnects, 'the shared watch\'s renewals').toBeGreaterThanOrEqual(WATCHES);
        expect(last?.interruptions, 'interruptions (kcp\'s timeouts are renewals)').toBe(0);
        expect(rec.health.filter((h) => h.failingSinceAt !== undefined || h.state === 'backingOff'), 'failures').toEqual([]);
        expect(reports.filter((r) => r.type === 'source' || r.type === 'error'), 'provider reports of failing sources').toEqual([]);
        console.log(JSON.stringify({ apiExportShortWatches: { ends: Object.fromEntries([...ends.of].map(([k, v]) => [k, v.length])), sharedReconnects: last?.reconnects, interruptions: last?.interruptions } }));
      } finally {
        sub.unsubscribe();
        hsub.unsubscribe();
      }
    } finally {
      esub.unsubscribe();
      rsub.unsubscribe();
    }
  });
});

describe('the initializing-workspaces provider\'s watches, kcp ending them every second', () => {
  it('counts each of kcp\'s own timeouts of the WorkspaceType and initializing virtual workspace watches as a renewal', async () => {
    const admin = sharedKcp().adminKubeconfigPath;
    const home = await createKcpWorkspace(admin, `short-types-${randomBytes(3).toString('hex')}`);
    const homeKc = () => kcpClusterKubeConfig(admin, home.path);
    expect((await createInitializerType(homeKc(), 'tenant')).status).toBe(201);
    const ends = judgedEnds();
    const managementWatch = { serverTimeoutSeconds: { min: 1, max: 1 }, backoff: { initialMs: 100, maxMs: 1_000 }, listerWatcherFor: ends.listerWatcherFor };
    const fleet = createFleet(initializingWorkspaceProvider({ management: () => ({ yaml: homeKc().exportConfig() }), managementWatch, workspaceType: 'tenant' }));
    const reports: ProviderReport[] = [];
    const rsub = fleet.reports.subscribe((r) => reports.push(r));
    const esub = fleet.engagements.subscribe();
    try {
      const kinds = ['workspacetypes', 'logicalclusters'];
      await eventually(`${WATCHES} ends of each of ${kinds.join(', ')}`, () => (kinds.every((k) => (ends.of.get(k)?.length ?? 0) >= WATCHES) ? true : undefined), {
        timeoutMs: 90_000,
        intervalMs: 50,
        context: () => JSON.stringify(Object.fromEntries(ends.of)),
      });
      for (const k of kinds) expect(ends.of.get(k)?.filter((e) => e !== 'renewal'), `${k}: ends other than renewals`).toEqual([]);
      expect(reports.filter((r) => r.type === 'source' || r.type === 'error'), 'provider reports of failing sources').toEqual([]);
      console.log(JSON.stringify({ initializingShortWatches: { ends: Object.fromEntries([...ends.of].map(([k, v]) => [k, v.length])) } }));
    } finally {
      esub.unsubscribe();
      rsub.unsubscribe();
    }
  });
});
