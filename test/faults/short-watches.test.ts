// Many short watch requests in a row: each asks the shared kube-apiserver for `timeoutSeconds=1`, so
// the server ends it cleanly every second while a writer creates, updates and deletes. Every end
// must resume from the last resourceVersion: many reconnects, all of them routine renewals (zero
// interruptions: a real server ends each watch no earlier than the timeoutSeconds it asked for),
// zero relists, zero failures, and the store exact with every write delivered and each delete seen once.
// The same against kcp: its own timeouts of a workspace's watch are renewals too.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Cluster } from '../../src/index.js';
import { configMaps } from '../../src/index.js';
import { createInformers } from '../../src/streams/index.js';
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
