// Warm take-over: a replica keeps the declared watches of the clusters it could take over open in
// the run's informers, up to a bound, and an engagement of such a cluster reads them as its cache,
// so its listing is a replay (no second list). Dropped with the provider's disengagement.
import { defer, NEVER } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { Cluster, ConfigMap, KubeObject, ResourceDescriptor } from '../../src/index.js';
import { clusterName, configMaps, objectKey } from '../../src/index.js';
import type { WatchEvent, ListerWatcher } from '../../src/streams/index.js';
import { createInformers } from '../../src/streams/index.js';
import type { Informer, InformerOptions, Informers } from '../../src/streams/informers.js';
import { createStore } from '../../src/streams/store.js';
import { fakeCluster } from '../../src/testing/index.js';
import type { WatchSpec } from '../../src/runtime/cluster-keeper.js';
import { warmCaches } from '../../src/runtime/ha/warm-caches.js';
import { ConfigError } from '../../src/index.js';
import { cm, page, testScheduler } from './watch-fixtures.js';

const east = fakeCluster('east');
const west = fakeCluster('west');
const hub = fakeCluster('hub', { role: 'hub' });
const spec: WatchSpec = { resource: configMaps, options: { labelSelector: 'app=web' } };
const hubsOnly: WatchSpec = { resource: configMaps, options: { namespace: 'kube-system', clusterSelector: { matchLabels: { role: 'hub' } } } };
const show = (e: WatchEvent<ConfigMap>): string => (e.type === 'initApply' || e.type === 'applied' || e.type === 'deleted' ? `${e.type} ${e.object.metadata.name ?? ''}` : e.type);

describe('warmCaches', () => {
  it('should keep the watches of at most maxClusters clusters, serve an engagement from them without a second list, and close them on drop', () => {
    const ts = testScheduler();
    ts.run(({ cold, hot, expectSubscriptions }) => {
      const lists: string[] = [];
      const watch = cold('-');
      const sourceFor = (c: Cluster): ListerWatcher<ConfigMap> => ({
        list: () => {
          lists.push(`${ts.now()} ${c.name}`);
          return cold('--(p|)', { p: page('1', [cm('a', '1')]) });
        },
        watch: () => watch,
      });
      const informers = createInformers({ streamingList: false, scheduler: ts, listerWatcherFor: sourceFor as never });
      const changes: string[] = [];
      const warm = warmCaches(informers, [spec], { maxClusters: 1 }, () => changes.push(`${ts.now()} kept ${warm.size()} synced ${warm.synced()}`));
      const seen: string[] = [];
      let engagedSub: { unsubscribe(): void } | undefined;
      hot('-k-----e---d').subscribe((step) => {
        if (step === 'k') {
          warm.keep(east);
          warm.keep(west); // beyond the bound: stays cold
        }
        if (step === 'e') {
          // The take-over: east's engagement asks its cache first, as the informers do.
          const view = warm.cacheOf(east)?.view(configMaps, { labelSelector: 'app=web' }, east.name);
          engagedSub = view?.events.subscribe((e) => seen.push(`${ts.now()} ${show(e)}`));
          expect(view?.store.get(objectKey(east.name, 'default', 'a'))?.metadata.name).toBe('a');
          expect(warm.cacheOf(west)).toBe(west.cache);
        }
        if (step === 'd') {
          engagedSub?.unsubscribe();
          warm.drop(east.name);
        }
      });
      expectSubscriptions(watch.subscriptions).toBe('---^-------!');
      ts.flush();
      expect(lists).toEqual(['1 east']);
      expect(seen).toEqual(['7 initStarted', '7 initApply a', '7 initDone']);
      expect(changes).toEqual(['1 kept 1 synced 0', '3 kept 1 synced 1', '11 kept 0 synced 0']);
    });
  });

  it('should open only the declared watches that select the cluster, once per selection', () => {
    const opened: string[] = [];
    const informers: Informers = {
      informer: <T extends KubeObject>(c: Cluster, r: ResourceDescriptor<T>, o: InformerOptions<T> = {}): Informer<T> => ({
        cluster: c,
        resource: r,
        events: defer(() => {
          opened.push(`${c.name} ${o.namespace ?? '*'} ${o.labelSelector ?? ''}`.trim());
          return NEVER;
        }),
        health: NEVER,
        store: createStore<T>(),
      }),
    };
    const warm = warmCaches(informers, [spec, spec, hubsOnly], { maxClusters: 10 });
    warm.keep(east);
    warm.keep(hub);
    expect(opened).toEqual(['east * app=web', 'hub * app=web', 'hub kube-system']);
    // A selection that was not kept warm is served by the provider's cache (none here): the informer watches on its own.
    expect(warm.cacheOf(east)?.view(configMaps, { namespace: 'other' }, east.name)).toBeUndefined();
    warm.close();
    expect(warm.size()).toBe(0);
  });

  it('should keep nothing when turned off, and refuse a bound that is not a whole number', () => {
    const warm = warmCaches(createInformers(), [spec], false);
    warm.keep(east);
    expect(warm.size()).toBe(0);
    expect(warm.cacheOf(east)).toBe(east.cache);
    expect(() => warmCaches(createInformers(), [spec], { maxClusters: 1.5 })).toThrow(ConfigError);
    expect(clusterName('east')).toBe(east.name);
  });
});
