import { describe, expect, it } from 'vitest';
import { clusterName, formatKey, objectKey } from '../../src/core/index.js';
import type { Timed } from '../../src/operators/internal/deadline-heap.js';
import { DeadlineHeap } from '../../src/operators/internal/deadline-heap.js';
import { FairQueue, Fifo } from '../../src/operators/internal/fair-queue.js';
import { clusterPrefix, forgetCluster } from '../../src/operators/internal/keys.js';
import { backoffDelay, takeToken } from '../../src/operators/internal/rate.js';
import { sameRecord } from '../../src/operators/internal/records.js';
import { matchesSelector } from '../../src/operators/internal/selector.js';

describe('the fair queue', () => {
  it('should serve lanes round-robin, one item per turn', () => {
    const q = new FairQueue<string>();
    for (let i = 1; i <= 5; i++) q.push('noisy', `n${i}`);
    q.push('quiet', 'q1');
    q.push('other', 'o1');
    const order: (string | undefined)[] = [];
    while (q.size > 0) order.push(q.shift());
    expect(order).toEqual(['n1', 'q1', 'o1', 'n2', 'n3', 'n4', 'n5']);
    expect(q.laneCount).toBe(0);
  });

  it('should bound the wait of a quiet lane by the number of busy lanes, however long the noisy one is', () => {
    const q = new FairQueue<string>();
    for (let i = 0; i < 50_000; i++) q.push('noisy', `n${i}`);
    q.push('quiet', 'q');
    let turns = 0;
    while (q.shift() !== 'q') turns++;
    expect(turns).toBe(1);
  });

  it('should drop a whole lane and keep the rest in order', () => {
    const q = new FairQueue<string>();
    q.push('a', 'a1');
    q.push('b', 'b1');
    q.push('a', 'a2');
    expect(q.dropLane('a')).toEqual(['a1', 'a2']);
    expect(q.size).toBe(1);
    expect(q.shift()).toBe('b1');
    expect(q.dropLane('missing')).toEqual([]);
  });

  it('fifo should stay first-in first-out across compactions', () => {
    const f = new Fifo<number>();
    for (let i = 0; i < 5000; i++) f.push(i);
    for (let i = 0; i < 3000; i++) expect(f.shift()).toBe(i);
    f.push(5000);
    expect(f.size).toBe(2001);
    expect(f.drain()[0]).toBe(3000);
    expect(f.shift()).toBeUndefined();
  });
});

describe('the deadline heap', () => {
  const item = (): Timed => ({ at: 0, heapIndex: -1 });

  it('should pop in deadline order and support removal from the middle', () => {
    const h = new DeadlineHeap<Timed & { n: number }>();
    const items = [50, 10, 40, 20, 30, 60, 0].map((at, n) => ({ ...item(), n, at }));
    for (const i of items) h.push(i, i.at);
    const forty = items[2];
    if (forty === undefined) throw new Error('fixture');
    h.remove(forty);
    h.remove(forty);
    expect(forty.heapIndex).toBe(-1);
    const out: number[] = [];
    for (let i = h.pop(); i !== undefined; i = h.pop()) out.push(i.at);
    expect(out).toEqual([0, 10, 20, 30, 50, 60]);
  });

  it('should keep heap order under random pushes and removals', () => {
    const h = new DeadlineHeap<Timed>();
    const live = new Set<Timed>();
    let seed = 7;
    const rnd = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let i = 0; i < 2000; i++) {
      if (rnd() < 0.6 || live.size === 0) {
        const t = item();
        h.push(t, Math.floor(rnd() * 1000));
        live.add(t);
      } else {
        const victim = [...live][Math.floor(rnd() * live.size)];
        if (victim !== undefined) {
          h.remove(victim);
          live.delete(victim);
        }
      }
    }
    expect(h.size).toBe(live.size);
    let last = -1;
    for (let t = h.pop(); t !== undefined; t = h.pop()) {
      expect(t.at).toBeGreaterThanOrEqual(last);
      last = t.at;
    }
  });
});

describe('backoff and rate', () => {
  it('should double from the base up to the cap', () => {
    const p = { base: 5, factor: 2, max: 1_000_000 };
    expect([1, 2, 3, 4].map((n) => backoffDelay(n, p))).toEqual([5, 10, 20, 40]);
    expect(backoffDelay(30, p)).toBe(1_000_000);
    expect(backoffDelay(5000, p)).toBe(1_000_000);
  });

  it('should hand out the burst, then one token per 1/qps seconds', () => {
    const limit = { qps: 10, burst: 2 };
    let b = { tokens: 2, last: 0 };
    const waits: number[] = [];
    for (const now of [0, 0, 0, 50, 100]) {
      const r = takeToken(b, limit, now);
      b = r.bucket;
      waits.push(r.wait);
    }
    expect(waits).toEqual([0, 0, 100, 50, 0]);
  });
});

describe('selectors, records and key prefixes', () => {
  it('should evaluate matchLabels and every matchExpressions operator', () => {
    const labels = { env: 'prod', region: 'eu' };
    expect(matchesSelector({}, labels)).toBe(true);
    expect(matchesSelector({ matchLabels: { env: 'prod' } }, labels)).toBe(true);
    expect(matchesSelector({ matchLabels: { env: 'dev' } }, labels)).toBe(false);
    expect(matchesSelector({ matchExpressions: [{ key: 'region', operator: 'In', values: ['eu', 'us'] }] }, labels)).toBe(true);
    expect(matchesSelector({ matchExpressions: [{ key: 'region', operator: 'NotIn', values: ['eu'] }] }, labels)).toBe(false);
    expect(matchesSelector({ matchExpressions: [{ key: 'zone', operator: 'NotIn', values: ['a'] }] }, labels)).toBe(true);
    expect(matchesSelector({ matchExpressions: [{ key: 'zone', operator: 'Exists' }] }, labels)).toBe(false);
    expect(matchesSelector({ matchExpressions: [{ key: 'zone', operator: 'DoesNotExist' }] }, labels)).toBe(true);
  });

  it('should compare records by entries', () => {
    expect(sameRecord(undefined, {})).toBe(true);
    expect(sameRecord({ a: '1' }, { a: '1' })).toBe(true);
    expect(sameRecord({ a: '1' }, { b: '1' })).toBe(false);
    expect(sameRecord({ a: '1' }, { a: '2' })).toBe(false);
  });

  it('should forget exactly the keys of one cluster, even when names share a prefix', () => {
    const k = (c: string, n: string) => formatKey(objectKey(clusterName(c), 'ns', n));
    const m = new Map([
      [k('east', 'a'), 1],
      [k('east-2', 'b'), 2],
      [k('capi/prod', 'c'), 3],
    ]);
    forgetCluster(m, clusterName('east'));
    expect([...m.values()]).toEqual([2, 3]);
    expect(clusterPrefix(clusterName('capi/prod'))).toBe('cluster://capi%2Fprod/');
  });
});
