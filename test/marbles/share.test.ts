// Shared informers: one watch per (cluster, resource, selection), late subscribers get the cache
// first, and the watch stops (cache dropped) with the last subscriber, or after a linger.
import { describe, expect, it } from 'vitest';
import { takeUntil, timer } from 'rxjs';
import type { ConfigMap } from '../../src/index.js';
import { configMaps } from '../../src/index.js';
import type { ListerWatcher } from '../../src/streams/index.js';
import { createInformers } from '../../src/streams/index.js';
import { fakeCluster } from '../../src/testing/index.js';
import { cm, line, page, testScheduler } from './watch-fixtures.js';

const quiet = { streamingList: false, random: () => 1 } as const;

describe('shared informers', () => {
  it('should open one watch for many subscribers and close it when the last one leaves', () => {
    const ts = testScheduler();
    ts.run(({ cold, expectObservable, expectSubscriptions }) => {
      const list = cold('-a|', { a: page('10', [cm('a', '1')]) });
      const w = cold('--------b', { b: line('ADDED', cm('b', '11')) });
      let calls = 0;
      const source: ListerWatcher<ConfigMap> = {
        list: () => list,
        watch: () => {
          calls++;
          return w;
        },
      };
      const informers = createInformers({ ...quiet, scheduler: ts, listerWatcherFor: () => source as never });
      const east = fakeCluster('east');
      const inf = informers.informer(east, configMaps);
      expect(informers.informer(east, configMaps)).toBe(inf);
      expect(informers.informer(east, configMaps, { namespace: 'other' })).not.toBe(inf);
      const values = {
        s: { type: 'initStarted' },
        a: { type: 'initApply', object: cm('a', '1') },
        d: { type: 'initDone' },
        b: { type: 'applied', object: cm('b', '11') },
      };
      expectObservable(inf.events, '^-------------!').toBe('-(sad) 4ms b', values);
      // A late subscriber gets the cache as a listing first, then live events.
      expectObservable(inf.events, '----^-------------!').toBe('----(sad)-b', values);
      expectSubscriptions(list.subscriptions).toBe('^-!');
      expectSubscriptions(w.subscriptions).toBe('--^---------------!');
      ts.flush();
      expect(calls).toBe(1);
      expect(inf.store.size).toBe(0); // dropped with the watch
    });
  });

  it('should keep the watch for the linger period so an immediate resubscribe does not relist', () => {
    const ts = testScheduler();
    ts.run(({ cold, expectSubscriptions }) => {
      const list = cold('(a|)', { a: page('10', [cm('a', '1')]) });
      const w = cold('-');
      let lists = 0;
      const source: ListerWatcher<ConfigMap> = {
        list: () => {
          lists++;
          return list;
        },
        watch: () => w,
      };
      const informers = createInformers({ ...quiet, lingerMs: 100, scheduler: ts, listerWatcherFor: () => source as never });
      const inf = informers.informer(fakeCluster('east'), configMaps);
      const seen: string[] = [];
      // Subscriber 1 leaves at 10; subscriber 2 arrives at 50 (within the linger) and leaves at 60.
      inf.events.pipe(takeUntil(timer(10, ts))).subscribe();
      ts.schedule(() => inf.events.pipe(takeUntil(timer(10, ts))).subscribe((e) => seen.push(e.type)), 50);
      // The watch outlives subscriber 2 by the linger: closed at 160.
      expectSubscriptions(w.subscriptions).toBe('^ 159ms !');
      ts.flush();
      expect(lists).toBe(1);
      expect(seen).toEqual(['initStarted', 'initApply', 'initDone']);
    });
  });
});
