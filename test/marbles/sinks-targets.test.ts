// Cross-cluster ownership over fake clusters (deleteTargets, sweepOrphans, releaseSource), and the
// hand-over from sinks to the work queue (toAction, finalizerWrites with withFinalizer).
import { of } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { E } from '../../src/fp/index.js';
import type { ConfigMap, KubeObject, ReconcileInput } from '../../src/index.js';
import { clusterName, configMaps, done, objectKey, toAction } from '../../src/index.js';
import { reconcile, withFinalizer } from '../../src/operators/index.js';
import type { WriteClient, WriteOutcome } from '../../src/sinks/index.js';
import { finalizerWrites, releaseSource, deleteTargets, sinkContext, sourceIdentity, sweepOrphans, withBackReference } from '../../src/sinks/index.js';
import { keyedEvents, toLabels } from '../../src/testing/index.js';
import { err, fakeClient, fakeFleet } from './sinks-fake.js';
import { testScheduler } from '../support/marbles.js';

const hub = clusterName('hub');
const source: ConfigMap = { metadata: { name: 'app', namespace: 'default', uid: 'u-1' } };
const id = sourceIdentity(hub, configMaps, source);
const target = (name: string, uid: string, from = id): ConfigMap => withBackReference<ConfigMap>({ metadata: { name, namespace: 'default', uid } }, from);
const list = (...items: KubeObject[]) => of(E.right({ metadata: {}, items }));
const names = (outcomes: readonly WriteOutcome[]) => outcomes.map((o) => (E.isRight(o) ? `${o.right.key.cluster}/${o.right.key.name}` : `${o.left.type} ${o.left.key.cluster}`));

/** A member cluster holding `items`, recording what is deleted. */
function member(deleted: string[], ...items: KubeObject[]): WriteClient {
  return fakeClient({
    listAll: () => list(...items),
    delete: (name) => {
      deleted.push(name);
      return of(E.right({ kind: 'Status', status: 'Success' }));
    },
  });
}

function collect(run: () => { subscribe: (f: (o: WriteOutcome) => void) => unknown }): WriteOutcome[] {
  const out: WriteOutcome[] = [];
  testScheduler().run(({ flush }) => {
    run().subscribe((o) => out.push(o));
    flush();
  });
  return out;
}

describe('deleteTargets and releaseSource', () => {
  it("should delete only the source's own targets in every cluster, and report a failed listing by cluster", () => {
    const deleted: string[] = [];
    const replaced = target('stale', 't-2', { ...id, uid: 'u-0' });
    const fleet = fakeFleet({ west: member(deleted, target('copy', 't-1'), replaced), east: fakeClient({ listAll: () => of(E.left(err('Forbidden', 'east'))) }) });
    const out = collect(() => deleteTargets(sinkContext({ clusters: fleet, fieldManager: 'test' }), { source: id, targets: [configMaps] }));
    expect(deleted).toEqual(['copy']);
    expect(names(out)).toEqual(['west/copy', 'Forbidden east']);
  });

  it('should remove the finalizer only after every target is gone', () => {
    const deleted: string[] = [];
    const finalizer = 'test.rxfleet.dev/targets';
    const written: KubeObject[] = [];
    const hubClient = fakeClient({
      get: () => of(E.right<never, KubeObject>({ ...source, metadata: { ...source.metadata, resourceVersion: '1', finalizers: [finalizer] } })),
      update: (o) => (written.push(o), of(E.right(o))),
    });
    const ok = collect(() =>
      releaseSource(sinkContext({ clusters: fakeFleet({ hub: hubClient, west: member(deleted, target('copy', 't-1')) }), fieldManager: 'test' }), {
        source: id,
        resource: configMaps,
        finalizer,
        targets: [configMaps],
        clusters: [clusterName('west')],
      }),
    );
    expect(names(ok)).toEqual(['west/copy', 'hub/app']);
    expect(written.map((o) => o.metadata.finalizers)).toEqual([[]]);
    const failing = collect(() =>
      releaseSource(sinkContext({ clusters: fakeFleet({ hub: hubClient, west: fakeClient({ listAll: () => of(E.left(err('Transient', 'west'))) }) }), fieldManager: 'test' }), {
        source: id,
        resource: configMaps,
        finalizer,
        targets: [configMaps],
        clusters: [clusterName('west')],
      }),
    );
    expect(names(failing)).toEqual(['Transient west']);
    expect(written).toHaveLength(1);
  });
});

describe('sweepOrphans', () => {
  it('should delete targets whose source is gone or replaced, and keep those it cannot judge', () => {
    const deleted: string[] = [];
    const elsewhere = sourceIdentity(clusterName('gone-cluster'), configMaps, source);
    const items = [target('live', 't-1'), target('orphan', 't-2', { ...id, name: 'missing' }), target('replaced', 't-3', { ...id, uid: 'u-0' }), target('unknown', 't-4', elsewhere)];
    const hubClient = fakeClient({ get: (name) => of(name === 'app' ? E.right<never, KubeObject>(source) : E.left(err('NotFound', 'hub', { code: 404 }))) });
    const out = collect(() => sweepOrphans(sinkContext({ clusters: fakeFleet({ hub: hubClient, west: member(deleted, ...items) }), fieldManager: 'test' }), { sourceResource: configMaps, targets: [configMaps], clusters: [clusterName('west')] }));
    expect(deleted).toEqual(['orphan', 'replaced']);
    expect(names(out)).toEqual(['west/orphan', 'west/replaced']);
  });
});

describe('toAction', () => {
  it('should answer done for successes, retry what may pass later, and end what cannot', () => {
    const key = objectKey(hub, 'default', 'app');
    const ok: WriteOutcome = E.right({ cluster: hub, key, verb: 'apply', changed: true, object: source, attempts: 1, sent: true, dryRun: false });
    const invalidError = err('Invalid', 'hub', { code: 422 });
    const busyError = err('TooManyRequests', 'hub', { code: 429, retryAfterSeconds: 3 });
    const invalid: WriteOutcome = E.left({ ...invalidError, verb: 'apply', key, attempts: 1 });
    const busy = E.left(busyError);
    testScheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold('a-b|', { a: ok, b: ok }).pipe(toAction())).toBe('---(x|)', { x: done() });
      expectObservable(cold<WriteOutcome>('|').pipe(toAction())).toBe('(x|)', { x: done() });
      expectObservable(cold('a-b-c|', { a: ok, b: invalid, c: busy }).pipe(toAction())).toBe('-----(x|)', {
        x: { type: 'error', cause: busyError, terminal: false, retryAfterMs: 3000 },
      });
      expectObservable(cold('a-b|', { a: invalid, b: ok }).pipe(toAction())).toBe('---(x|)', { x: { type: 'error', cause: { ...invalidError, verb: 'apply', key, attempts: 1 }, terminal: true } });
    });
  });

  it('should let withFinalizer add its finalizer through the sinks, and end a reconcile whose object started deleting', () => {
    const ev = keyedEvents(configMaps);
    const reads = [{ finalizers: [] as string[] }, { deletionTimestamp: '2026-01-01T00:00:00Z' }];
    const client = fakeClient({
      get: () => of(E.right<never, KubeObject>({ metadata: { name: 'a', namespace: 'default', resourceVersion: '1', ...reads.shift() } })),
      update: (o) => of(E.right(o)),
    });
    testScheduler().run(({ hot, expectObservable }) => {
      const input = hot<ReconcileInput<ConfigMap>>('a 9ms b', { a: ev.applied('east', 'default/a'), b: ev.applied('east', 'default/a', { data: { v: '2' } }) });
      const ctx = sinkContext({ clusters: fakeFleet({ east: client }), fieldManager: 'test' });
      const fn = withFinalizer<ConfigMap>({ finalizer: 'test.rxfleet.dev/x', writes: finalizerWrites(ctx, configMaps), apply: () => done(), cleanup: () => done() });
      // The second add finds the object deleting: the sink refuses (Terminating), which is terminal.
      expectObservable(input.pipe(reconcile(fn), toLabels())).toBe('a 9ms b', { a: 'done east/default/a', b: 'terminal east/default/a' });
    });
  });
});
