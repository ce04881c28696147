import { defer, of, tap, throwError } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { Action, ConfigMap, ReconcileInput } from '../../src/index.js';
import { ConfigError, configMaps, done, error, requeueAfter, terminal } from '../../src/index.js';
import type { Outcome, QueueDepth } from '../../src/operators/index.js';
import { reconcile } from '../../src/operators/index.js';
import { keyedEvents, outcomeLabel, recorder, scripted, takes, toLabels } from '../../src/testing/index.js';
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

  it('should serve keys across clusters in the order they became ready: a wave that reaches the clusters one after another', () => {
    testScheduler().run(({ hot, expectObservable }) => {
      // east's three keys become ready at 0, west's at 2: first come, first served (round-robin
      // lanes would have run west's first key second, leaving east's last key waiting longest).
      const input = hot<ReconcileInput<ConfigMap>>('(abc) (def)', {
        a: ev.applied('east', 'default/e1'),
        b: ev.applied('east', 'default/e2'),
        c: ev.applied('east', 'default/e3'),
        d: ev.applied('west', 'default/w1'),
        e: ev.applied('west', 'default/w2'),
        f: ev.applied('west', 'default/w3'),
      });
      const out = input.pipe(reconcile(takes(10), { concurrency: 1 }), toLabels());
      expectObservable(out).toBe('10ms a 9ms b 9ms c 9ms d 9ms e 9ms f', {
        a: 'done east/default/e1',
        b: 'done east/default/e2',
        c: 'done east/default/e3',
        d: 'done west/default/w1',
        e: 'done west/default/w2',
        f: 'done west/default/w3',
      });
    });
  });

  it('should give a quiet cluster the next free worker while a noisy cluster with an older backlog is at its cap', () => {
    const rec = recorder<ConfigMap>(takes(10));
    testScheduler().run(({ hot, expectObservable }) => {
      // Four workers, at most two for one cluster (a hard cap): the noisy backlog is older, but at its
      // cap it sits out, and the quiet key starts on a free worker the moment it arrives.
      const input = hot<ReconcileInput<ConfigMap>>('(abcdef) 3ms q', {
        a: ev.applied('noisy', 'default/n1'),
        b: ev.applied('noisy', 'default/n2'),
        c: ev.applied('noisy', 'default/n3'),
        d: ev.applied('noisy', 'default/n4'),
        e: ev.applied('noisy', 'default/n5'),
        f: ev.applied('noisy', 'default/n6'),
        q: ev.applied('quiet', 'default/q1'),
      });
      expectObservable(input.pipe(reconcile(rec.reconciler, { concurrency: 4, perClusterConcurrency: 2, lendIdleWorkers: false }), toLabels()), '^ 40ms !');
    });
    const starts = (cluster: string) => rec.calls.filter((c) => c.key.cluster === cluster).map((c) => c.startedAt);
    expect(starts('quiet')).toEqual([11]); // the group takes 8 frames, then 3ms: it arrives at 11
    expect(starts('noisy')).toEqual([0, 0, 10, 10, 20, 20]);
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

  it('should back off exponentially up to the cap, and reset the backoff after a success', () => {
    let calls = 0;
    // Fails four times, succeeds, then fails for ever.
    const fn = () => (++calls === 5 ? done() : error(new Error(`boom ${calls}`)));
    testScheduler().run(({ hot, expectObservable }) => {
      const input = hot<ReconcileInput<ConfigMap>>('a 59ms a', { a: ev.applied('east', 'default/a') });
      const out = input.pipe(reconcile(fn, { backoff: { initialMs: 5, factor: 2, maxMs: 20 } }), toLabels());
      expectObservable(out, '^ 69ms !').toBe('a 4ms b 9ms c 19ms d 19ms e 4ms f 4ms g', {
        a: 'error east/default/a +5',
        b: 'error east/default/a #2 +10',
        c: 'error east/default/a #3 +20',
        d: 'error east/default/a #4 +20',
        e: 'done east/default/a #5',
        f: 'error east/default/a +5',
        g: 'error east/default/a #2 +10',
      });
    });
  });

  it('should requeue after the delay asked for, replacing the backoff', () => {
    let calls = 0;
    const script = [error('first'), requeueAfter(30), error('again'), done()];
    const fn = () => script[calls++] ?? done();
    testScheduler().run(({ hot, expectObservable }) => {
      const input = hot<ReconcileInput<ConfigMap>>('a', { a: ev.applied('east', 'default/a') });
      expectObservable(input.pipe(reconcile(fn), toLabels())).toBe('a 4ms b 29ms c 4ms d', {
        a: 'error east/default/a +5',
        b: 'requeue east/default/a #2 +30',
        c: 'error east/default/a +5',
        d: 'done east/default/a #2',
      });
    });
  });

  it('should run a requeued key sooner when it changes before the delay', () => {
    const rec = recorder<ConfigMap>(() => requeueAfter(100));
    testScheduler().run(({ hot, expectObservable }) => {
      const input = hot<ReconcileInput<ConfigMap>>('a 9ms a', { a: ev.applied('east', 'default/a') });
      expectObservable(input.pipe(reconcile(rec.reconciler), toLabels()), '^ 150ms !').toBe('a 9ms a 99ms a', { a: 'requeue east/default/a +100' });
    });
    expect(rec.calls.map((c) => c.startedAt)).toEqual([0, 10, 110]);
  });

  it('should report a terminal error once and never retry it, until the next change', () => {
    const rec = recorder<ConfigMap>(() => terminal(new Error('spec is invalid')));
    let outcomes: Outcome[] = [];
    testScheduler().run(({ hot, expectObservable }) => {
      const input = hot<ReconcileInput<ConfigMap>>('a 49ms a', { a: ev.applied('east', 'default/a') });
      const out = input.pipe(
        reconcile(rec.reconciler),
        tap((o) => (outcomes = [...outcomes, o])),
      );
      expectObservable(out.pipe(toLabels()), '^ 100ms !').toBe('t 49ms t', { t: 'terminal east/default/a' });
    });
    expect(rec.calls).toHaveLength(2);
    expect(outcomes[0]?.error).toEqual(new Error('spec is invalid'));
  });

  it('should turn thrown, rejected and errored reconcilers into error outcomes, never an RxJS error', () => {
    const boom = new Error('boom');
    testScheduler().run(({ hot, expectObservable }) => {
      const input = hot<ReconcileInput<ConfigMap>>('(abcd)', {
        a: ev.applied('east', 'default/throws'),
        b: ev.applied('east', 'default/errors'),
        c: ev.applied('east', 'default/garbage'),
        d: ev.applied('east', 'default/ok'),
      });
      const fn = (req: { key: { name: string } }) => {
        if (req.key.name === 'throws') throw boom;
        if (req.key.name === 'errors') return throwError(() => boom);
        // A reconciler written without types can emit anything; the queue must survive it.
        if (req.key.name === 'garbage') return of(JSON.parse('{"not":"an action"}') as Action);
        return defer(() => of(done()));
      };
      const out = input.pipe(reconcile(fn, { backoff: { initialMs: 1000 } }), toLabels());
      expectObservable(out, '^ 10ms !').toBe('(abcd)', {
        a: 'error east/default/throws +1000',
        b: 'error east/default/errors +1000',
        c: 'error east/default/garbage +1000',
        d: 'done east/default/ok',
      });
    });
  });

  it('should drop a removed cluster: pending, waiting and running keys, aborting the running one', () => {
    const rec = recorder<ConfigMap>(
      scripted((req) => (req.key.name === 'fails' ? { frames: 0, action: error('boom') } : { frames: 10 })),
    );
    testScheduler().run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const slow = cold('20ms (x|)', { x: done() });
      const fn = (req: { key: { name: string } }, ctx: Parameters<typeof rec.reconciler>[1]) =>
        req.key.name === 'a' ? slow : rec.reconciler(req as Parameters<typeof rec.reconciler>[0], ctx);
      const input = hot<ReconcileInput<ConfigMap>>('(fab) x w', {
        f: ev.applied('east', 'default/fails'),
        a: ev.applied('east', 'default/a'),
        b: ev.applied('east', 'default/b'),
        x: ev.removed('east'),
        w: ev.applied('west', 'default/w'),
      });
      const out = input.pipe(reconcile(fn, { concurrency: 1, backoff: { initialMs: 50 } }), toLabels());
      expectObservable(out, '^ 200ms !').toBe('f 4ms x 10ms w', {
        f: 'error east/default/fails +50',
        x: 'dropped east/default/a',
        w: 'done west/default/w',
      });
      expectSubscriptions(slow.subscriptions).toBe('^ 4ms !');
    });
    // `b` was pending when east left, `fails` was waiting for its retry: neither ran again.
    expect(rec.calls.map((c) => c.key.name)).toEqual(['fails', 'w']);
  });

  it('should abort the signal of a reconcile whose cluster left the fleet', () => {
    const rec = recorder<ConfigMap>(takes(10));
    testScheduler().run(({ hot, expectObservable }) => {
      const input = hot<ReconcileInput<ConfigMap>>('a 2ms x', { a: ev.applied('east', 'default/a'), x: ev.removed('east') });
      expectObservable(input.pipe(reconcile(rec.reconciler), toLabels())).toBe('3ms d', { d: 'dropped east/default/a' });
    });
    expect(rec.calls[0]?.signal.aborted).toBe(true);
    expect(rec.calls[0]?.endedAt).toBeUndefined();
  });

  it('should tear down the input, timers and in-flight work on unsubscribe', () => {
    const rec = recorder<ConfigMap>(scripted((req) => (req.key.name === 'slow' ? { frames: 50 } : { frames: 0, action: error('boom') })));
    testScheduler().run(({ hot, expectObservable, expectSubscriptions }) => {
      const input = hot<ReconcileInput<ConfigMap>>('(sf)', { s: ev.applied('east', 'default/slow'), f: ev.applied('east', 'default/fails') });
      const out = input.pipe(reconcile(rec.reconciler, { backoff: { initialMs: 3 } }), toLabels());
      expectObservable(out, '^ 5ms !').toBe('f 2ms g', { f: 'error east/default/fails +3', g: 'error east/default/fails #2 +6' });
      expectSubscriptions(input.subscriptions).toBe('^ 5ms !');
    });
    // After the unsubscribe at 6, the retry due at 9 never ran, and the slow run was aborted.
    expect(rec.calls.map((c) => [c.key.name, c.startedAt])).toEqual([
      ['slow', 0],
      ['fails', 0],
      ['fails', 3],
    ]);
    expect(rec.calls[0]?.signal.aborted).toBe(true);
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

  it('should drain on completion: close debounce windows, finish running work, drop retries', () => {
    const rec = recorder<ConfigMap>(scripted((req) => (req.key.name === 'fails' ? { frames: 0, action: error('boom') } : { frames: 10 })));
    testScheduler().run(({ cold, expectObservable }) => {
      const input = cold<ReconcileInput<ConfigMap>>('(fa) 2ms (b|)', {
        f: ev.applied('east', 'default/fails'),
        a: ev.applied('east', 'default/a'),
        b: ev.applied('east', 'default/b'),
      });
      const out = input.pipe(reconcile(rec.reconciler, { debounce: { waitMs: 100 } }), toLabels());
      // Debounced: nothing runs before completion at 6; then everything runs at once.
      expectObservable(out).toBe('6ms f 9ms (ab|)', { f: 'error east/default/fails', a: 'done east/default/a', b: 'done east/default/b' });
    });
    expect(rec.calls).toHaveLength(3);
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
