// `reconcile`'s queue: one run per key at a time that sees the latest object, at most `concurrency`
// runs, debounce with a max wait, pacing by a token bucket, enqueue requests for any cluster; its
// configuration, an error of its input, and outcome labels. Order across clusters, retries and
// errors, and what it drops and ends are pinned in reconcile-order, -retry and -teardown.
import { describe, expect, it } from 'vitest';
import type { ConfigMap, ReconcileInput } from '../../src/index.js';
import { ConfigError, configMaps, done, requeueAfter } from '../../src/index.js';
import type { Outcome, QueueDepth } from '../../src/operators/index.js';
import { reconcile } from '../../src/operators/index.js';
import { keyedEvents, outcomeLabel, recorder, takes, toLabels } from '../../src/testing/index.js';
import { testScheduler } from '../support/marbles.js';

const ev = keyedEvents(configMaps);

describe('reconcile', () => {
  it('should collapse adds for a pending key into one run that sees the latest object', () => {
    const rec = recorder<ConfigMap>(takes(10));
    testScheduler().run(({ hot, expectObservable }) => {
      const input = hot<ReconcileInput<ConfigMap>>('a b c d', {
        a: ev.applied('east', 'default/a'),
        b: ev.applied('east', 'default/b', { data: { v: '1' } }),
        c: ev.applied('east', 'default/b', { data: { v: '2' } }),
        d: ev.applied('east', 'default/b', { data: { v: '3' } }),
      });
      expectObservable(input.pipe(reconcile(rec.reconciler, { concurrency: 1 }), toLabels())).toBe('10ms x 9ms y', {
        x: 'done east/default/a',
        y: 'done east/default/b',
      });
    });
    expect(rec.calls.map((c) => [c.key.name, c.startedAt, c.object?.data?.v])).toEqual([
      ['a', 0, undefined],
      ['b', 10, '3'],
    ]);
  });

  it('should never run a key twice at once, and run it exactly once more after a change in flight', () => {
    const rec = recorder<ConfigMap>(takes(10));
    testScheduler().run(({ hot, expectObservable }) => {
      const input = hot<ReconcileInput<ConfigMap>>('a 2ms b 1ms c', {
        a: ev.applied('east', 'default/a', { data: { v: '1' } }),
        b: ev.applied('east', 'default/a', { data: { v: '2' } }),
        c: ev.applied('east', 'default/a', { data: { v: '3' } }),
      });
      expectObservable(input.pipe(reconcile(rec.reconciler, { concurrency: 10 }), toLabels())).toBe('10ms x 9ms x', {
        x: 'done east/default/a',
      });
    });
    expect(rec.maxInFlightPerKey()).toBe(1);
    expect(rec.calls.map((c) => [c.startedAt, c.endedAt, c.object?.data?.v])).toEqual([
      [0, 10, '1'],
      [10, 20, '3'],
    ]);
  });

  it('should run at most `concurrency` reconciles at once', () => {
    const depths: QueueDepth[] = [];
    testScheduler().run(({ hot, expectObservable }) => {
      const input = hot<ReconcileInput<ConfigMap>>('(abc)', {
        a: ev.applied('east', 'default/a'),
        b: ev.applied('east', 'default/b'),
        c: ev.applied('west', 'default/c'),
      });
      // No per-cluster cap below the total here (the default would allow east only 1 of 2).
      const out = input.pipe(reconcile(takes(10), { concurrency: 2, perClusterConcurrency: 2, onDepth: (d) => depths.push(d) }), toLabels());
      expectObservable(out).toBe('10ms (xy) 6ms z', { x: 'done east/default/a', y: 'done east/default/b', z: 'done west/default/c' });
    });
    expect(Math.max(...depths.map((d) => d.running))).toBe(2);
    expect(depths.at(-1)).toEqual({ keys: 0, ready: 0, running: 0, waiting: 0 });
  });

  it('should debounce a key that keeps changing, but run it no later than the max wait', () => {
    const rec = recorder<ConfigMap>(() => done());
    testScheduler().run(({ hot, expectObservable }) => {
      // Changes every 4 frames or less: a plain 5-frame debounce would never fire.
      const input = hot<ReconcileInput<ConfigMap>>('a 3ms a 3ms a 1ms a 3ms a 2ms b', {
        a: ev.applied('east', 'default/a'),
        b: ev.applied('east', 'default/b'),
      });
      const out = input.pipe(reconcile(rec.reconciler, { debounce: { waitMs: 5, maxWaitMs: 12 } }), toLabels());
      expectObservable(out).toBe('12ms x 6ms x 2ms y', { x: 'done east/default/a', y: 'done east/default/b' });
    });
    expect(rec.calls.map((c) => [c.key.name, c.startedAt])).toEqual([
      ['a', 12],
      ['a', 19],
      ['b', 22],
    ]);
  });

  it('should give the reconciler the latest state: from lookup, else the latest event, undefined after delete', () => {
    const store = new Map<string, ConfigMap>([['a', ev.object('east', 'default/a', { data: { from: 'store' } })]]);
    const seen: (string | undefined)[] = [];
    testScheduler().run(({ hot, expectObservable }) => {
      const input = hot<ReconcileInput<ConfigMap>>('a 9ms d 9ms q', {
        a: ev.applied('east', 'default/a', { data: { from: 'event' } }),
        d: ev.deleted('east', 'default/a'),
        q: ev.enqueue('east', 'default/a'),
      });
      const withEvents = input.pipe(reconcile((req) => (seen.push(req.object?.data?.from), done())));
      const withLookup = input.pipe(reconcile((req) => (seen.push(req.object?.data?.from), done()), { lookup: (k) => store.get(k.name) }));
      expectObservable(withEvents.pipe(toLabels())).toBe('a 9ms a 9ms a', { a: 'done east/default/a' });
      expectObservable(withLookup.pipe(toLabels())).toBe('a 9ms a 9ms a', { a: 'done east/default/a' });
    });
    // Subscriptions interleave per frame: events-driven first, then lookup-driven.
    expect(seen).toEqual(['event', 'store', undefined, 'store', undefined, 'store']);
  });

  it('should accept enqueue requests for keys in any cluster', () => {
    testScheduler().run(({ hot, expectObservable }) => {
      const input = hot<ReconcileInput<ConfigMap>>('a b', { a: ev.enqueue('west', 'default/a'), b: ev.enqueue('hub', 'x') });
      expectObservable(input.pipe(reconcile(() => done()), toLabels())).toBe('a b', { a: 'done west/default/a', b: 'done hub/x' });
    });
  });

  it('should pace starts with the optional token bucket', () => {
    const rec = recorder<ConfigMap>(() => done());
    testScheduler().run(({ hot, expectObservable }) => {
      const input = hot<ReconcileInput<ConfigMap>>('(abcd)', {
        a: ev.applied('east', 'default/a'),
        b: ev.applied('east', 'default/b'),
        c: ev.applied('east', 'default/c'),
        d: ev.applied('east', 'default/d'),
      });
      // 100 qps = one token per 10 ms, two saved up.
      const out = input.pipe(reconcile(rec.reconciler, { rateLimit: { qps: 100, burst: 2 } }), toLabels());
      expectObservable(out, '^ 50ms !').toBe('(ab) 6ms c 9ms d', {
        a: 'done east/default/a',
        b: 'done east/default/b',
        c: 'done east/default/c',
        d: 'done east/default/d',
      });
    });
    expect(rec.calls.map((c) => c.startedAt)).toEqual([0, 0, 10, 20]);
  });

  it('should refuse a config with a zero concurrency or negative delays', () => {
    expect(() => reconcile(() => done(), { concurrency: 0 })).toThrow(ConfigError);
    expect(() => reconcile(() => done(), { backoff: { initialMs: -1 } })).toThrow(ConfigError);
    expect(() => requeueAfter(-5)).toThrow(ConfigError);
  });

  it('should forward an error of the input itself, as a broken invariant', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const input = cold<ReconcileInput<ConfigMap>>('--#', {}, new Error('broken'));
      expectObservable(input.pipe(reconcile(() => done()))).toBe('--#', {}, new Error('broken'));
    });
  });

  it('should label outcomes compactly', () => {
    const o: Outcome = { key: ev.key('east', 'a'), cluster: ev.key('east', 'a').cluster, result: 'error', attempt: 3, startedAt: 0, durationMs: 1, error: 'x', retryAfterMs: 20 };
    expect(outcomeLabel(o)).toBe('error east/a #3 +20');
  });
});
