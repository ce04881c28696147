// The per-cluster client against real servers: kcp (through a workspace's /clusters/<path> URL
// prefix) and kube-apiserver + etcd.
import { firstValueFrom, map, takeWhile, toArray, filter, timeout } from 'rxjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { createClusterClient, kubeError } from '../../src/client/index.js';
import type { RawWatchEvent } from '../../src/client/watch-line.js';
import { parseWatchLine } from '../../src/client/watch-line.js';
import { E } from '../../src/fp/index.js';
import type { ConfigMap } from '../../src/index.js';
import { configMaps } from '../../src/index.js';
import type { Sandbox } from './targets.js';
import { randomName, targets, widgetsCrd } from './targets.js';
import { must } from '../support/wait.js';

describe.each(targets)('the cluster client against $name', (target) => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await target.sandbox();
  });

  it('creates, reads, replaces, patches and deletes a ConfigMap', async () => {
    const name = randomName('crud');
    const created = must(await sb.client.create(configMaps, { metadata: { name, namespace: sb.namespace }, data: { a: '1' } }));
    expect(created.metadata.uid).toBeTruthy();

    const again = await sb.client.create(configMaps, { metadata: { name, namespace: sb.namespace }, data: {} });
    expect(E.isLeft(again) && again.left.type).toBe('AlreadyExists');

    const got = must(await sb.client.get(configMaps, name, { namespace: sb.namespace }));
    expect(got.data).toEqual({ a: '1' });

    const replaced = must(await sb.client.update(configMaps, { ...got, data: { a: '2' } }));
    expect(replaced.data).toEqual({ a: '2' });

    // A PUT with the stale resourceVersion is a Conflict, not a silent overwrite.
    const stale = await sb.client.update(configMaps, { ...got, data: { a: 'stale' } });
    expect(E.isLeft(stale) && stale.left.type).toBe('Conflict');

    const patched = must(await sb.client.patch(configMaps, name, { data: { b: '3' } }, { type: 'merge', namespace: sb.namespace }));
    expect(patched.data).toEqual({ a: '2', b: '3' });

    const jsonPatched = must(await sb.client.patch(configMaps, name, [{ op: 'remove', path: '/data/a' }], { type: 'json', namespace: sb.namespace }));
    expect(jsonPatched.data).toEqual({ b: '3' });

    must(await sb.client.delete(configMaps, name, { namespace: sb.namespace, preconditions: { uid: created.metadata.uid ?? '' } }));
    const gone = await sb.client.get(configMaps, name, { namespace: sb.namespace });
    expect(E.isLeft(gone) && gone.left.type).toBe('NotFound');
    expect(E.isLeft(gone) && gone.left.message).toContain(`cluster "${sb.cluster}"`);
  });

  it('refuses a delete whose uid precondition does not match', async () => {
    const name = randomName('precond');
    must(await sb.client.create(configMaps, { metadata: { name, namespace: sb.namespace } }));
    const r = await sb.client.delete(configMaps, name, { namespace: sb.namespace, preconditions: { uid: 'not-the-uid' } });
    expect(E.isLeft(r) && r.left.type).toBe('Conflict');
  });

  it('server-side applies idempotently, surfaces a conflicting manager as Conflict, and forces', async () => {
    const name = randomName('ssa');
    const desired = { metadata: { name, namespace: sb.namespace }, data: { owner: 'first' } };
    const first = must(await sb.client.apply(configMaps, desired, { fieldManager: 'rxfleet-first' }));
    const second = must(await sb.client.apply(configMaps, desired, { fieldManager: 'rxfleet-first' }));
    const third = must(await sb.client.apply(configMaps, desired, { fieldManager: 'rxfleet-first' }));
    // Re-applying the same intent is a no-op. kube-apiserver is a no-op from the first re-apply;
    // kcp (v0.28) writes once more after an apply that created the object (same content, new
    // resourceVersion) and is a no-op from then on.
    expect(third.metadata.resourceVersion).toBe(second.metadata.resourceVersion);
    if (target.name === 'kube-apiserver') expect(second.metadata.resourceVersion).toBe(first.metadata.resourceVersion);
    expect(third.data).toEqual(desired.data);

    const rival = { metadata: { name, namespace: sb.namespace }, data: { owner: 'second' } };
    const conflict = await sb.client.apply(configMaps, rival, { fieldManager: 'rxfleet-second' });
    expect(E.isLeft(conflict) && conflict.left.type).toBe('Conflict');
    expect(E.isLeft(conflict) && conflict.left.code).toBe(409);

    const forced = must(await sb.client.apply<ConfigMap>(configMaps, rival, { fieldManager: 'rxfleet-second', force: true }));
    expect(forced.data).toEqual({ owner: 'second' });
  });

  it('creates a CRD, uses it, and writes status only through the status subresource', async () => {
    const widgets = await widgetsCrd(sb.client, sb.namespace);
    const name = randomName('w');
    const created = must(await sb.client.create(widgets, { metadata: { name, namespace: sb.namespace }, spec: { size: 3 } }));
    expect(created.spec).toEqual({ size: 3 });

    const withStatus = must(await sb.client.patch(widgets, name, { status: { ready: true }, spec: { size: 99 } }, { type: 'merge', namespace: sb.namespace, subresource: 'status' }));
    expect(withStatus.status).toEqual({ ready: true });
    // The status subresource ignores spec changes.
    expect(withStatus.spec).toEqual({ size: 3 });

    // The merge patch above made the default manager ("rxfleet", the user agent) own .status.ready:
    // another manager's apply of that field conflicts until it forces.
    const statusIntent = { metadata: { name, namespace: sb.namespace }, status: { ready: false } };
    const contested = await sb.client.apply(widgets, statusIntent, { fieldManager: 'rxfleet-status', subresource: 'status' });
    expect(E.isLeft(contested) && contested.left.type).toBe('Conflict');
    const applied = must(await sb.client.apply(widgets, statusIntent, { fieldManager: 'rxfleet-status', subresource: 'status', force: true }));
    expect(applied.status).toEqual({ ready: false });
    expect(applied.spec).toEqual({ size: 3 });

    const noStatus = await sb.client.patch(configMaps, 'anything', { status: {} }, { type: 'merge', namespace: sb.namespace, subresource: 'status' });
    expect(E.isLeft(noStatus) && noStatus.left.type).toBe('NotFound');
  });

  it('lists 1,200 objects in pages of 500 and returns them all', async () => {
    const label = randomName('page');
    const names = Array.from({ length: 1200 }, (_, i) => `${label}-${i}`);
    for (let i = 0; i < names.length; i += 40) {
      await Promise.all(
        names.slice(i, i + 40).map(async (name) =>
          must(await sb.client.create(configMaps, { metadata: { name, namespace: sb.namespace, labels: { batch: label } } })),
        ),
      );
    }
    const firstPage = must(await sb.client.list(configMaps, { namespace: sb.namespace, labelSelector: `batch=${label}`, limit: 500 }));
    expect(firstPage.items).toHaveLength(500);
    expect(firstPage.metadata.continue).toBeTruthy();

    const all = must(await sb.client.listAll(configMaps, { namespace: sb.namespace, labelSelector: `batch=${label}` }));
    expect(all.items).toHaveLength(1200);
    expect(new Set(all.items.map((o) => o.metadata.name))).toEqual(new Set(names));
    expect(all.metadata.resourceVersion).toBeTruthy();
    expect(all.metadata.continue).toBeUndefined();
  });

  it('watches a namespace and sees add, modify and delete in order, with bookmarks asked for', async () => {
    const name = randomName('watched');
    const list = must(await sb.client.list(configMaps, { namespace: sb.namespace, limit: 1 }));
    const events = firstValueFrom(
      sb.client.watch(configMaps, { namespace: sb.namespace, resourceVersion: list.metadata.resourceVersion ?? '' }).pipe(
        map((line) => parseWatchLine<ConfigMap>(sb.cluster, line)),
        filter(E.isRight),
        map((r) => r.right),
        filter((ev: RawWatchEvent<ConfigMap>) => ev.object.metadata.name === name),
        takeWhile((ev) => ev.type !== 'DELETED', true),
        map((ev) => [ev.type, ev.object.data?.v]),
        toArray(),
        timeout(60_000),
      ),
    );
    // Give the watch request a moment to be registered before writing; the RV makes it exact anyway.
    must(await sb.client.create(configMaps, { metadata: { name, namespace: sb.namespace }, data: { v: '1' } }));
    must(await sb.client.patch(configMaps, name, { data: { v: '2' } }, { type: 'merge', namespace: sb.namespace }));
    must(await sb.client.delete(configMaps, name, { namespace: sb.namespace }));
    expect(await events).toEqual([
      ['ADDED', '1'],
      ['MODIFIED', '2'],
      ['DELETED', '2'],
    ]);
  });

  it('surfaces a 403 from an identity without rights as Forbidden, naming the cluster and never the token', async () => {
    const yaml = await sb.limitedKubeconfig();
    const limited = must(createClusterClient(sb.cluster, { yaml }));
    const r = await limited.list(configMaps, { namespace: sb.namespace });
    expect(E.isLeft(r) && r.left.type).toBe('Forbidden');
    expect(E.isLeft(r) && r.left.code).toBe(403);
    expect(E.isLeft(r) && r.left.message).toContain(`cluster "${sb.cluster}"`);
    const token = /token: (\S+)|"token":\s*"([^"]+)"/.exec(yaml);
    const secret = token?.[1] ?? token?.[2] ?? '';
    expect(secret.length).toBeGreaterThan(10);
    expect(JSON.stringify(r)).not.toContain(secret);

    const watchError = await firstValueFrom(limited.watch(configMaps, { namespace: sb.namespace })).then(
      () => undefined,
      (e: unknown) => e as { type: string },
    );
    expect(watchError?.type).toBe('Forbidden');
    limited.close();
  });

  it('sends nothing when a write is fenced, and the fence is asked right before the request leaves', async () => {
    const name = randomName('fenced');
    let asked = 0;
    const refusal = kubeError('Fenced', sb.cluster, 'replica r-1 may not write: it has not renewed its lease');
    const refused = await sb.client.apply(configMaps, { metadata: { name, namespace: sb.namespace }, data: { a: '1' } }, { fieldManager: 'fence-test', fence: () => (asked++, refusal) });
    expect(E.isLeft(refused) && refused.left).toBe(refusal);
    const deleted = await sb.client.delete(configMaps, name, { namespace: sb.namespace, fence: () => refusal });
    expect(E.isLeft(deleted) && deleted.left.type).toBe('Fenced');
    const gone = await sb.client.get(configMaps, name, { namespace: sb.namespace });
    expect(E.isLeft(gone) && gone.left.type).toBe('NotFound');
    // An open fence is asked before the request and again when it gets its socket.
    const allowed = must(await sb.client.apply(configMaps, { metadata: { name, namespace: sb.namespace }, data: { a: '2' } }, { fieldManager: 'fence-test', fence: () => (asked++, undefined) }));
    expect(allowed.data).toEqual({ a: '2' });
    expect(asked).toBe(3);
  });
});
