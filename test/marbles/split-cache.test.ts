// One watch split into per-cluster views: each view behaves like an informer of its own cluster
// (listing, then live; relists with their deletes), the shared watch runs once for all views and
// stops with the last, and no view sees another cluster's objects.
import { describe, expect, it } from 'vitest';
import { NEVER, ReplaySubject } from 'rxjs';
import { clusterName, objectKey } from '../../src/index.js';
import type { WatchHealth } from '../../src/streams/index.js';
import { splitCache } from '../../src/streams/split-cache.js';
import { applied, byNamespace, cm, deleted, initDone as d, initApply, initStarted as s, testScheduler } from './watch-fixtures.js';

const a = clusterName('a');
const b = clusterName('b');

const a1 = cm('one', '1', 'a');
const a2 = cm('two', '2', 'a');
const b1 = cm('one', '3', 'b');
const b1v2 = cm('one', '4', 'b');

describe('split cache', () => {
  it('gives each cluster its own listing and only its own live events', () => {
    const ts = testScheduler();
    ts.run(({ cold, expectObservable, expectSubscriptions }) => {
      const shared = cold('-(sxyzd)--u--v', { s, x: initApply(a1), y: initApply(b1), z: initApply(a2), d, u: applied(b1v2), v: deleted(a2) });
      const split = splitCache({ events: shared, health: NEVER, scopeOf: byNamespace });
      const values = { s, d, x: initApply(a1), z: initApply(a2), y: initApply(b1), u: applied(b1v2), v: deleted(a2) };
      // Each cluster's listing starts at its first object and ends with the shared listing.
      expectObservable(split.view(a, a).events, '^-------------!').toBe('-(sxzd)------v', values);
      expectObservable(split.view(b, b).events, '^-------------!').toBe('-(syd)----u', values);
      // One watch for both views, stopped when the last view leaves.
      expectSubscriptions(shared.subscriptions).toBe('^-------------!');
    });
  });

  it('replays a late view from the cache and lists an empty cluster as synced', () => {
    const ts = testScheduler();
    ts.run(({ cold, expectObservable }) => {
      const shared = cold('-(sxd)---u', { s, x: initApply(a1), d, u: applied(b1) });
      const split = splitCache({ events: shared, health: NEVER, scopeOf: byNamespace });
      expectObservable(split.view(a, a).events, '^--------!').toBe('-(sxd)', { s, x: initApply(a1), d });
      // b has no object at its subscription: an empty listing, then its first object live.
      expectObservable(split.view(b, b).events, '---^------!').toBe('---(sd)--u', { s, d, u: applied(b1) });
      // A late view of a is replayed from the cache.
      expectObservable(split.view(a, a).events, '-----^---!').toBe('-----(sxd)', { s, x: initApply(a1), d });
    });
  });

  it('turns a relist of the shared watch into a relist of each cluster, with the deletes it implies', () => {
    const ts = testScheduler();
    ts.run(({ cold, expectObservable }) => {
      // The second listing no longer has a1 nor anything of b.
      const shared = cold('-(sxyd)--(szd)', { s, d, x: initApply(a1), y: initApply(b1), z: initApply(a2) });
      const split = splitCache({ events: shared, health: NEVER, scopeOf: byNamespace });
      expectObservable(split.view(a, a).events, '^-----------!').toBe('-(sxd)---(szrd)', { s, d, x: initApply(a1), z: initApply(a2), r: deleted(a1) });
      expectObservable(split.view(b, b).events, '^-----------!').toBe('-(syd)---(srd)', { s, d, y: initApply(b1), r: deleted(b1) });
    });
  });

  it('reads only its own cluster from the store, under the name the fleet knows it by', () => {
    const ts = testScheduler();
    ts.run(({ cold }) => {
      const shared = cold('(sxyd)', { s, x: initApply(a1), y: initApply(b1), d });
      const split = splitCache({ events: shared, health: NEVER, scopeOf: byNamespace });
      const path = clusterName('root:org:a');
      const view = split.view(a, path);
      const seen: string[] = [];
      const sub = view.events.subscribe((ev) => seen.push(ev.type));
      ts.flush();
      expect(seen).toEqual(['initStarted', 'initApply', 'initDone']);
      expect(view.store.get(objectKey(path, 'a', 'one'))).toEqual(a1);
      expect(view.store.get(objectKey(a, 'a', 'one'))).toBeUndefined();
      expect(view.store.list()).toEqual([a1]);
      expect(view.store.byIndex('cluster', path)).toEqual([a1]);
      expect(view.store.synced(path)).toBe(true);
      sub.unsubscribe();
    });
  });

  it('names the shared watch health after the viewing cluster, marked as the shared watch it is a view of', () => {
    const ts = testScheduler();
    ts.run(({ cold, expectObservable }) => {
      const h: WatchHealth = { cluster: clusterName('kcp-endpoint'), resource: 'configmaps', state: 'connected', synced: true, relists: 0, reconnects: 0, interruptions: 0 };
      const split = splitCache({ events: NEVER, health: cold('h', { h }), scopeOf: byNamespace });
      expectObservable(split.view(a, clusterName('root:a')).health).toBe('h', { h: { ...h, cluster: clusterName('root:a'), shared: { watch: clusterName('kcp-endpoint'), clusters: 0 } } });
    });
  });

  it('counts a view\'s relists, reconnects and interruptions from when the view began, not the shared watch\'s past', () => {
    const ts = testScheduler();
    ts.run(({ hot, expectObservable }) => {
      const at = (relists: number, reconnects: number, interruptions: number): WatchHealth => ({ cluster: clusterName('kcp-endpoint'), resource: 'configmaps', state: 'connected', synced: true, relists, reconnects, interruptions });
      // The shared watch's health replays its latest to a late view, as watched()'s does.
      const health = new ReplaySubject<WatchHealth>(1);
      hot('h-i--j', { h: at(1, 5, 2), i: at(1, 6, 3), j: at(2, 6, 3) }).subscribe(health);
      const split = splitCache({ events: NEVER, health, scopeOf: byNamespace });
      const counts = (v: number, r: number, i: number) => ({ ...at(v, r, i), cluster: clusterName('root:a'), shared: { watch: clusterName('kcp-endpoint'), clusters: 0 } });
      // A workspace engaged when the shared watch had already been interrupted twice starts at 0.
      expectObservable(split.view(a, clusterName('root:a')).health, '-^----').toBe('-ab--c', { a: counts(0, 0, 0), b: counts(0, 1, 1), c: counts(1, 1, 1) });
    });
  });

  it('empties the shared store when the last view leaves', () => {
    const ts = testScheduler();
    ts.run(({ cold, expectObservable }) => {
      const shared = cold('(sxd)', { s, x: initApply(a1), d });
      const split = splitCache({ events: shared, health: NEVER, scopeOf: byNamespace });
      const view = split.view(a, a);
      expectObservable(view.events, '^-!').toBe('(sxd)', { s, x: initApply(a1), d });
      ts.flush();
      expect(view.store.list()).toEqual([]);
      expect(view.store.synced(a)).toBe(false);
    });
  });
});
