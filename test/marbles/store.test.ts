// The store: keys with the cluster, indexes, copy-on-write snapshots, synced flags, and exactly one
// delete per object that vanished across a relist.
import { describe, expect, it } from 'vitest';
import type { ConfigMap } from '../../src/index.js';
import { clusterName, objectKey } from '../../src/index.js';
import { createStore } from '../../src/streams/index.js';
import { cm, east, label, listing } from './watch-fixtures.js';

const west = clusterName('west');
describe('store', () => {
  it('should key by cluster so the same namespace/name in two clusters never collides', () => {
    const store = createStore<ConfigMap>();
    for (const ev of listing(cm('a', '1'))) store.apply(east, ev);
    for (const ev of listing(cm('a', '7'))) store.apply(west, ev);
    expect(store.size).toBe(2);
    expect(store.get(objectKey(east, 'default', 'a'))?.metadata.resourceVersion).toBe('1');
    expect(store.get(objectKey(west, 'default', 'a'))?.metadata.resourceVersion).toBe('7');
    expect(store.byIndex('cluster', 'west')).toHaveLength(1);
  });

  it('should not serve a listing until initDone, then delete exactly the vanished objects once', () => {
    const store = createStore<ConfigMap>();
    for (const ev of listing(cm('a', '1'), cm('b', '2'), cm('c', '3'))) store.apply(east, ev);
    expect(store.synced(east)).toBe(true);
    const out: string[] = [];
    for (const ev of [...listing(cm('b', '5')).slice(0, 2)]) out.push(...store.apply(east, ev).map(label));
    expect(store.size).toBe(3); // readers still see the previous state
    out.push(...store.apply(east, { type: 'initDone' }).map(label));
    expect(out).toEqual(['initStarted', 'initApply b', 'deleted a', 'deleted c', 'initDone']);
    expect(store.apply(east, { type: 'deleted', object: cm('a', '9') })).toEqual([]);
    expect(store.list().map((o) => o.metadata.resourceVersion)).toEqual(['5']);
  });

  it('should start a fresh buffer when a listing restarts half-way', () => {
    const store = createStore<ConfigMap>();
    store.apply(east, { type: 'initStarted' });
    store.apply(east, { type: 'initApply', object: cm('stale', '1') });
    for (const ev of listing(cm('a', '2'))) store.apply(east, ev);
    expect(store.list().map((o) => o.metadata.name)).toEqual(['a']);
  });

  it('should index by namespace, label and custom extractors, and keep indexes in step with updates', () => {
    const store = createStore<ConfigMap>({ indexers: { data: (o) => Object.keys(o.data ?? {}) } });
    store.apply(east, { type: 'applied', object: { ...cm('a', '1', 'ns1', { app: 'web' }), data: { k: 'v' } } });
    store.apply(east, { type: 'applied', object: cm('b', '2', 'ns2', { app: 'web' }) });
    expect(store.byIndex('namespace', 'ns1').map((o) => o.metadata.name)).toEqual(['a']);
    expect(store.byIndex('label', 'app=web')).toHaveLength(2);
    expect(store.byIndex('data', 'k')).toHaveLength(1);
    store.apply(east, { type: 'applied', object: cm('a', '3', 'ns1', { app: 'db' }) });
    expect(store.byIndex('label', 'app=web').map((o) => o.metadata.name)).toEqual(['b']);
    expect(store.byIndex('data', 'k')).toEqual([]);
    expect(store.byIndex('nope', 'x')).toEqual([]);
  });

  it('should keep a snapshot unchanged by later writes', () => {
    const store = createStore<ConfigMap>();
    store.apply(east, { type: 'applied', object: cm('a', '1', 'default', { app: 'web' }) });
    const snap = store.snapshot();
    store.apply(east, { type: 'applied', object: cm('b', '2', 'default', { app: 'web' }) });
    store.apply(east, { type: 'deleted', object: cm('a', '1') });
    expect(snap.list().map((o) => o.metadata.name)).toEqual(['a']);
    expect(snap.byIndex('label', 'app=web')).toHaveLength(1);
    expect(snap.size).toBe(1);
    expect(store.list().map((o) => o.metadata.name)).toEqual(['b']);
  });

  it('should replay a cluster as a listing and forget it on dropCluster', () => {
    const store = createStore<ConfigMap>();
    for (const ev of listing(cm('a', '1'))) store.apply(east, ev);
    for (const ev of listing(cm('z', '1'))) store.apply(west, ev);
    expect(store.replay(east).map(label)).toEqual(['initStarted', 'initApply a', 'initDone']);
    store.dropCluster(east);
    expect(store.replay(east)).toEqual([]);
    expect(store.synced(east)).toBe(false);
    expect(store.list().map((o) => o.metadata.name)).toEqual(['z']);
  });
});
