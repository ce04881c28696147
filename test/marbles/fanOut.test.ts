import { describe, it } from 'vitest';
import type { ConfigMap } from '../../src/index.js';
import { clusterName, configMaps } from '../../src/index.js';
import type { FanOutItem } from '../../src/operators/index.js';
import { fanOut } from '../../src/operators/index.js';
import { disengaged, engaged } from '../../src/streams/cluster.js';
import type { KeyedEvent } from '../../src/streams/events.js';
import { fakeCluster, fakeFleet, fleetViews, keyedEvents } from '../../src/testing/index.js';
import { testScheduler } from '../support/marbles.js';

const ev = keyedEvents(configMaps);
const east = fakeCluster('east', { env: 'prod' });
const west = fakeCluster('west', { env: 'prod' });
const westDev = fakeCluster('west', { env: 'dev' });
const src = ev.key('hub', 'fleet/settings');
const copy = (cm: ConfigMap, c: { name: string }) => `${cm.data?.v ?? ''}@${c.name}`;
const desired = (cluster: string, object: string): FanOutItem<string> => ({ type: 'desired', cluster: clusterName(cluster), sourceKey: src, object });
const removed = (cluster: string): FanOutItem<string> => ({ type: 'removed', cluster: clusterName(cluster), sourceKey: src });

describe('fanOut', () => {
  it('should emit a desired copy for every matching engaged cluster, following source and fleet events', () => {
    testScheduler().run(({ hot, expectObservable }) => {
      const fleet = hot('e 9ms w 19ms x 9ms W', { e: engaged(east), w: engaged(west), x: disengaged(west.name), W: engaged(westDev) });
      const source = hot<KeyedEvent<ConfigMap>>('s 19ms t 29ms d', {
        s: ev.applied('hub', 'fleet/settings', { data: { v: '1' } }),
        t: ev.applied('hub', 'fleet/settings', { data: { v: '2' } }),
        d: ev.deleted('hub', 'fleet/settings'),
      });
      const out = source.pipe(fanOut({ fleetUpdates: fleet, clusterSelector: { matchLabels: { env: 'prod' } }, desired: copy }));
      // 0: east engaged, source seen → east. 10: west engaged → west only. 20: update → both.
      // 30: west leaves → nothing. 40: west back as dev → no copy. 50: delete → removal from east only.
      expectObservable(out).toBe('a 9ms b 9ms (cd) 26ms r', {
        a: desired('east', '1@east'),
        b: desired('west', '1@west'),
        c: desired('east', '2@east'),
        d: desired('west', '2@west'),
        r: removed('east'),
      });
    });
  });

  it('should place only the cluster an engagement names: a relabelled engagement that no longer matches removes its copy', () => {
    const eastDev = fakeCluster('east', { env: 'dev' });
    testScheduler().run(({ hot, expectObservable }) => {
      const fleet = hot('e 9ms w 9ms E', { e: engaged(east), w: engaged(west), E: engaged(eastDev) });
      const source = hot<KeyedEvent<ConfigMap>>('s', { s: ev.applied('hub', 'fleet/settings', { data: { v: '1' } }) });
      const out = source.pipe(fanOut({ fleetUpdates: fleet, clusterSelector: { matchLabels: { env: 'prod' } }, desired: copy }));
      // 10: west engaged → a copy for west only (east already has one). 20: east relabelled → removed.
      expectObservable(out).toBe('a 9ms b 9ms r', { a: desired('east', '1@east'), b: desired('west', '1@west'), r: removed('east') });
    });
  });

  it('should remove copies from clusters that stop matching, with fleet snapshots as input', () => {
    testScheduler().run(({ hot, expectObservable }) => {
      const fleet = hot('a 9ms b', { a: fakeFleet([east, west]), b: fakeFleet([east, westDev]) });
      const source = hot<KeyedEvent<ConfigMap>>('s', { s: ev.applied('hub', 'fleet/settings', { data: { v: '1' } }) });
      const out = source.pipe(fanOut({ fleetUpdates: fleet, clusterSelector: () => ({ matchExpressions: [{ key: 'env', operator: 'In', values: ['prod'] }] }), desired: copy }));
      expectObservable(out).toBe('(ab) 6ms r', { a: desired('east', '1@east'), b: desired('west', '1@west'), r: removed('west') });
    });
  });

  it('should forget the sources of a removed source cluster without removing their copies', () => {
    testScheduler().run(({ hot, expectObservable }) => {
      const fleet = hot('f 9ms w', { f: engaged(east), w: engaged(west) }).pipe(fleetViews());
      const source = hot<KeyedEvent<ConfigMap>>('s 4ms x', { s: ev.applied('hub', 'fleet/settings', { data: { v: '1' } }), x: ev.removed('hub') });
      expectObservable(source.pipe(fanOut({ fleetUpdates: fleet, clusterSelector: {}, desired: copy })), '^ 30ms !').toBe('a', { a: desired('east', '1@east') });
    });
  });

  it('should complete with its source and unsubscribe from the fleet', () => {
    testScheduler().run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const fleet = hot('f', { f: engaged(east) });
      const source = cold<KeyedEvent<ConfigMap>>('-s|', { s: ev.applied('hub', 'fleet/settings') });
      expectObservable(source.pipe(fanOut({ fleetUpdates: fleet, clusterSelector: {}, desired: copy }))).toBe('-a|', { a: desired('east', '@east') });
      expectSubscriptions(fleet.subscriptions).toBe('^-!');
    });
  });
});
