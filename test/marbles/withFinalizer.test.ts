import { map } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { kubeError } from '../../src/client/index.js';
import type { ConfigMap, ObjectKey, ReconcileInput } from '../../src/index.js';
import { clusterName, configMaps, done, requeueAfter, toAction } from '../../src/index.js';
import { E } from '../../src/internal/fp.js';
import { reconcile, withFinalizer } from '../../src/operators/index.js';
import { keyedEvents, outcomeLabel, takes, toLabels } from '../../src/testing/index.js';
import { testScheduler } from '../support/marbles.js';

const ev = keyedEvents(configMaps);
const fin = 'example.com/cleanup';

describe('withFinalizer', () => {
  it('should add the finalizer, then apply; on deletion clean up, then remove it', () => {
    const log: string[] = [];
    testScheduler().run(({ hot, cold, expectObservable }) => {
      const input = hot<ReconcileInput<ConfigMap>>('n 9ms h 9ms d 9ms g', {
        n: ev.applied('east', 'default/a'),
        h: ev.applied('east', 'default/a', { metadata: { finalizers: [fin] } }),
        d: ev.applied('east', 'default/a', { metadata: { finalizers: [fin], deletionTimestamp: '2024-01-01T00:00:00Z' } }),
        g: ev.deleted('east', 'default/a'),
      });
      const note = (what: string) => (key: ObjectKey) => {
        log.push(`${what} ${key.name}`);
        return cold('--(r|)', { r: done() });
      };
      const fn = withFinalizer<ConfigMap>({
        finalizer: fin,
        writes: { ensure: note('ensure'), remove: note('remove') },
        apply: (req, ctx) => (log.push(`apply ${req.key.name}`), takes<ConfigMap>(3)(req, ctx)),
        cleanup: (req) => (log.push(`cleanup ${req.key.name}`), done()),
      });
      expectObservable(input.pipe(reconcile(fn), toLabels())).toBe('5ms a 7ms b 8ms c 7ms g', {
        a: 'done east/default/a',
        b: 'done east/default/a',
        c: 'done east/default/a',
        g: 'done east/default/a',
      });
    });
    expect(log).toEqual(['ensure a', 'apply a', 'apply a', 'cleanup a', 'remove a']);
  });

  it('should keep the finalizer while cleanup is not done, and never add one to a deleting object', () => {
    const log: string[] = [];
    testScheduler().run(({ hot, expectObservable }) => {
      const deleting = { deletionTimestamp: '2024-01-01T00:00:00Z' };
      const input = hot<ReconcileInput<ConfigMap>>('d 9ms n', {
        d: ev.applied('east', 'default/a', { metadata: { ...deleting, finalizers: [fin] } }),
        n: ev.applied('east', 'default/b', { metadata: deleting }),
      });
      const fn = withFinalizer<ConfigMap>({
        finalizer: fin,
        writes: { ensure: () => (log.push('ensure'), [done()]), remove: () => (log.push('remove'), [done()]) },
        apply: () => (log.push('apply'), done()),
        cleanup: () => requeueAfter(100),
      });
      expectObservable(input.pipe(reconcile(fn), toLabels()), '^ 50ms !').toBe('r 9ms n', { r: 'requeue east/default/a +100', n: 'done east/default/b' });
    });
    expect(log).toEqual([]);
  });

  it("should fail the reconcile, with the write's Left as its cause, when adding the finalizer fails", () => {
    const conflict = kubeError('Conflict', clusterName('east'), 'stale');
    const applied: string[] = [];
    testScheduler().run(({ hot, cold, expectObservable }) => {
      const input = hot<ReconcileInput<ConfigMap>>('n', { n: ev.applied('east', 'default/a') });
      const fn = withFinalizer<ConfigMap>({
        finalizer: fin,
        writes: { ensure: () => cold('-(l|)', { l: E.left(conflict) }).pipe(toAction()), remove: () => [done()] },
        apply: () => (applied.push('apply'), done()),
        cleanup: () => done(),
      });
      const out = input.pipe(
        reconcile(fn, { backoff: { initialMs: 1000 } }),
        map((o) => [outcomeLabel(o), o.error]),
      );
      expectObservable(out, '^ 10ms !').toBe('-e', { e: ['error east/default/a +1000', conflict] });
    });
    expect(applied).toEqual([]);
  });
});
