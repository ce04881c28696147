// Streams against the run's shared real servers: a large list then a burst of changes (both
// servers, streaming list and list-then-watch), kcp workspaces merged without key collisions, and a
// cluster disengaged mid-stream leaving no events, sockets or timers behind.
import { Subject, takeUntil } from 'rxjs';
import type { Subscription } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { Cluster, ConfigMap } from '../../src/index.js';
import { configMaps, formatKey } from '../../src/index.js';
import type { FleetEvent, KeyedEvent, WatchHealth, ListerWatcher } from '../../src/streams/index.js';
import { clusterListerWatcher, createFleet, createInformers, disengaged, engaged, fleetWatch, staticProvider } from '../../src/streams/index.js';
import { sharedKcp, sharedKubeApiserver } from '../support/context.js';
import { clusterFrom, configMap, listState, pool, storeMatchesServer } from './streams-support.js';
import { eventually, retrying } from '../support/wait.js';

interface Place {
  readonly cluster: Cluster;
  readonly namespace: string;
}

async function place(target: 'kcp' | 'kube-apiserver'): Promise<Place> {
  if (target === 'kcp') {
    const ws = await sharedKcp().createWorkspace();
    return { cluster: clusterFrom(ws.path, ws.kubeconfigYaml()), namespace: 'default' };
  }
  const server = sharedKubeApiserver();
  const namespace = await server.createNamespace('streams');
  return { cluster: clusterFrom('kube-apiserver', server.kubeconfigYaml('admin')), namespace };
}

/** The cluster's source, counting list calls and streaming watch requests. */
function counted(cluster: Cluster): { source: ListerWatcher<ConfigMap>; lists: () => number; streams: () => number } {
  const inner = clusterListerWatcher(cluster, configMaps);
  let lists = 0;
  let streams = 0;
  return {
    lists: () => lists,
    streams: () => streams,
    source: {
      list: (o) => {
        lists++;
        return inner.list(o);
      },
      watch: (o) => {
        if (o.sendInitialEvents === true) streams++;
        return inner.watch(o);
      },
    },
  };
}

const cases = [
  { target: 'kube-apiserver', streamingList: true },
  { target: 'kcp', streamingList: true },
  { target: 'kube-apiserver', streamingList: false },
  { target: 'kcp', streamingList: false },
] as const;

describe('streams on real servers', () => {
  it.each(cases)('should list 1,000 objects then follow 500 changes, ending equal to a fresh list ($target, streamingList=$streamingList)', async ({ target, streamingList }) => {
    const { cluster, namespace } = await place(target);
    const n = streamingList ? 1000 : 300; // the full size once per server; the fallback path with fewer objects
    try {
      const names = Array.from({ length: n }, (_, i) => `cm-${String(i).padStart(4, '0')}`);
      await pool(names, 16, async (name) => {
        await retrying(`create ${name}`, () => cluster.client.create(configMaps, configMap(name, namespace, { v: '0', pad: 'x'.repeat(900) })));
      });
      const src = counted(cluster);
      const informers = createInformers({ streamingList, listerWatcherFor: () => src.source as never });
      const inf = informers.informer(cluster, configMaps, { namespace });
      let health: WatchHealth | undefined;
      const hsub = inf.health.subscribe((h) => (health = h));
      const sub = inf.events.subscribe();
      try {
        await eventually('the initial listing', () => (inf.store.synced(cluster.name) ? true : undefined), { timeoutMs: 60_000 });
        // The default is to use streaming lists where the server has them; record which path ran.
        console.info(`${target} streamingList=${streamingList}: ${src.streams()} streaming watch(es), ${src.lists()} list call(s), lastError=${health?.lastError?.message ?? 'none'}`);
        // kcp's default namespace also holds kube-root-ca.crt: compare with the server, not with n.
        expect(inf.store.size).toBe((await listState(cluster.client, namespace)).size);
        expect(inf.store.size).toBeGreaterThanOrEqual(n);
        const changes = streamingList ? 500 : 150;
        const third = Math.floor(changes / 3);
        await pool(names.slice(0, third), 16, async (name) => {
          await retrying(`update ${name}`, () => cluster.client.patch(configMaps, name, { data: { v: '1' } }, { type: 'merge', namespace }));
        });
        await pool(names.slice(third, 2 * third), 16, async (name) => {
          await retrying(`delete ${name}`, () => cluster.client.delete(configMaps, name, { namespace }));
        });
        await pool(Array.from({ length: changes - 2 * third }, (_, i) => `new-${i}`), 16, async (name) => {
          await retrying(`create ${name}`, () => cluster.client.create(configMaps, configMap(name, namespace)));
        });
        await storeMatchesServer(inf.store, cluster.client, namespace, 60_000);
        expect(Object.isFrozen(inf.store.list()[0])).toBe(true);
        expect(inf.store.list()[0]?.metadata.managedFields).toBeUndefined();
        expect(health?.state).toBe('connected');
      } finally {
        sub.unsubscribe();
        hsub.unsubscribe();
      }
    } finally {
      cluster.client.close();
    }
  });

  it('should merge three kcp workspaces into one keyed stream where the same namespace/name never collides', async () => {
    const kcp = sharedKcp();
    const wss = await Promise.all([kcp.createWorkspace(), kcp.createWorkspace(), kcp.createWorkspace()]);
    const clusters = wss.map((ws) => clusterFrom(ws.path, ws.kubeconfigYaml()));
    try {
      await Promise.all(clusters.map((c, i) => retrying('create same', () => c.client.create(configMaps, configMap('same', 'default', { from: String(i) })))));
      const seen = new Map<string, KeyedEvent<ConfigMap>>();
      const sub = fleetWatch(createFleet(staticProvider(clusters)), configMaps, { namespace: 'default' }).subscribe((ev) => {
        if (ev.type === 'applied' && ev.key.name === 'same') seen.set(formatKey(ev.key), ev);
      });
      try {
        await eventually('three keys for default/same', () => (seen.size === 3 ? true : undefined), { timeoutMs: 60_000 });
        expect([...seen.keys()].sort()).toEqual(clusters.map((c) => `cluster://${encodeURIComponent(c.name)}/default/same`).sort());
        for (const [i, c] of clusters.entries()) {
          const ev = seen.get(`cluster://${encodeURIComponent(c.name)}/default/same`);
          expect(ev?.type === 'applied' ? ev.object.data?.from : undefined).toBe(String(i));
        }
        // A change in one workspace arrives under that workspace's key only.
        const second = clusters[1];
        if (second === undefined) throw new Error('three clusters');
        await retrying('patch', () => second.client.patch(configMaps, 'same', { data: { from: 'changed' } }, { type: 'merge', namespace: 'default' }));
        await eventually('the change under the second key', () => {
          const ev = seen.get(`cluster://${encodeURIComponent(second.name)}/default/same`);
          return ev?.type === 'applied' && ev.object.data?.from === 'changed' ? true : undefined;
        });
        expect(seen.get(`cluster://${encodeURIComponent((clusters[0]?.name ?? ''))}/default/same`)?.type === 'applied').toBe(true);
      } finally {
        sub.unsubscribe();
      }
    } finally {
      for (const c of clusters) c.client.close();
    }
  });

  it('should cut a disengaged cluster at once: one clusterRemoved, no later event, sockets and timers back to baseline', async () => {
    const kinds = ['TLSWrap', 'TCPSocketWrap', 'Timeout'];
    const count = (): Record<string, number> => {
      const out: Record<string, number> = Object.fromEntries(kinds.map((k) => [k, 0]));
      for (const r of process.getActiveResourcesInfo()) if (r in out) out[r] = (out[r] ?? 0) + 1;
      return out;
    };
    const a = await place('kcp');
    const b = await place('kube-apiserver');
    // Let the harness's own requests finish before taking the baseline. Node 24 lists TLS sockets as
    // TCPSocketWrap (never TLSWrap), so both are waited for; idle keep-alive sockets are not listed.
    const sockets = (): number => (count().TLSWrap ?? 0) + (count().TCPSocketWrap ?? 0);
    await eventually('a quiet baseline', () => (sockets() === 0 ? true : undefined), { timeoutMs: 30_000, intervalMs: 100 }).catch(() => true);
    const baseline = count();
    const provider = new Subject<FleetEvent>();
    const fleet = createFleet(provider);
    const events: { ev: KeyedEvent<ConfigMap>; at: number }[] = [];
    const stop = new Subject<void>();
    const informers = createInformers();
    const health: WatchHealth[] = [];
    let sub: Subscription | undefined;
    try {
      sub = fleetWatch(fleet, configMaps, { informers }).pipe(takeUntil(stop)).subscribe((ev) => events.push({ ev, at: Date.now() }));
      provider.next(engaged(a.cluster));
      provider.next(engaged(b.cluster));
      informers.informer(a.cluster, configMaps).health.subscribe((h) => health.push(h));
      await retrying('create in a', () => a.cluster.client.create(configMaps, configMap('before', a.namespace)));
      await retrying('create in b', () => b.cluster.client.create(configMaps, configMap('before', b.namespace)));
      const hasKey = (c: Cluster, name: string): boolean => events.some(({ ev }) => ev.type === 'applied' && ev.key.cluster === c.name && ev.key.name === name);
      await eventually('events from both clusters', () => (hasKey(a.cluster, 'before') && hasKey(b.cluster, 'before') ? true : undefined));

      provider.next(disengaged(a.cluster.name, 'test'));
      const removedAt = events.length;
      expect(events.slice(removedAt - 1).map(({ ev }) => ev.type)).toEqual(['clusterRemoved']);
      expect(informers.informer(a.cluster, configMaps).store.size).toBe(0);
      expect(fleet.get(a.cluster.name)).toBeUndefined();

      await retrying('create after in a', () => a.cluster.client.create(configMaps, configMap('after', a.namespace)));
      await retrying('create after in b', () => b.cluster.client.create(configMaps, configMap('after', b.namespace)));
      await eventually('b to go on', () => (hasKey(b.cluster, 'after') ? true : undefined));
      const forA = events.slice(removedAt).filter(({ ev }) => ev.type !== 'clusterRemoved' && ev.key.cluster === a.cluster.name);
      expect(forA).toEqual([]);
      expect(events.filter(({ ev }) => ev.type === 'clusterRemoved')).toHaveLength(1);
    } finally {
      stop.next();
      sub?.unsubscribe();
      a.cluster.client.close();
      b.cluster.client.close();
    }
    let now = count();
    await eventually(
      'sockets and timers back to baseline',
      () => {
        now = count();
        return kinds.every((k) => (now[k] ?? 0) <= (baseline[k] ?? 0)) ? true : undefined;
      },
      { timeoutMs: 15_000, intervalMs: 100 },
    ).catch((e: unknown) => {
      throw new Error(`${e instanceof Error ? e.message : String(e)}: baseline ${JSON.stringify(baseline)}, now ${JSON.stringify(now)}`);
    });
    expect(health.length).toBeGreaterThan(0);
  });
});
