import { VirtualTimeScheduler } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { EMPTY } from 'rxjs';
import { matchesSelector, selectorProblem } from '../../src/core/selector.js';
import { clusterName, ConfigError, configMaps, controller, done, formatKey, objectKey } from '../../src/index.js';
import { fanOut } from '../../src/operators/index.js';
import { staticProvider } from '../../src/streams/index.js';
import type { Timed } from '../../src/operators/internal/deadline-heap.js';
import { DeadlineHeap } from '../../src/operators/internal/deadline-heap.js';
import { FairQueue } from '../../src/operators/internal/fair-queue.js';
import { Fifo } from '../../src/operators/internal/fifo.js';
import { clusterPrefix, forgetCluster } from '../../src/operators/internal/keys.js';
import { RateGate } from '../../src/operators/internal/rate-gate.js';
import { sameRecord } from '../../src/operators/internal/records.js';
import { Timers } from '../../src/operators/internal/timers.js';
import { backoffDelay } from '../../src/streams/backoff.js';
import { tokenBucket } from '../../src/core/token-bucket.js';

describe('the fair queue', () => {
  it('should serve the lane whose oldest item arrived first, across lanes', () => {
    const q = new FairQueue<string>();
    // A wave that reaches the lanes one after another is served in the order it arrived.
    let at = 0;
    for (const [lane, item] of [['a', 'a1'], ['b', 'b1'], ['a', 'a2'], ['c', 'c1'], ['b', 'b2'], ['a', 'a3']] as const) q.push(lane, item, at++);
    const order: (string | undefined)[] = [];
    while (q.size > 0) order.push(q.shift());
    expect(order).toEqual(['a1', 'b1', 'a2', 'c1', 'b2', 'a3']);
    expect(q.laneCount).toBe(0);
  });

  it('should serve items that became ready at one instant round-robin across lanes, and older instants first', () => {
    const q = new FairQueue<string>();
    // At 0, a replay readies a's three items, then b's three, then c's one; at 1, a fourth of a.
    for (const item of ['a1', 'a2', 'a3', 'b1', 'b2', 'b3', 'c1']) q.push(item.slice(0, 1), item, 0);
    q.push('a', 'a4', 1);
    const order: (string | undefined)[] = [];
    while (q.size > 0) order.push(q.shift());
    expect(order).toEqual(['a1', 'b1', 'c1', 'a2', 'b2', 'a3', 'b3', 'a4']);
  });

  it('should still serve a lane whose item waited longer before another lane\'s burst', () => {
    const q = new FairQueue<string>(1);
    q.push('a', 'a1', 0);
    q.push('a', 'a2', 0);
    for (const item of ['b1', 'b2', 'c1']) q.push(item.slice(0, 1), item, 5);
    const a = q.next();
    if (a === undefined) throw new Error('no lane in turn');
    expect(q.take(a)).toBe('a1');
    // a sits out at its cap; b's and c's burst goes round-robin; a2 (older) goes first once a may run.
    expect(q.shift()).toBe('b1');
    q.finish(a);
    expect([q.shift(), q.shift(), q.shift()]).toEqual(['a2', 'c1', 'b2']);
  });

  it('should give a quiet lane the next worker once a flooded lane is at its cap, however long the flood', () => {
    const q = new FairQueue<string>(2);
    for (let i = 0; i < 50_000; i++) q.push('noisy', `n${i}`, i);
    q.push('quiet', 'q', 50_000);
    const started: string[] = [];
    for (let lane = q.next(); lane !== undefined && started.length < 3; lane = q.next()) started.push(q.take(lane));
    // The flood's first two (older) take its share; the third worker goes to the quiet lane.
    expect(started).toEqual(['n0', 'n1', 'q']);
  });

  it('should drop a whole lane and keep the rest in order', () => {
    const q = new FairQueue<string>();
    q.push('a', 'a1', 0);
    q.push('b', 'b1', 1);
    q.push('a', 'a2', 2);
    expect(q.dropLane('a')).toEqual(['a1', 'a2']);
    expect(q.size).toBe(1);
    expect(q.shift()).toBe('b1');
    expect(q.dropLane('missing')).toEqual([]);
  });

  it('should sit a lane at its cap out until one of its items finishes, then order it by its oldest item again', () => {
    const q = new FairQueue<string>(2);
    for (let i = 1; i <= 4; i++) q.push('noisy', `n${i}`, i);
    const noisy = q.next();
    if (noisy === undefined) throw new Error('no lane in turn');
    expect([q.take(noisy), q.take(noisy)]).toEqual(['n1', 'n2']);
    // At its cap with items left: it sits out, but its items still count.
    expect(q.next()).toBeUndefined();
    expect(q.size).toBe(2);
    q.push('quiet', 'q1', 5);
    expect(q.next()?.name).toBe('quiet');
    q.finish(noisy);
    // It may run again: its n3 arrived before q1, so it goes first.
    expect(q.next()?.name).toBe('noisy');
    expect([q.shift(), q.shift(), q.shift()]).toEqual(['n3', 'n4', 'q1']);
    q.finish(noisy);
    expect(q.laneCount).toBe(0);
  });

  it('should keep a gated lane out of the rotation, still taking pushes, until it is ungated', () => {
    const q = new FairQueue<string>();
    q.push('a', 'a1', 0);
    q.push('b', 'b1', 1);
    const a = q.lane('a');
    if (a === undefined) throw new Error('no lane a');
    q.gate(a);
    q.push('a', 'a2', 2);
    expect(q.shift()).toBe('b1');
    expect(q.shift()).toBeUndefined();
    expect(q.size).toBe(2);
    expect(q.laneCount).toBe(1); // a gated lane is kept even when it has nothing to run
    q.ungate(a);
    expect([q.shift(), q.shift()]).toEqual(['a1', 'a2']);
    expect(q.laneCount).toBe(0);
  });

  it('should forget a dropped lane with its running count and gate', () => {
    const q = new FairQueue<string>(1);
    q.push('a', 'a1', 0);
    q.push('a', 'a2', 1);
    const a = q.next();
    if (a === undefined) throw new Error('no lane in turn');
    q.take(a);
    q.gate(a);
    expect(q.dropLane('a')).toEqual(['a2']);
    expect([q.size, q.laneCount]).toEqual([0, 0]);
    // The cluster comes back: a fresh lane, nothing running in it.
    q.push('a', 'a3', 2);
    expect(q.lane('a')?.running).toBe(0);
    expect(q.shift()).toBe('a3');
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

describe('timers', () => {
  it('should call due in deadline order, let an item be set again, and wake once per batch', () => {
    const clock = new VirtualTimeScheduler();
    const fired: string[] = [];
    let batches = 0;
    const timers = new Timers<Timed & { name: string; again?: number }>(
      clock,
      (item, now) => {
        fired.push(`${item.name}@${now}`);
        if (item.again !== undefined) {
          timers.set(item, item.again);
          delete item.again;
        }
      },
      () => batches++,
    );
    const item = (name: string, again?: number) => ({ ...{ at: 0, heapIndex: -1 }, name, ...(again === undefined ? {} : { again }) });
    timers.set(item('b'), 20);
    timers.set(item('a', 30), 10);
    const dropped = item('c');
    timers.set(dropped, 15);
    timers.cancel(dropped);
    clock.flush();
    expect(fired).toEqual(['a@10', 'b@20', 'a@30']);
    expect(batches).toBe(3);
    expect(timers.size).toBe(0);
  });
});

describe('backoff and rate', () => {
  it('should double from the initial delay up to the cap, without jitter', () => {
    const b = { initialMs: 5, factor: 2, maxMs: 1_000_000, jitter: 0 };
    expect([0, 1, 2, 3].map((n) => backoffDelay(b, n))).toEqual([5, 10, 20, 40]);
    expect(backoffDelay(b, 29)).toBe(1_000_000);
    expect(backoffDelay(b, 4999)).toBe(1_000_000);
  });

  it('should hand out the burst, then queue reservations one 1/qps apart, and take a token back', () => {
    const clock = new VirtualTimeScheduler();
    const bucket = tokenBucket({ qps: 10, burst: 2 }, clock);
    const waits = [bucket.reserve(), bucket.reserve(), bucket.reserve()];
    bucket.giveBack();
    clock.frame = 50;
    waits.push(bucket.reserve());
    clock.frame = 100;
    waits.push(bucket.reserve());
    expect(waits).toEqual([0, 0, 100, 50, 100]);
  });

  it('should wake the queue when the token it waited for is due, and give back a token nothing used', () => {
    const clock = new VirtualTimeScheduler();
    const bucket = tokenBucket({ qps: 10, burst: 1 }, clock);
    let woken = 0;
    const gate = new RateGate(bucket, clock, () => woken++);
    expect(gate.admit()).toBe(true);
    expect(gate.admit()).toBe(false);
    expect(gate.admit()).toBe(false);
    clock.flush();
    expect([woken, clock.frame]).toEqual([1, 100]);
    // Nothing was ready when the token came: it goes back, so the next taker has it at once.
    gate.release();
    expect(bucket.reserve()).toBe(0);
    expect(bucket.reserve()).toBe(100);
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

  it('should select nothing by an operator Kubernetes does not know, and refuse it where it is declared', () => {
    const lowerIn = { matchExpressions: [{ key: 'env', operator: 'in', values: ['prod'] }] };
    expect(matchesSelector(lowerIn, { env: 'prod' })).toBe(false);
    expect(selectorProblem(lowerIn)).toBe('matchExpressions[0] (env): operator "in" is not In, NotIn, Exists or DoesNotExist');
    expect(selectorProblem({ matchExpressions: [{ key: 'env', operator: 'In' }] })).toBe('matchExpressions[0] (env): In needs values');
    expect(selectorProblem({ matchExpressions: [{ key: 'env', operator: 'Exists' }] })).toBeUndefined();
    const spec = { name: 'c', provider: staticProvider([]), resource: configMaps, reconcile: () => done() };
    expect(() => controller({ ...spec, select: { clusterSelector: lowerIn } })).toThrow(new ConfigError('controller "c": `select.clusterSelector`: matchExpressions[0] (env): operator "in" is not In, NotIn, Exists or DoesNotExist'));
    expect(() => controller({ ...spec, writes: [{ resource: configMaps, clusterSelector: lowerIn }] })).toThrow(/`writes\[0\]\.clusterSelector`: matchExpressions\[0\] \(env\): operator "in"/);
    expect(() => fanOut({ fleetUpdates: EMPTY, clusterSelector: lowerIn, desired: () => 1 })).toThrow(new ConfigError('fanOut: `clusterSelector`: matchExpressions[0] (env): operator "in" is not In, NotIn, Exists or DoesNotExist'));
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
