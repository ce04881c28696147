// Leader election and sharding as a filter on the fleet: only owned clusters engage downstream, a
// view not yet confirmed by every member only lets clusters go, and a given-up cluster is
// disengaged before the coordination hears that the ownership took effect.
import { describe, expect, it } from 'vitest';
import type { ClusterName } from '../../src/index.js';
import { clusterName } from '../../src/index.js';
import type { FleetEvent } from '../../src/streams/index.js';
import { disengaged, engaged } from '../../src/streams/index.js';
import { fakeCluster } from '../../src/testing/index.js';
import type { Ownership } from '../../src/runtime/ha/owned-fleet.js';
import { ownedFleet } from '../../src/runtime/ha/owned-fleet.js';
import { testScheduler } from '../support/marbles.js';

const a = fakeCluster('a');
const b = fakeCluster('b');
const c = fakeCluster('c');
const shard = (view: string, confirmed: boolean, mine: readonly string[]): Ownership => ({ type: 'shard', view, confirmed, owns: (n) => mine.includes(n) });
const show = (e: FleetEvent): string => (e.type === 'engaged' ? `+${e.cluster.name}` : e.type === 'disengaged' ? `-${e.cluster}` : 'report');

describe('ownedFleet', () => {
  it('should engage every cluster while leading and disengage them all when the lease is lost', () => {
    testScheduler().run(({ hot, expectObservable }) => {
      const provider = hot<FleetEvent>('-a-b------c', { a: engaged(a), b: engaged(b), c: engaged(c) });
      const ownership = hot<Ownership>('---- l --- n -', { l: { type: 'all' }, n: { type: 'none', reason: 'lease lost: renew deadline passed' } });
      const running = new Set<ClusterName>();
      expectObservable(provider.pipe(ownedFleet(ownership, running))).toBe('----(ab)(xy)', {
        a: engaged(a),
        b: engaged(b),
        x: disengaged(clusterName('a'), 'lease lost: renew deadline passed'),
        y: disengaged(clusterName('b'), 'lease lost: renew deadline passed'),
      });
    });
  });

  it('should start a newly owned cluster only once the view is confirmed, but drop a lost one at once', () => {
    const seen: string[] = [];
    const applied: string[] = [];
    testScheduler().run(({ hot, cold }) => {
      const provider = cold<FleetEvent>('(abc)', { a: engaged(a), b: engaged(b), c: engaged(c) });
      const ownership = hot<Ownership>('-v--w---x', {
        v: shard('v1', true, ['a', 'b']),
        w: shard('v2', false, ['a', 'c']), // b moves away, c moves here: unconfirmed
        x: shard('v2', true, ['a', 'c']),
      });
      const running = new Set<ClusterName>();
      provider
        .pipe(
          ownedFleet(ownership, running, (o, moves) => {
            applied.push(`${o.type === 'shard' ? `${o.view}/${String(o.confirmed)}` : o.type} +${moves.taken} -${moves.given} running=${[...running].join(',')}`);
          }),
        )
        .subscribe((e) => seen.push(show(e)));
    });
    expect(seen).toEqual(['+a', '+b', '-b', '+c']);
    expect(applied).toEqual(['v1/true +2 -0 running=a,b', 'v2/false +0 -1 running=a', 'v2/true +1 -0 running=a,c']);
  });

  it('should pass reports and provider disengagements, and hold a cluster that arrives while the view is unconfirmed', () => {
    const seen: string[] = [];
    testScheduler().run(({ hot }) => {
      const provider = hot<FleetEvent>('-a---b-d--', { a: engaged(a), b: engaged(b), d: disengaged(clusterName('a'), 'gone') });
      const ownership = hot<Ownership>('v---w---x', { v: shard('v1', true, ['a', 'b']), w: shard('v1', false, ['a', 'b']), x: shard('v1', true, ['a', 'b']) });
      provider.pipe(ownedFleet(ownership, new Set())).subscribe((e) => seen.push(show(e)));
    });
    // b arrives at frame 5 with the view unconfirmed: it starts only at frame 8.
    expect(seen).toEqual(['+a', '-a', '+b']);
  });

  it('should disengage everything and forget what runs when unsubscribed', () => {
    const running = new Set<ClusterName>();
    testScheduler().run(({ hot, expectSubscriptions }) => {
      const provider = hot<FleetEvent>('-a-', { a: engaged(a) });
      const ownership = hot<Ownership>('l--', { l: { type: 'all' } });
      const sub = provider.pipe(ownedFleet(ownership, running)).subscribe();
      expectSubscriptions(provider.subscriptions).toBe('^-!');
      expectSubscriptions(ownership.subscriptions).toBe('^-!');
      hot('--x').subscribe(() => {
        expect(running.has(clusterName('a'))).toBe(true);
        sub.unsubscribe();
      });
    });
    expect(running.size).toBe(0);
  });
});
