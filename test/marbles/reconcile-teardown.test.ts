// What `reconcile` drops and ends: a cluster that leaves the fleet (its pending, waiting and running
// keys, the running one's signal aborted), an unsubscribe (input, timers, in-flight work), and the
// input's completion (debounce windows closed, running work finished, retries dropped).
import { describe, expect, it } from 'vitest';
import type { ConfigMap, ReconcileInput } from '../../src/index.js';
import { configMaps, done, error } from '../../src/index.js';
import { reconcile } from '../../src/operators/index.js';
import { keyedEvents, recorder, scripted, takes, toLabels } from '../../src/testing/index.js';
import { testScheduler } from '../support/marbles.js';

const ev = keyedEvents(configMaps);

describe('reconcile teardown', () => {
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
});
