// The fleet and its keyed stream: clusters come and go, each one's watch lives exactly as long as
// its engagement, keys never collide across clusters, and a broken cluster holds back no one.
import type { Observable } from 'rxjs';
import { takeUntil, timer } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { Cluster, ConfigMap } from '../../src/index.js';
import { clusterName, configMaps, formatKey } from '../../src/index.js';
import type { FleetEvent, KeyedEvent, ListerWatcher } from '../../src/streams/index.js';
import { createFleet, createInformers, disengaged, engaged, fleetWatch, staticProvider } from '../../src/streams/index.js';
import { fakeCluster } from '../../src/testing/index.js';
import { cm, err, line, page, testScheduler } from './watch-fixtures.js';

function describeEvent(ev: KeyedEvent<ConfigMap>): string {
  return ev.type === 'clusterRemoved' ? `clusterRemoved ${ev.cluster}` : `${ev.type} ${formatKey(ev.key)}`;
}

describe('fleet', () => {
  it('should merge clusters into one keyed stream and cut a disengaged cluster at once, with one clusterRemoved', () => {
    const ts = testScheduler();
    ts.run(({ cold, hot, expectSubscriptions }) => {
      const east = fakeCluster('east');
      const west = fakeCluster('west');
      const east2 = fakeCluster('east'); // same name, new credentials
      const watches = new Map<Cluster, Observable<string>>([
        [east, cold('---x------y', { x: line('ADDED', cm('b', '2')), y: line('ADDED', cm('late', '3')) })],
        [west, cold('-')],
        [east2, cold('-')],
      ]);
      const lists = new Map<Cluster, string>([
        [east, 'a'],
        [west, 'a'],
        [east2, 'c'],
      ]);
      const sourceFor = (c: Cluster): ListerWatcher<ConfigMap> => ({
        list: () => cold('(p|)', { p: page('1', [cm(lists.get(c) ?? '?', '1')]) }),
        watch: () => watches.get(c) ?? cold('-'),
      });
      const provider = hot<FleetEvent>('-a-b----c---e', {
        a: engaged(east),
        b: engaged(west),
        c: disengaged(clusterName('east')),
        e: engaged(east2),
      });
      const fleet = createFleet(provider);
      const informers = createInformers({ streamingList: false, scheduler: ts, listerWatcherFor: sourceFor as never });
      const seen: string[] = [];
      fleetWatch(fleet, configMaps, { informers })
        .pipe(takeUntil(timer(20, ts)))
        .subscribe((ev) => seen.push(`${ts.now()} ${describeEvent(ev)}`));
      expectSubscriptions((watches.get(east) as ReturnType<typeof cold>).subscriptions).toBe('-^------!');
      expectSubscriptions((watches.get(west) as ReturnType<typeof cold>).subscriptions).toBe('---^----------------!');
      expectSubscriptions((watches.get(east2) as ReturnType<typeof cold>).subscriptions).toBe('------------^-------!');
      expectSubscriptions(provider.subscriptions).toBe('^-------------------!');
      ts.flush();
      expect(seen).toEqual([
        '1 applied cluster://east/default/a',
        '3 applied cluster://west/default/a',
        '4 applied cluster://east/default/b',
        '8 clusterRemoved east',
        '12 applied cluster://east/default/c',
      ]);
      // Unsubscribed at 20: every cluster disengaged, the view is empty.
      expect(fleet.clusters()).toEqual([]);
      expect(informers.informer(east, configMaps).store.size).toBe(0);
    });
  });

  it('should tear the old watch down before the new one starts when a name is re-engaged', () => {
    const ts = testScheduler();
    ts.run(({ cold, hot, expectSubscriptions }) => {
      const old = fakeCluster('east');
      const renewed = fakeCluster('east');
      const oldWatch = cold('-');
      const newWatch = cold('-');
      const sourceFor = (c: Cluster): ListerWatcher<ConfigMap> => ({
        list: () => cold('(p|)', { p: page('1', []) }),
        watch: () => (c === old ? oldWatch : newWatch),
      });
      const provider = hot<FleetEvent>('-a--b', { a: engaged(old), b: engaged(renewed) });
      const fleet = createFleet(provider);
      const seen: string[] = [];
      fleetWatch(fleet, configMaps, { informers: createInformers({ streamingList: false, scheduler: ts, listerWatcherFor: sourceFor as never }) })
        .pipe(takeUntil(timer(10, ts)))
        .subscribe((ev) => seen.push(`${ts.now()} ${describeEvent(ev)}`));
      expectSubscriptions(oldWatch.subscriptions).toBe('-^--!');
      expectSubscriptions(newWatch.subscriptions).toBe('----^-----!');
      ts.flush();
      expect(seen).toEqual(['4 clusterRemoved east']);
    });
  });

  it('should not let an unreachable or forbidden cluster hold back the others', () => {
    const ts = testScheduler();
    ts.run(({ cold }) => {
      const broken = fakeCluster('broken');
      const fine = fakeCluster('fine');
      const sourceFor = (c: Cluster): ListerWatcher<ConfigMap> =>
        c === broken
          ? { list: () => cold('-#', undefined, err('Forbidden', { code: 403 })), watch: () => cold('-') }
          : { list: () => cold('(p|)', { p: page('1', [cm('a', '1')]) }), watch: () => cold('--x', { x: line('ADDED', cm('b', '2')) }) };
      const informers = createInformers({ streamingList: false, scheduler: ts, listerWatcherFor: sourceFor as never });
      const seen: string[] = [];
      fleetWatch(createFleet(staticProvider([broken, fine])), configMaps, { informers })
        .pipe(takeUntil(timer(60_000, ts)))
        .subscribe((ev) => seen.push(`${ts.now()} ${describeEvent(ev)}`));
      const health: string[] = [];
      informers
        .informer(broken, configMaps)
        .health.pipe(takeUntil(timer(60_000, ts)))
        .subscribe((h) => health.push(`${h.state} ${h.lastError?.type ?? '-'}`));
      ts.flush();
      expect(seen).toEqual(['0 applied cluster://fine/default/a', '2 applied cluster://fine/default/b']);
      expect(health).toContain('backingOff Forbidden');
    });
  });
});
