// A request the server refused for who we are (403 Forbidden, 401 Unauthorized) is retried on the
// queue's slow `authBackoff`, in virtual time: RBAC or credentials fixed while the controller runs
// are picked up without a change to the object. The other failures keep their rules.
import { tap } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { ConfigMap, ControllerReconciler, ReconcileInput } from '../../src/index.js';
import { actionOf, clusterName, configMaps, toAction } from '../../src/index.js';
import { fromStatus, kubeError } from '../../src/client/index.js';
import { E } from '../../src/fp/index.js';
import type { Outcome } from '../../src/operators/index.js';
import { reconcile } from '../../src/operators/index.js';
import { apply } from '../../src/sinks/index.js';
import { inMemoryFleet, keyedEvents, runController, statusFailure, toLabels } from '../../src/testing/index.js';
import { testScheduler } from '../support/marbles.js';

const ev = keyedEvents(configMaps);
const east = clusterName('east');
const status = (code: number, reason: string) => fromStatus(east, code, { kind: 'Status', code, reason, message: `configmaps "a" is ${reason.toLowerCase()}` }, { request: 'PATCH /api/v1/namespaces/default/configmaps/a' });
const forbidden = status(403, 'Forbidden');

// Refused `times` times, then the grant is there.
function refusedUntil(times: number, cause = forbidden) {
  let calls = 0;
  return () => actionOf(++calls <= times ? E.left(cause) : E.right(undefined));
}

describe('a reconcile the server refused (401/403)', () => {
  it('is retried on the slow default schedule, 5 s doubling to a 5 min cap, and gets through once allowed, with no change to the object', () => {
    testScheduler().run(({ hot, expectObservable }) => {
      const input = hot<ReconcileInput<ConfigMap>>('a', { a: ev.applied('east', 'default/a') });
      // The default schedule without its jitter, so the steps are exact.
      const out = input.pipe(reconcile(refusedUntil(8), { authBackoff: { jitter: 0 } }), toLabels());
      expectObservable(out, '^ 20m !').toBe('a 4999ms b 9999ms c 19999ms d 39999ms e 79999ms f 159999ms g 299999ms h 299999ms i', {
        a: 'error east/default/a +5000',
        b: 'error east/default/a #2 +10000',
        c: 'error east/default/a #3 +20000',
        d: 'error east/default/a #4 +40000',
        e: 'error east/default/a #5 +80000',
        f: 'error east/default/a #6 +160000',
        g: 'error east/default/a #7 +300000',
        h: 'error east/default/a #8 +300000',
        i: 'done east/default/a #9',
      });
    });
  });

  it('treats 401 Unauthorized the same way, and takes its schedule from `authBackoff`', () => {
    testScheduler().run(({ hot, expectObservable }) => {
      const input = hot<ReconcileInput<ConfigMap>>('a', { a: ev.applied('east', 'default/a') });
      const out = input.pipe(reconcile(refusedUntil(3, status(401, 'Unauthorized')), { authBackoff: { initialMs: 100, factor: 3, maxMs: 500, jitter: 0 } }), toLabels());
      expectObservable(out, '^ 2s !').toBe('a 99ms b 299ms c 499ms d', {
        a: 'error east/default/a +100',
        b: 'error east/default/a #2 +300',
        c: 'error east/default/a #3 +500',
        d: 'done east/default/a #4',
      });
    });
  });

  it('spreads the default steps over their upper half: never sooner than half the step', () => {
    const outcomes: Outcome[] = [];
    const keys = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j'];
    testScheduler().run(({ hot, expectObservable }) => {
      const input = hot<ReconcileInput<ConfigMap>>('(abcdefghij)', Object.fromEntries(keys.map((k) => [k, ev.applied('east', `default/${k}`)])));
      const out = input.pipe(
        reconcile(() => actionOf(E.left(forbidden)), { concurrency: 10, perClusterConcurrency: 10 }),
        tap((o) => outcomes.push(o)),
      );
      expectObservable(out.pipe(toLabels()), '^ 1s !').toBe('(abcdefghij)', Object.fromEntries(keys.map((k) => [k, expect.stringMatching(new RegExp(`^error east/default/${k} \\+`)) as unknown as string])));
    });
    for (const o of outcomes) {
      expect(o.retryAfterMs).toBeGreaterThanOrEqual(2_500);
      expect(o.retryAfterMs).toBeLessThanOrEqual(5_000);
    }
  });

  it("waits a 403's Retry-After when the server sent one", () => {
    testScheduler().run(({ hot, expectObservable }) => {
      const input = hot<ReconcileInput<ConfigMap>>('a', { a: ev.applied('east', 'default/a') });
      const out = input.pipe(reconcile(refusedUntil(1, { ...forbidden, retryAfterSeconds: 2 })), toLabels());
      expectObservable(out, '^ 5s !').toBe('a 1999ms b', { a: 'error east/default/a +2000', b: 'done east/default/a #2' });
    });
  });

  it('keeps the other failures as they were: Invalid, NotFound, a Forbidden decided on this side are terminal; a 500 waits the fast backoff', () => {
    expect(actionOf(E.left(status(422, 'Invalid')))).toMatchObject({ type: 'error', terminal: true });
    expect(actionOf(E.left(status(404, 'NotFound')))).toMatchObject({ type: 'error', terminal: true });
    expect(actionOf(E.left(status(400, 'BadRequest')))).toMatchObject({ type: 'error', terminal: true });
    expect(actionOf(E.left(status(405, 'MethodNotAllowed')))).toMatchObject({ type: 'error', terminal: true });
    // A tenant guard's refusal carries the tag but no server answered: a decision, not a denial.
    expect(actionOf(E.left(kubeError('Forbidden', east, 'refusing to apply an object of another logical cluster')))).toMatchObject({ type: 'error', terminal: true });
    expect(actionOf(E.left(forbidden))).toMatchObject({ type: 'error', terminal: false });
    testScheduler().run(({ hot, expectObservable }) => {
      const input = hot<ReconcileInput<ConfigMap>>('a', { a: ev.applied('east', 'default/a') });
      const out = input.pipe(reconcile(refusedUntil(1, status(500, 'InternalError'))), toLabels());
      expectObservable(out, '^ 1s !').toBe('a 4ms b', { a: 'error east/default/a +5', b: 'done east/default/a #2' });
    });
  });

  it('retries a write the in-memory cluster forbids, through the sink and toAction, until it is allowed', () => {
    const cm = (name: string): ConfigMap => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' }, data: { v: '1' } });
    const fleet = inMemoryFleet({ clusters: { east: [cm('web')], west: [] } });
    // RBAC in west allows the apply after two refusals.
    fleet.inject({ cluster: 'west', verb: 'apply', times: 2, failure: statusFailure(403) });
    const copyToWest: ControllerReconciler<ConfigMap> = (req, ctx) => {
      if (req.cluster !== 'east' || req.object === undefined) return actionOf(E.right(undefined));
      return apply(ctx.sinks, { cluster: clusterName('west'), resource: configMaps, object: cm(req.key.name) }).pipe(toAction());
    };
    testScheduler().run(({ expectObservable }) => {
      const out = runController({ inMemory: fleet, resource: configMaps, reconcile: copyToWest, queue: { authBackoff: { jitter: 0 } } });
      expectObservable(fleet.writes(), '^ 1m !').toBe('a 4999ms b 9999ms c', {
        a: 'apply west/default/web → 403',
        b: 'apply west/default/web → 403',
        c: 'apply west/default/web',
      });
      expectObservable(out.pipe(toLabels()), '^ 1m !').toBe('a 4999ms b 9999ms (cd)', {
        a: 'error east/default/web +5000',
        b: 'error east/default/web #2 +10000',
        c: 'done east/default/web #3',
        d: 'done west/default/web',
      });
    });
  });
});
