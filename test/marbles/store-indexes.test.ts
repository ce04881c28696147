// Store indexes are built on their first query and kept up to date from then on: whatever the
// order of writes and queries, an index answers what a scan of the entries would.
import { describe, expect, it } from 'vitest';
import type { ConfigMap } from '../../src/index.js';
import { clusterName } from '../../src/index.js';
import type { StoreView } from '../../src/streams/index.js';
import { createStore } from '../../src/streams/index.js';
import { cm, east, listing } from './watch-fixtures.js';

const west = clusterName('west');
const names = (objs: readonly ConfigMap[]): string[] => objs.map((o) => `${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`).sort();
// What an index must answer: the entries whose indexer returns the value.
const scan = (view: StoreView<ConfigMap>, f: (o: ConfigMap) => readonly string[], value: string): string[] => names(view.list().filter((o) => f(o).includes(value)));
const app = (o: ConfigMap): readonly string[] => [o.metadata.labels?.app ?? ''];

describe('store indexes', () => {
  it('answers a first query after many writes, then follows updates, moves and deletes', () => {
    const store = createStore<ConfigMap>({ indexers: { app } });
    for (const ev of listing(cm('a', '1', 'n1', { app: 'web' }), cm('b', '1', 'n2', { app: 'web' }), cm('c', '1', 'n1', { app: 'db' }))) store.apply(east, ev);
    store.apply(east, { type: 'applied', object: cm('a', '2', 'n1', { app: 'db' }) });
    expect(names(store.byIndex('app', 'web'))).toEqual(['n2/b']);
    expect(names(store.byIndex('label', 'app=db'))).toEqual(['n1/a', 'n1/c']);
    expect(names(store.byIndex('namespace', 'n1'))).toEqual(['n1/a', 'n1/c']);
    // Built: from here on every write must keep them right.
    store.apply(east, { type: 'applied', object: cm('b', '2', 'n2', { app: 'db' }) });
    store.apply(east, { type: 'deleted', object: cm('c', '2', 'n1') });
    store.apply(west, { type: 'applied', object: cm('z', '1', 'n1', { app: 'web' }) });
    for (const value of ['web', 'db', '']) expect(names(store.byIndex('app', value))).toEqual(scan(store, app, value));
    expect(names(store.byIndex('label', 'app=db'))).toEqual(['n1/a', 'n2/b']);
    expect(names(store.byIndex('namespace', 'n1'))).toEqual(['n1/a', 'n1/z']);
    expect(names(store.byIndex('cluster', 'west'))).toEqual(['n1/z']);
  });

  it('keeps built indexes right across a relist that deletes and a dropped cluster', () => {
    const store = createStore<ConfigMap>();
    for (const ev of listing(cm('a', '1', 'n1', { app: 'web' }), cm('b', '1', 'n1', { app: 'web' }))) store.apply(east, ev);
    expect(store.byIndex('label', 'app=web')).toHaveLength(2);
    for (const ev of listing(cm('b', '2', 'n1', { app: 'db' }))) store.apply(east, ev);
    expect(store.byIndex('label', 'app=web')).toEqual([]);
    expect(names(store.byIndex('label', 'app=db'))).toEqual(['n1/b']);
    store.dropCluster(east);
    expect(store.byIndex('label', 'app=db')).toEqual([]);
    expect(store.byIndex('namespace', 'n1')).toEqual([]);
  });

  it('builds an index of a snapshot from the snapshot, not from later writes', () => {
    const store = createStore<ConfigMap>({ indexers: { app } });
    store.apply(east, { type: 'applied', object: cm('a', '1', 'n1', { app: 'web' }) });
    const before = store.snapshot();
    store.apply(east, { type: 'applied', object: cm('b', '1', 'n1', { app: 'web' }) });
    store.apply(east, { type: 'applied', object: cm('a', '2', 'n1', { app: 'db' }) });
    const after = store.snapshot();
    store.apply(east, { type: 'deleted', object: cm('b', '1', 'n1') });
    expect(names(before.byIndex('app', 'web'))).toEqual(['n1/a']);
    expect(names(after.byIndex('app', 'web'))).toEqual(['n1/b']);
    expect(names(store.byIndex('app', 'web'))).toEqual([]);
    expect(names(store.byIndex('app', 'db'))).toEqual(['n1/a']);
    // A snapshot taken with an index already built shares it until the next write.
    const shared = store.snapshot();
    store.apply(east, { type: 'applied', object: cm('c', '1', 'n1', { app: 'db' }) });
    expect(names(shared.byIndex('app', 'db'))).toEqual(['n1/a']);
    expect(names(store.byIndex('app', 'db'))).toEqual(['n1/a', 'n1/c']);
  });

  it('keys objects exactly as formatKey does, cluster names with slashes included', () => {
    const capi = clusterName('capi/prod');
    const store = createStore<ConfigMap>();
    store.apply(capi, { type: 'applied', object: cm('a', '1', 'n1') });
    expect(store.get('cluster://capi%2Fprod/n1/a')?.metadata.name).toBe('a');
    store.apply(capi, { type: 'deleted', object: cm('a', '1', 'n1') });
    expect(store.size).toBe(0);
  });
});
