// How `reconcile` retries and reports failures: exponential backoff up to a cap, reset by a success;
// a requeue after the delay asked for (sooner on a change); a terminal error never retried until the
// next change; thrown, rejected and malformed reconcilers as error outcomes, never an RxJS error.
import { defer, of, tap, throwError } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { Action, ConfigMap, ReconcileInput } from '../../src/index.js';
import { configMaps, done, error, requeueAfter, terminal } from '../../src/index.js';
import type { Outcome } from '../../src/operators/index.js';
import { reconcile } from '../../src/operators/index.js';
import { keyedEvents, recorder, toLabels } from '../../src/testing/index.js';
import { testScheduler } from '../support/marbles.js';

const ev = keyedEvents(configMaps);

describe('reconcile retries and errors', () => {
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
});
