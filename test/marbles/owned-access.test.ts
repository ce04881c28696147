// Ownership on every access path of a replica, through one gate: a request to a cluster this
// replica does not own (a read, a watch, a write, a sink's Event) is refused with `Fenced` naming
// the cluster and saying so; a lookup (ctx.fleet, an informer's store or events) serves nothing; a
// watch or view held since the cluster was owned ends when the cluster is revoked here.
import { firstValueFrom, from, NEVER, of } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { KubeError } from '../../src/core/errors.js';
import type { ClusterName, ConfigMap } from '../../src/index.js';
import { clusterName, configMaps, objectKey } from '../../src/index.js';
import { E } from '../../src/fp/index.js';
import { writeFence } from '../../src/runtime/ha/fence.js';
import { ownedAccess, ownedClient, ownedView } from '../../src/runtime/ha/owned-access.js';
import type { CacheView, Cluster } from '../../src/streams/index.js';
import { createStore } from '../../src/streams/store.js';
import type { Informer, Informers } from '../../src/streams/informers.js';
import { fakeCluster } from '../../src/testing/index.js';
import { testScheduler } from '../support/marbles.js';

const east = clusterName('east');
const west = clusterName('west');

/** A replica that runs `running` while `valid`. */
const replica = (running: Set<ClusterName>, lease = { valid: true }) => writeFence({ leaseValid: () => lease.valid, runs: (c) => running.has(c), identity: 'shard-a-1f2e3d' });

const expectRefused = (e: KubeError | undefined, cluster: ClusterName): void => {
  expect(e?.type).toBe('Fenced');
  expect(e?.cluster).toBe(cluster);
  expect(e?.message).toContain(`cluster "${cluster}"`);
  expect(e?.message).toContain('shard-a-1f2e3d');
  expect(e?.message).toContain('this replica does not own');
};

const left = <R>(r: E.Either<KubeError, R>): KubeError | undefined => (E.isLeft(r) ? r.left : undefined);

/** A view whose store holds one ConfigMap of `cluster` and whose events are `events`. */
const viewOf = (cluster: ClusterName, events: CacheView<ConfigMap>['events']): CacheView<ConfigMap> => {
  const store = createStore<ConfigMap>();
  store.apply(cluster, { type: 'initStarted' });
  store.apply(cluster, { type: 'initApply', object: { metadata: { name: 'settings', namespace: 'default' } } });
  store.apply(cluster, { type: 'initDone' });
  return { events, health: NEVER, store };
};
const settings = objectKey(east, 'default', 'settings');

describe('ownedClient', () => {
  it('should refuse reads, lists, GETs and writes of a cluster this replica does not run, and pass them while it does', async () => {
    const running = new Set<ClusterName>([east]);
    const fence = replica(running);
    const client = ownedClient(east, fakeCluster('east').client, fence);
    // Owned: the request reaches the cluster's client (a stub answering NotEngaged).
    expect(left(await client.get(configMaps, 'settings', { namespace: 'default' }))?.type).toBe('NotEngaged');
    running.delete(east);
    expectRefused(left(await client.get(configMaps, 'settings', { namespace: 'default' })), east);
    expectRefused(left(await client.list(configMaps)), east);
    expectRefused(left(await client.listAll(configMaps)), east);
    expectRefused(left(await client.raw({ method: 'GET', path: '/api/v1/namespaces' })), east);
    const write = left(await client.apply(configMaps, { metadata: { name: 'x', namespace: 'default' } }, { fieldManager: 'me' }));
    expect(write?.type).toBe('Fenced');
    expect(write?.message).toContain('may not write');
  });

  it('should refuse every read once the lease is not valid, owned cluster or not', async () => {
    const lease = { valid: true };
    const client = ownedClient(east, fakeCluster('east').client, replica(new Set([east]), lease));
    lease.valid = false;
    const refused = left(await client.get(configMaps, 'settings'));
    expectRefused(refused, east);
    expect(refused?.message).toContain('renew deadline');
  });

  it('should refuse a watch of a cluster not run here, and end a watch held since it was owned with the refusal when it is revoked', () => {
    const running = new Set<ClusterName>([east]);
    const fence = replica(running);
    testScheduler().run(({ cold, hot, expectObservable }) => {
      const client = ownedClient(east, { ...fakeCluster('east').client, watch: () => cold('a-b---------c') }, fence);
      const held = client.watch(configMaps);
      hot('----r').subscribe(() => {
        running.delete(east);
        fence.revoke(east);
      });
      expectObservable(held).toBe('a-b-#', undefined, fence.refusal(east, 'read'));
      expectObservable(hot('------s').pipe(() => client.watch(configMaps)), '------^').toBe('------#', undefined, fence.refusal(east, 'read'));
    });
  });

  it('should end a watch as the server ends it, so that the watch loop reconnects', () => {
    const fence = replica(new Set([east]));
    testScheduler().run(({ cold, expectObservable }) => {
      const client = ownedClient(east, { ...fakeCluster('east').client, watch: () => cold('a-b|') }, fence);
      expectObservable(client.watch(configMaps)).toBe('a-b|');
    });
  });

  it('should leave the watch of another cluster alone when one is revoked', () => {
    const running = new Set<ClusterName>([east, west]);
    const fence = replica(running);
    testScheduler().run(({ cold, hot, expectObservable }) => {
      const client = ownedClient(west, { ...fakeCluster('west').client, watch: () => cold('a---b') }, fence);
      hot('--r').subscribe(() => {
        running.delete(east);
        fence.revoke(east);
      });
      expectObservable(client.watch(configMaps)).toBe('a---b');
    });
  });
});

describe('ownedView', () => {
  it('should serve a held view while owned, end its events when the cluster is revoked, and read as empty after', () => {
    const running = new Set<ClusterName>([east]);
    const fence = replica(running);
    testScheduler().run(({ cold, hot, expectObservable }) => {
      const view = ownedView(viewOf(east, cold('a-b-------c', { a: { type: 'initStarted' }, b: { type: 'initDone' }, c: { type: 'initStarted' } })), east, fence);
      expect(view.store.get(settings)?.metadata.name).toBe('settings');
      hot('----r').subscribe(() => {
        running.delete(east);
        fence.revoke(east);
      });
      expectObservable(view.events).toBe('a-b-|', { a: { type: 'initStarted' }, b: { type: 'initDone' } });
      // Subscribed after the move: nothing at all.
      expectObservable(hot('------s').pipe(() => view.events), '------^').toBe('------|');
    });
    const view = ownedView(viewOf(east, NEVER), east, fence);
    expect(view.store.get(settings)).toBeUndefined();
    expect(view.store.list()).toEqual([]);
    expect(view.store.byIndex('cluster', east)).toEqual([]);
    expect(view.store.size).toBe(0);
    expect(view.store.synced(east)).toBe(false);
    expect(view.store.snapshot().list()).toEqual([]);
  });
});

describe('ownedAccess', () => {
  const eastCluster = fakeCluster('east');
  const westCluster = fakeCluster('west');

  it('should give ctx.fleet only the clusters owned now, and none while the lease is not valid', () => {
    const running = new Set<ClusterName>([east, west]);
    const lease = { valid: true };
    const access = ownedAccess(replica(running, lease), new Map());
    const fleet = access.fleet({ get: (n) => [eastCluster, westCluster].find((c) => c.name === n), clusters: () => [eastCluster, westCluster] });
    expect(fleet.get(east)).toBe(eastCluster);
    running.delete(east);
    expect(fleet.get(east)).toBeUndefined();
    expect(fleet.clusters().map((c) => c.name)).toEqual([west]);
    lease.valid = false;
    expect(fleet.get(west)).toBeUndefined();
    expect(fleet.clusters()).toEqual([]);
  });

  it('should refuse a sink write (an Event) to a cluster the provider engaged but another replica owns, and leave unknown clusters not engaged', async () => {
    const present = new Map<ClusterName, Cluster>([
      [east, eastCluster],
      [west, westCluster],
    ]);
    const access = ownedAccess(replica(new Set([west])), present);
    const sinks = access.sinkClusters({ get: (n) => (n === west ? westCluster : undefined), clusters: () => [westCluster] });
    expect(sinks.get(west)).toBe(westCluster);
    expect(sinks.get(clusterName('nowhere'))).toBeUndefined();
    const target = sinks.get(east);
    if (target === undefined) throw new Error('the sinks do not find east');
    expectRefused(left(await firstValueFrom(from(target.client.create(configMaps, { metadata: { name: 'e', namespace: 'default' } })))), east);
    expect(sinks.get(east)?.client).toBe(target.client);
  });

  it('should hand out a cluster whose client and cache views ask the gate', async () => {
    const running = new Set<ClusterName>([east]);
    const fence = replica(running);
    const cached: Cluster = { ...eastCluster, cache: { view: <T>() => viewOf(east, of({ type: 'initDone' as const })) as unknown as CacheView<T & ConfigMap> } };
    const guarded = ownedAccess(fence, new Map()).cluster(cached);
    const view = guarded.cache?.view(configMaps, {}, east);
    expect(view?.store.get(settings)).toBeDefined();
    running.delete(east);
    expect(view?.store.get(settings)).toBeUndefined();
    expectRefused(left(await guarded.client.get(configMaps, 'settings', { namespace: 'default' })), east);
  });

  it('should give the inputs informer handles that serve nothing once their cluster moved, the same handle each time', () => {
    const running = new Set<ClusterName>([east]);
    const inner: Informer<ConfigMap> = { cluster: eastCluster, resource: configMaps, ...viewOf(east, NEVER) };
    const informers: Informers = { informer: <T>() => inner as unknown as Informer<T & ConfigMap> };
    const owned = ownedAccess(replica(running), new Map()).informers(informers);
    const handle = owned.informer(eastCluster, configMaps);
    expect(owned.informer(eastCluster, configMaps)).toBe(handle);
    expect(handle.store.get(settings)).toBeDefined();
    expect(handle.cluster).toBe(eastCluster);
    running.delete(east);
    expect(handle.store.get(settings)).toBeUndefined();
    expect(handle.store.list()).toEqual([]);
  });
});
