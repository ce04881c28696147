// The virtual-time controller harness over the in-memory fleet: changes to clusters as marbles in,
// the runtime's watches and reconcile in the middle, the controller's writes as marbles out.
import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import type { ConfigMap, ControllerReconciler } from '../../src/index.js';
import { clusterName, configMaps, done, requeueAfter, toAction } from '../../src/index.js';
import { apply, ensureFinalizer, removeFinalizer } from '../../src/sinks/index.js';
import { deleteChange, inMemoryFleet, putChange, runController, statusFailure, timeoutFailure, toLabels } from '../../src/testing/index.js';

const cm = (name: string, data: Record<string, string>): ConfigMap => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' }, data });

// The controller under test: every ConfigMap of east is copied to west by server-side apply.
const replicate: ControllerReconciler<ConfigMap> = (req, ctx) => {
  if (req.cluster !== 'east' || req.object === undefined) return done();
  const copy: ConfigMap = { metadata: { name: req.key.name, namespace: req.key.namespace }, data: req.object.data ?? {} };
  return apply(ctx.sinks, { cluster: clusterName('west'), resource: configMaps, object: copy }).pipe(toAction());
};

const scheduler = () =>
  new TestScheduler((actual, expected) => {
    expect(actual).toEqual(expected);
  });

describe('the controller harness over an in-memory fleet', () => {
  it('copies what exists at start, then each change, as writes in virtual time', () => {
    const fleet = inMemoryFleet({ clusters: { east: [cm('web', { v: '1' })], west: [] } });
    scheduler().run(({ hot, expectObservable }) => {
      const changes = { east: hot('-- 8ms a', { a: putChange(configMaps, cm('web', { v: '2' })) }) };
      const out = runController({ inMemory: fleet, resource: configMaps, reconcile: replicate, changes });
      // west's own ConfigMap (the copy) is reconciled too, and writes nothing.
      expectObservable(out.pipe(toLabels()), '^ 50ms !').toBe('(ab) 6ms (cd)', {
        a: 'done east/default/web',
        b: 'done west/default/web',
        c: 'done east/default/web',
        d: 'done west/default/web',
      });
      expectObservable(fleet.writes(), '^ 50ms !').toBe('a 9ms b', { a: 'apply west/default/web', b: 'apply west/default/web' });
    });
    expect(fleet.object<ConfigMap>('west', configMaps, 'default/web')?.data).toEqual({ v: '2' });
  });

  it('honours an injected 429 with its Retry-After, in virtual time', () => {
    const fleet = inMemoryFleet({ clusters: { east: [cm('web', { v: '1' })], west: [] } });
    fleet.inject({ cluster: 'west', verb: 'apply', failure: statusFailure(429, { retryAfterSeconds: 2 }) });
    scheduler().run(({ expectObservable }) => {
      const out = runController({ inMemory: fleet, resource: configMaps, reconcile: replicate });
      // The sink waits the server's 2 s, then the apply succeeds and west's new copy is reconciled too.
      expectObservable(out.pipe(toLabels()), '^ 3s !').toBe('2s (ab)', { a: 'done east/default/web', b: 'done west/default/web' });
      expectObservable(fleet.writes(), '^ 3s !').toBe('a 1999ms b', { a: 'apply west/default/web → 429', b: 'apply west/default/web' });
    });
  });

  it('reports a write that timed out as a failed reconcile, and retries it after the backoff', () => {
    const fleet = inMemoryFleet({ clusters: { east: [cm('web', { v: '1' })], west: [] } });
    fleet.inject({ cluster: 'west', verb: 'apply', failure: timeoutFailure(30) });
    scheduler().run(({ expectObservable }) => {
      const out = runController({ inMemory: fleet, resource: configMaps, reconcile: replicate, queue: { backoff: { initialMs: 100, jitter: 0 } } });
      expectObservable(out.pipe(toLabels()), '^ 500ms !').toBe('30ms a 99ms (bc)', {
        a: 'error east/default/web +100',
        b: 'done east/default/web #2',
        c: 'done west/default/web',
      });
      expectObservable(fleet.writes(), '^ 500ms !').toBe('a 129ms b', { a: 'apply west/default/web → Timeout', b: 'apply west/default/web' });
    });
  });

  it('injects a failure N times, then lets the call through', () => {
    const fleet = inMemoryFleet({ clusters: { east: [cm('web', { v: '1' })], west: [] } });
    fleet.inject({ cluster: 'west', verb: 'apply', times: 2, failure: statusFailure(500) });
    scheduler().run(({ expectObservable }) => {
      const out = runController({ inMemory: fleet, resource: configMaps, reconcile: replicate, queue: { backoff: { initialMs: 10, factor: 2, jitter: 0 } } });
      expectObservable(fleet.writes(), '^ 100ms !').toBe('a 9ms b 19ms c', {
        a: 'apply west/default/web → 500',
        b: 'apply west/default/web → 500',
        c: 'apply west/default/web',
      });
      expectObservable(out.pipe(toLabels()), '^ 100ms !').toBe('a 9ms b 19ms (cd)', {
        a: 'error east/default/web +10',
        b: 'error east/default/web #2 +20',
        c: 'done east/default/web #3',
        d: 'done west/default/web',
      });
    });
  });

  it('delivers a deletion made by another actor as a reconcile without an object', () => {
    const fleet = inMemoryFleet({ clusters: { east: [cm('web', { v: '1' })], west: [] } });
    const seen: string[] = [];
    scheduler().run(({ hot, expectObservable }) => {
      const changes = { east: hot('-- 3ms d', { d: deleteChange(configMaps, 'default/web') }) };
      const out = runController({
        inMemory: fleet,
        resource: configMaps,
        changes,
        reconcile: (req) => {
          seen.push(`${req.cluster} ${req.object === undefined ? 'gone' : 'present'}`);
          return done();
        },
      });
      expectObservable(out.pipe(toLabels()), '^ 20ms !').toBe('a 4ms b', { a: 'done east/default/web', b: 'done east/default/web' });
      expectObservable(fleet.writes(), '^ 20ms !').toBe('');
    });
    expect(seen).toEqual(['east present', 'east gone']);
    expect(fleet.objects('east', configMaps)).toEqual([]);
  });

  it('runs a finalizer flow: add the finalizer, hold the deleted object, release it, and the object goes', () => {
    const fleet = inMemoryFleet({ clusters: { east: [cm('web', { v: '1' })] } });
    const finalizer = 'demo.rxfleet.dev/cleanup';
    let cleanups = 0;
    const withFinalizer: ControllerReconciler<ConfigMap> = (req, ctx) => {
      if (req.object === undefined) return done();
      const write = { key: req.key, resource: configMaps, finalizer, current: req.object };
      if (req.object.metadata.deletionTimestamp === undefined) return ensureFinalizer(ctx.sinks, write).pipe(toAction());
      // Cleanup takes a while: it asks to come back once before the finalizer goes.
      return ++cleanups === 1 ? requeueAfter(5) : removeFinalizer(ctx.sinks, write).pipe(toAction());
    };
    scheduler().run(({ hot, expectObservable }) => {
      const changes = { east: hot('10ms d', { d: deleteChange(configMaps, 'default/web') }) };
      const out = runController({ inMemory: fleet, resource: configMaps, reconcile: withFinalizer, changes });
      expectObservable(fleet.writes(), '^ 50ms !').toBe('a 14ms b', { a: 'update east/default/web', b: 'update east/default/web' });
      // 0: the finalizer is added, and the change comes back with nothing to do. 10: deleted, held
      // by the finalizer; cleanup requeues. 15: the finalizer goes, so does the object (a last reconcile).
      expectObservable(out.pipe(toLabels()), '^ 50ms !').toBe('(ab) 6ms c 4ms (de)', {
        a: 'done east/default/web',
        b: 'done east/default/web',
        c: 'requeue east/default/web +5',
        d: 'done east/default/web',
        e: 'done east/default/web',
      });
    });
    expect(fleet.objects('east', configMaps)).toEqual([]);
  });
});
