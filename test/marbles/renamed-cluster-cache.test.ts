// A cluster served from a provider's shared cache, renamed on its way to the fleet (multiProvider's
// `<provider>#<cluster>`): the informer of the renamed cluster must key its objects, answer
// `synced` and name its health under the new name, or a controller reads `undefined` (meaning
// "deleted") for live objects and the cluster never becomes ready.
import type { Observable } from 'rxjs';
import { NEVER, of } from 'rxjs';
import type { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import { E } from '../../src/fp/index.js';
import type { KubeError, KubeObject, Namespace, ObjectList, ResourceDescriptor } from '../../src/index.js';
import { clusterName, configMaps, objectKey } from '../../src/index.js';
import { multiProvider } from '../../src/providers/multi/index.js';
import { namespaceProvider } from '../../src/providers/namespaces/index.js';
import type { Cluster, Provider, WatchHealth, ListerWatcher } from '../../src/streams/index.js';
import { createInformers } from '../../src/streams/index.js';
import { fakeCluster } from '../../src/testing/index.js';
import { cm, label, line, testScheduler } from './watch-fixtures.js';

const ns = (name: string): Namespace => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, uid: `u-${name}`, resourceVersion: '1' } });
const inA = cm('settings', '1', 'a');
const inB = cm('settings', '2', 'b');
const inAv2 = cm('settings', '3', 'a');

/**
 * The hub's API: two namespaces, a ConfigMap in each, and (on the hub's one ConfigMap watch) a
 * change of a's at frame 5. Watches the hub was asked for are recorded; none else may be opened.
 */
function hubApi(liveChanges: (frames: string, values: Record<string, string>) => Observable<string>) {
  const opened: string[] = [];
  const sourceFor = <T extends KubeObject>(cluster: Cluster, r: ResourceDescriptor<T>): ListerWatcher<T> => {
    opened.push(`${cluster.name} ${r.plural}`);
    const items = r.plural === 'namespaces' ? [ns('a'), ns('b')] : [inA, inB];
    return {
      list: () => of(E.right({ metadata: { resourceVersion: '1' }, items }) as E.Either<KubeError, ObjectList<T>>),
      watch: () => (r.plural === 'configmaps' ? liveChanges('-----x', { x: line('MODIFIED', inAv2) }) : NEVER),
    };
  };
  return { opened, sourceFor };
}

/**
 * Subscribes to `provider`, then reads `name`'s ConfigMaps through a fresh informer registry.
 * `flush` runs virtual time a fixed stretch (watches reconnect forever, so time never runs out).
 */
function informerOf(provider: Provider, name: string, flush: () => void) {
  const clusters = new Map<string, Cluster>();
  const sub = provider.subscribe((ev) => {
    if (ev.type === 'engaged') clusters.set(ev.cluster.name, ev.cluster);
  });
  flush();
  const cluster = clusters.get(name);
  if (cluster === undefined) throw new Error(`${name} not engaged; engaged: ${[...clusters.keys()].join(', ')}`);
  // An own watch of the informer would fail the test: the provider's cache must serve it.
  const informers = createInformers({ listerWatcherFor: () => ({ list: () => NEVER, watch: () => NEVER }) });
  const inf = informers.informer(cluster, configMaps);
  const seen: string[] = [];
  const health: WatchHealth[] = [];
  const subs = [sub, inf.events.subscribe((ev) => seen.push(label(ev))), inf.health.subscribe((h) => health.push(h))];
  const stop = (): void => {
    for (const s of subs) s.unsubscribe();
  };
  return { inf, seen, health, stop };
}

/** Runs virtual time 1,000 frames further on each call. */
function flushing(ts: TestScheduler): () => void {
  return () => {
    ts.maxFrames = ts.now() + 1_000;
    ts.flush();
  };
}

describe('a renamed cluster over a shared cache', () => {
  it('is keyed, synced and named under its fleet name inside multiProvider', () => {
    const ts = testScheduler();
    ts.run(({ cold }) => {
      const flush = flushing(ts);
      const hub = fakeCluster('hub');
      const api = hubApi(cold);
      const provider = multiProvider({ ns: namespaceProvider({ management: hub, managementWatch: { streamingList: false, listerWatcherFor: api.sourceFor } }) });
      const { inf, seen, health, stop } = informerOf(provider, 'ns#a', flush);
      flush();
      const name = clusterName('ns#a');
      // The listing, then the live change: a's objects only.
      expect(seen).toEqual(['initStarted', 'initApply settings', 'initDone', 'applied settings']);
      // Reads under the fleet name find the live object; the provider's own name finds nothing.
      expect(inf.store.get(objectKey(name, 'a', 'settings'))).toEqual(inAv2);
      expect(inf.store.get(objectKey(clusterName('a'), 'a', 'settings'))).toBeUndefined();
      expect(inf.store.list()).toEqual([inAv2]);
      expect(inf.store.byIndex('cluster', name)).toEqual([inAv2]);
      expect(inf.store.snapshot().get(objectKey(name, 'a', 'settings'))).toEqual(inAv2);
      expect(inf.store.synced(name)).toBe(true);
      // The shared watch's health, under the fleet name (what readiness looks the cluster up by).
      expect(health.length).toBeGreaterThan(0);
      expect(new Set(health.map((h) => h.cluster))).toEqual(new Set([name]));
      expect(health.at(-1)?.synced).toBe(true);
      // One Namespace watch and one ConfigMap watch on the hub, none of the informer's own.
      expect(api.opened.sort()).toEqual(['hub configmaps', 'hub namespaces']);
      stop();
    });
  });

  it('follows every rename of a nested multiProvider', () => {
    const ts = testScheduler();
    ts.run(({ cold }) => {
      const flush = flushing(ts);
      const api = hubApi(cold);
      const inner = multiProvider({ ns: namespaceProvider({ management: fakeCluster('hub'), managementWatch: { streamingList: false, listerWatcherFor: api.sourceFor } }) });
      const { inf, health, stop } = informerOf(multiProvider({ team: inner }, { separator: '/' }), 'team/ns#b', flush);
      flush();
      const name = clusterName('team/ns#b');
      expect(inf.store.get(objectKey(name, 'b', 'settings'))).toEqual(inB);
      expect(inf.store.synced(name)).toBe(true);
      expect(health.at(-1)).toMatchObject({ cluster: name, synced: true });
      stop();
    });
  });
});
