// The sinks against real servers (kcp through a workspace, and kube-apiserver + etcd): apply and
// its no-change report, field-manager conflicts, a conflict storm of update calls, status writes,
// finalizers around deletion, typed errors that do not stop other clusters, and Event aggregation.
import { firstValueFrom, from, lastValueFrom, merge, toArray } from 'rxjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { createClusterClient } from '../../src/client/index.js';
import { E } from '../../src/fp/index.js';
import type { ConfigMap } from '../../src/index.js';
import { clusterName, configMaps, objectKey } from '../../src/index.js';
import type { ApplyWrite, SinkContext, WriteOutcome } from '../../src/sinks/index.js';
import { apply, applyEach, create, ensureFinalizer, eventRecorder, patch, referenceTo, deleteObject, removeFinalizer, sinkContext, update } from '../../src/sinks/index.js';
import { eventsV1Events } from '../../src/resources/index.js';
import { fixedFleet } from './sinks-fleet.js';
import type { Widget } from './targets.js';
import { widgetsCrd } from './targets.js';
import type { Sandbox } from './targets.js';
import { randomName, targets } from './targets.js';
import { eventually, must } from '../support/wait.js';

function ok<T extends ConfigMap | Widget>(o: WriteOutcome<T>) {
  if (E.isLeft(o)) throw new Error(`${o.left.type}: ${o.left.message}`);
  return o.right;
}

describe.each(targets)('sinks against $name', (target) => {
  let sb: Sandbox;
  let ctx: SinkContext;
  beforeAll(async () => {
    sb = await target.sandbox();
    ctx = sinkContext({ clusters: fixedFleet([sb]), fieldManager: 'rxfleet-sinks-test' });
  });

  const cm = (name: string, data: Record<string, string>): ApplyWrite<ConfigMap> => ({
    cluster: sb.cluster,
    resource: configMaps,
    object: { metadata: { name, namespace: sb.namespace }, data },
  });

  it('applies, and a second identical apply reports no change', async () => {
    const name = randomName('apply');
    const first = ok(await firstValueFrom(apply(ctx, { ...cm(name, { a: '1' }), readFirst: true })));
    expect(first).toMatchObject({ changed: true, attempts: 1, verb: 'apply', cluster: sb.cluster, dryRun: false });
    // Nothing known: 'unknown'; read first when asked; then from the last known object.
    expect(ok(await firstValueFrom(apply(ctx, cm(name, { a: '1' })))).changed).toBe('unknown');
    const second = ok(await firstValueFrom(apply(ctx, { ...cm(name, { a: '1' }), readFirst: true })));
    expect(second.changed).toBe(false);
    const third = ok(await firstValueFrom(apply(ctx, { ...cm(name, { a: '1' }), current: second.object ?? null })));
    expect(third.changed).toBe(false);
    const changed = ok(await firstValueFrom(apply(ctx, { ...cm(name, { a: '2' }), current: third.object ?? null })));
    expect(changed.changed).toBe(true);
    expect(changed.object?.data).toEqual({ a: '2' });
  });

  it('reports what a dry run would change without persisting it', async () => {
    const name = randomName('dry');
    ok(await firstValueFrom(apply(ctx, cm(name, { a: '1' }))));
    const dry = ok(await firstValueFrom(apply(ctx, { ...cm(name, { a: '2' }), dryRun: true, readFirst: true })));
    expect(dry).toMatchObject({ changed: true, dryRun: true });
    expect(dry.object?.data).toEqual({ a: '2' });
    const same = ok(await firstValueFrom(apply(ctx, { ...cm(name, { a: '1' }), dryRun: true, readFirst: true })));
    expect(same.changed).toBe(false);
    expect(must(await sb.client.get(configMaps, name, { namespace: sb.namespace })).data).toEqual({ a: '1' });
  });

  it('gives a second field manager a typed Conflict on a field it does not own, and forces it by default', async () => {
    const name = randomName('managers');
    ok(await firstValueFrom(apply(ctx, cm(name, { owner: 'first' }))));
    const rival = sinkContext({ clusters: fixedFleet([sb]), fieldManager: 'rxfleet-rival' });
    const refused = await firstValueFrom(apply(rival, { ...cm(name, { owner: 'second' }), force: false }));
    expect(E.isLeft(refused) && refused.left).toMatchObject({ type: 'Conflict', code: 409, verb: 'apply', cluster: sb.cluster, attempts: 1 });
    const forced = ok(await firstValueFrom(apply(rival, { ...cm(name, { owner: 'second' }), readFirst: true })));
    expect(forced.changed).toBe(true);
    expect(forced.object?.data).toEqual({ owner: 'second' });
  });

  it('ends a storm of 20 concurrent updates of one counter at exactly 20', async () => {
    const name = randomName('storm');
    ok(await firstValueFrom(create(ctx, { cluster: sb.cluster, resource: configMaps, object: { metadata: { name, namespace: sb.namespace }, data: { n: '0' } } })));
    // A writer's PUT only conflicts when another writer's PUT succeeded since its read, and each of
    // the other 19 succeeds once: so 20 attempts always suffice for 20 writers (5, client-go's
    // default, does not: the last writer can lose 19 times).
    const storm = sinkContext({ clusters: fixedFleet([sb]), fieldManager: 'rxfleet-sinks-test', conflictRetry: { attempts: 20 } });
    const key = objectKey(sb.cluster, sb.namespace, name);
    const writers = Array.from({ length: 20 }, () =>
      update(storm, {
        key,
        resource: configMaps,
        recipe: (c) => {
          c.data = { ...c.data, n: String(Number(c.data?.n ?? '0') + 1) };
        },
      }),
    );
    const outcomes = await lastValueFrom(merge(...writers).pipe(toArray()));
    expect(outcomes.filter(E.isLeft)).toEqual([]);
    const attempts = outcomes.map((o) => ok(o).attempts);
    expect(Math.max(...attempts)).toBeLessThanOrEqual(20);
    expect(attempts.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(20);
    expect(must(await sb.client.get(configMaps, name, { namespace: sb.namespace })).data?.n).toBe('20');
  });

  it('reports an update whose recipe changes nothing as no change, without writing', async () => {
    const name = randomName('noop');
    const created = ok(await firstValueFrom(apply(ctx, cm(name, { a: '1' }))));
    const r = ok(await firstValueFrom(update(ctx, { key: objectKey(sb.cluster, sb.namespace, name), resource: configMaps, recipe: () => undefined })));
    expect(r).toMatchObject({ changed: false, attempts: 0 });
    expect(r.object?.metadata.resourceVersion).toBe(created.object?.metadata.resourceVersion);
  });

  it('writes status only through the status subresource, and refuses resources without one with a clear error', async () => {
    const widgets = await widgetsCrd(sb.client, sb.namespace);
    const name = randomName('w');
    must(await sb.client.create(widgets, { metadata: { name, namespace: sb.namespace }, spec: { size: 3 } }));
    const key = objectKey(sb.cluster, sb.namespace, name);

    const patched = ok(await firstValueFrom(patch(ctx, { key, resource: widgets, subresource: 'status', patch: { status: { ready: true } }, readFirst: true })));
    expect(patched).toMatchObject({ changed: true, verb: 'patch', subresource: 'status', object: { spec: { size: 3 }, status: { ready: true } } });
    const again = ok(await firstValueFrom(patch(ctx, { key, resource: widgets, subresource: 'status', patch: { status: { ready: true } }, current: patched.object })));
    expect(again.changed).toBe(false);

    // Spec in a status apply is ignored by the server: status writers cannot change desired state.
    const applied = ok(
      await firstValueFrom(apply(ctx, { cluster: sb.cluster, resource: widgets, object: { metadata: { name, namespace: sb.namespace }, spec: { size: 99 }, status: { ready: false, note: 'x' } }, subresource: 'status' })),
    );
    expect(applied.object).toMatchObject({ spec: { size: 3 }, status: { ready: false, note: 'x' } });
    expect(must(await sb.client.get(widgets, name, { namespace: sb.namespace })).spec).toEqual({ size: 3 });

    const cmName = randomName('nostatus');
    ok(await firstValueFrom(apply(ctx, cm(cmName, { a: '1' }))));
    const noStatus = await firstValueFrom(patch(ctx, { key: objectKey(sb.cluster, sb.namespace, cmName), resource: configMaps, subresource: 'status', patch: { status: { x: 1 } } }));
    expect(E.isLeft(noStatus) && noStatus.left).toMatchObject({ type: 'NoStatusSubresource', code: 404 });
    expect(E.isLeft(noStatus) && noStatus.left.message).toContain('configmaps has no status subresource');
    const noStatusApply = await firstValueFrom(apply(ctx, { ...cm(cmName, {}), object: { metadata: { name: cmName, namespace: sb.namespace }, status: { x: 1 } }, subresource: 'status' }));
    expect(E.isLeft(noStatusApply) && noStatusApply.left.type).toBe('NoStatusSubresource');

    const missing = await firstValueFrom(patch(ctx, { key: objectKey(sb.cluster, sb.namespace, 'no-such-widget'), resource: widgets, subresource: 'status', patch: { status: { ready: true } } }));
    expect(E.isLeft(missing) && missing.left.type).toBe('NotFound');
  });

  it('holds a deleted object until its finalizer is removed, and never adds one after the deletionTimestamp', async () => {
    const name = randomName('fin');
    const finalizer = 'test.rxfleet.dev/hold';
    ok(await firstValueFrom(apply(ctx, cm(name, { a: '1' }))));
    const key = objectKey(sb.cluster, sb.namespace, name);
    expect(ok(await firstValueFrom(ensureFinalizer(ctx, { key, resource: configMaps, finalizer }))).changed).toBe(true);
    expect(ok(await firstValueFrom(ensureFinalizer(ctx, { key, resource: configMaps, finalizer }))).changed).toBe(false);

    const deleted = ok(await firstValueFrom(deleteObject(ctx, { key, resource: configMaps })));
    expect(deleted.object?.metadata.deletionTimestamp).toBeTruthy();
    const held = must(await sb.client.get(configMaps, name, { namespace: sb.namespace }));
    expect(held.metadata.deletionTimestamp).toBeTruthy();
    expect(held.metadata.finalizers).toEqual([finalizer]);

    const refused = await firstValueFrom(ensureFinalizer(ctx, { key, resource: configMaps, finalizer: 'test.rxfleet.dev/late' }));
    expect(E.isLeft(refused) && refused.left).toMatchObject({ type: 'Terminating', attempts: 0 });
    expect(must(await sb.client.get(configMaps, name, { namespace: sb.namespace })).metadata.finalizers).toEqual([finalizer]);

    expect(ok(await firstValueFrom(removeFinalizer(ctx, { key, resource: configMaps, finalizer }))).changed).toBe(true);
    await eventually('the object to be gone', async () => {
      const r = await sb.client.get(configMaps, name, { namespace: sb.namespace });
      return E.isLeft(r) && r.left.type === 'NotFound' ? true : undefined;
    });
    // Gone is what removeFinalizer and remove want: success with no change.
    expect(ok(await firstValueFrom(removeFinalizer(ctx, { key, resource: configMaps, finalizer })))).toMatchObject({ changed: false, object: undefined });
    expect(ok(await firstValueFrom(deleteObject(ctx, { key, resource: configMaps })))).toMatchObject({ changed: false });
    const strict = await firstValueFrom(deleteObject(ctx, { key, resource: configMaps, notFoundIsSuccess: false }));
    expect(E.isLeft(strict) && strict.left.type).toBe('NotFound');
  });

  it('refuses a delete whose uid precondition names another incarnation', async () => {
    const name = randomName('precond');
    ok(await firstValueFrom(apply(ctx, cm(name, {}))));
    const r = await firstValueFrom(deleteObject(ctx, { key: objectKey(sb.cluster, sb.namespace, name), resource: configMaps, preconditions: { uid: 'not-the-uid' } }));
    expect(E.isLeft(r) && r.left.type).toBe('Conflict');
  });

  it('gives typed errors for a limited identity and a non-engaged cluster while other clusters keep being written', async () => {
    const limitedName = clusterName(`${sb.cluster}-limited`);
    const limited = must(createClusterClient(limitedName, { yaml: await sb.limitedKubeconfig() }));
    const gone = clusterName('not-in-the-fleet');
    const fleetCtx = sinkContext({ clusters: fixedFleet([sb, { cluster: limitedName, client: limited }]), fieldManager: 'rxfleet-sinks-test' });
    const names = [randomName('mix'), randomName('mix'), randomName('mix')];
    const writes: ApplyWrite<ConfigMap>[] = [
      cm(names[0] ?? '', { a: '1' }),
      { ...cm('x', {}), cluster: limitedName },
      { ...cm('x', {}), cluster: gone },
      cm(names[1] ?? '', { a: '2' }),
      { ...cm('y', {}), cluster: limitedName },
      cm(names[2] ?? '', { a: '3' }),
    ];
    const outcomes = await lastValueFrom(from(writes).pipe(applyEach(fleetCtx, { concurrency: 3 }), toArray()));
    expect(outcomes).toHaveLength(6);
    const byCluster = (c: string) => outcomes.filter((o) => (E.isLeft(o) ? o.left.cluster : o.right.cluster) === c);
    expect(byCluster(sb.cluster).every((o) => E.isRight(o) && o.right.changed === 'unknown')).toBe(true);
    expect(byCluster(sb.cluster)).toHaveLength(3);
    for (const o of byCluster(limitedName)) {
      expect(E.isLeft(o) && o.left).toMatchObject({ type: 'Forbidden', code: 403, cluster: limitedName });
      expect(E.isLeft(o) && o.left.message).toContain(`cluster "${limitedName}"`);
    }
    const [notEngaged] = byCluster(gone);
    expect(notEngaged !== undefined && E.isLeft(notEngaged) && notEngaged.left).toMatchObject({ type: 'NotEngaged', cluster: gone });
    expect(notEngaged !== undefined && E.isLeft(notEngaged) && notEngaged.left.message).toContain('cluster "not-in-the-fleet"');
    for (const n of names) expect(must(await sb.client.get(configMaps, n, { namespace: sb.namespace })).metadata.name).toBe(n);
    limited.close();
  });

  it('aggregates repeated Events into one Event with a series count', async () => {
    const subject = ok(await firstValueFrom(apply(ctx, cm(randomName('evt'), { a: '1' }))));
    const recorder = eventRecorder(ctx, { reportingController: 'test.rxfleet.dev/sinks', reportingInstance: 'vitest' });
    const record = () =>
      firstValueFrom(
        recorder.record({
          cluster: sb.cluster,
          regarding: referenceTo(configMaps, subject.object ?? { metadata: {} }),
          type: 'Warning',
          reason: 'Repeated',
          action: 'Reconcile',
          note: 'the same thing happened again',
        }),
      );
    const outcomes = [await record(), await record(), await record()];
    const names = new Set(outcomes.map((o) => ok(o).key.name));
    expect(names.size).toBe(1);
    const [eventName] = [...names];
    const event = must(await sb.client.get(eventsV1Events, eventName ?? '', { namespace: sb.namespace }));
    expect(event).toMatchObject({ reason: 'Repeated', type: 'Warning', series: { count: 3 }, regarding: { name: subject.object?.metadata.name, uid: subject.object?.metadata.uid } });
    const list = must(await sb.client.list(eventsV1Events, { namespace: sb.namespace }));
    expect(list.items.filter((e) => e.regarding?.uid === subject.object?.metadata.uid)).toHaveLength(1);
  });
});
