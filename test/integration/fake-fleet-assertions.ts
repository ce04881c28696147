// The API-server behaviours controllers rely on, as assertion functions over one cluster client.
// fake-fleet-parity.test.ts runs each of them against the in-memory fleet and a real
// kube-apiserver: what passes on both is what the fake may be trusted for.
import { expect } from 'vitest';
import type { ClusterClient } from '../../src/client/index.js';
import { E } from '../../src/fp/index.js';
import type { ConfigMap, KubeError, ResourceDescriptor } from '../../src/index.js';
import { configMaps } from '../../src/index.js';
import type { Widget } from './targets.js';
import { randomName } from './targets.js';
import { must } from '../support/wait.js';

/** What every assertion gets: a client, a namespace it may write in, and a widgets CRD with a status subresource. */
export interface ParityEnv {
  readonly client: ClusterClient;
  readonly namespace: string;
  readonly widgets: ResourceDescriptor<Widget>;
}

function failed<T>(r: E.Either<KubeError, T>): KubeError {
  if (E.isRight(r)) throw new Error(`expected a failure, got ${JSON.stringify(r.right)}`);
  return r.left;
}

/** Two managers share a ConfigMap by server-side apply: merge, conflict, shared values, force, removal. */
export async function ssaTwoManagers({ client, namespace }: ParityEnv): Promise<void> {
  const name = randomName('ssa');
  const cm = (data: Record<string, string>) => ({ metadata: { name, namespace }, data });
  must(await client.apply(configMaps, cm({ a: '1', shared: 'x' }), { fieldManager: 'mgr-a' }));
  const merged = must(await client.apply(configMaps, cm({ b: '2' }), { fieldManager: 'mgr-b' }));
  expect(merged.data).toEqual({ a: '1', b: '2', shared: 'x' });

  // A field another manager owns, with another value: 409 naming the owner and the field.
  const conflict = failed(await client.apply(configMaps, cm({ b: '2', shared: 'y' }), { fieldManager: 'mgr-b' }));
  expect(conflict).toMatchObject({ type: 'Conflict', code: 409 });
  expect(conflict.message).toContain('mgr-a');
  expect(conflict.message).toContain('.data.shared');
  expect(must(await client.get(configMaps, name, { namespace })).data?.shared).toBe('x');

  // The same value is no conflict: both own it.
  must(await client.apply(configMaps, cm({ b: '2', shared: 'x' }), { fieldManager: 'mgr-b' }));
  // Force takes the field over; then the first manager conflicts in turn.
  const forced = must(await client.apply(configMaps, cm({ b: '2', shared: 'y' }), { fieldManager: 'mgr-b', force: true }));
  expect(forced.data).toEqual({ a: '1', b: '2', shared: 'y' });
  const back = failed(await client.apply(configMaps, cm({ a: '1', shared: 'x' }), { fieldManager: 'mgr-a' }));
  expect(back.type).toBe('Conflict');
  expect(back.message).toContain('mgr-b');

  // A field a manager stops applying goes, unless another manager owns it too.
  const dropped = must(await client.apply(configMaps, cm({ c: '3' }), { fieldManager: 'mgr-a' }));
  expect(dropped.data).toEqual({ b: '2', c: '3', shared: 'y' });
  const managers = (dropped.metadata.managedFields as readonly { manager?: string; operation?: string }[] | undefined)?.map((m) => `${m.manager}/${m.operation}`).sort();
  expect(managers).toEqual(['mgr-a/Apply', 'mgr-b/Apply']);
}

/** The status subresource: status is written only through /status, and spec only through the object. */
export async function statusSubresource({ client, namespace, widgets }: ParityEnv): Promise<void> {
  const name = randomName('status');
  const created = must(await client.create(widgets, { metadata: { name, namespace }, spec: { size: 1 }, status: { ready: true } }));
  expect(created.status).toBeUndefined();
  // A write of the object ignores status.
  const replaced = must(await client.update(widgets, { ...created, spec: { size: 2 }, status: { ready: true } }));
  expect(replaced.spec).toEqual({ size: 2 });
  expect(replaced.status).toBeUndefined();
  // A write of /status takes status only.
  const patched = must(await client.patch(widgets, name, { spec: { size: 9 }, status: { ready: true, note: 'n' } }, { type: 'merge', namespace, subresource: 'status' }));
  expect(patched.status).toEqual({ ready: true, note: 'n' });
  expect(patched.spec).toEqual({ size: 2 });
  // Server-side apply of /status, by its own manager; the object apply's status is ignored.
  const applied = must(await client.apply(widgets, { metadata: { name, namespace }, status: { note: 'm' } }, { fieldManager: 'status-writer', subresource: 'status', force: true }));
  expect(applied.status).toEqual({ ready: true, note: 'm' });
  const main = must(await client.apply(widgets, { metadata: { name, namespace }, spec: { size: 2 }, status: { note: 'ignored' } }, { fieldManager: 'spec-writer', force: true }));
  expect(main.status).toEqual({ ready: true, note: 'm' });
  // A resource without a status subresource answers 404 for /status.
  const cm = randomName('nostatus');
  must(await client.create(configMaps, { metadata: { name: cm, namespace }, data: { a: '1' } }));
  expect(failed(await client.patch(configMaps, cm, { status: { x: 1 } }, { type: 'merge', namespace, subresource: 'status' })).type).toBe('NotFound');
}

/** A write with a stale resourceVersion fails with 409 Conflict; with the current one it succeeds. */
export async function resourceVersionConflict({ client, namespace }: ParityEnv): Promise<void> {
  const name = randomName('rv');
  const v1 = must(await client.create(configMaps, { metadata: { name, namespace }, data: { a: '1' } }));
  const v2 = must(await client.update(configMaps, { ...v1, data: { a: '2' } }));
  expect(v2.metadata.resourceVersion).not.toBe(v1.metadata.resourceVersion);
  const stale = failed(await client.update(configMaps, { ...v1, data: { a: '3' } }));
  expect(stale).toMatchObject({ type: 'Conflict', code: 409 });
  expect(stale.message).toContain('the object has been modified');
  const stalePatch = failed(await client.patch(configMaps, name, { metadata: { resourceVersion: v1.metadata.resourceVersion }, data: { a: '4' } }, { type: 'merge', namespace }));
  expect(stalePatch.type).toBe('Conflict');
  const testOp = failed(
    await client.patch(configMaps, name, [{ op: 'test', path: '/metadata/resourceVersion', value: v1.metadata.resourceVersion }, { op: 'replace', path: '/data/a', value: '5' }], { type: 'json', namespace }),
  );
  expect(testOp.type).toBe('Invalid');
  const staleDelete = failed(await client.delete(configMaps, name, { namespace, preconditions: { resourceVersion: v1.metadata.resourceVersion ?? '' } }));
  expect(staleDelete.type).toBe('Conflict');
  const current = must(await client.get<ConfigMap>(configMaps, name, { namespace }));
  expect(current.data).toEqual({ a: '2' });
  expect(current.metadata.uid).toMatch(/.+/);
  expect(current.metadata.creationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
}

/** metadata.generation starts at 1 and counts spec changes only; a no-op write changes nothing. */
export async function generation({ client, namespace, widgets }: ParityEnv): Promise<void> {
  const name = randomName('gen');
  const w = must(await client.apply(widgets, { metadata: { name, namespace }, spec: { size: 1 } }, { fieldManager: 'gen-test' }));
  expect(w.metadata.generation).toBe(1);
  const spec = must(await client.patch(widgets, name, { spec: { size: 2 } }, { type: 'merge', namespace }));
  expect(spec.metadata.generation).toBe(2);
  const labels = must(await client.patch(widgets, name, { metadata: { labels: { tier: 'x' } } }, { type: 'merge', namespace }));
  expect(labels.metadata.generation).toBe(2);
  const status = must(await client.patch(widgets, name, { status: { ready: true } }, { type: 'merge', namespace, subresource: 'status' }));
  expect(status.metadata.generation).toBe(2);
  // The merge patch took spec.size over for the client's default manager (its user agent, `rxfleet`).
  const taken = failed(await client.apply(widgets, { metadata: { name, namespace }, spec: { size: 1 } }, { fieldManager: 'gen-test' }));
  expect(taken.type).toBe('Conflict');
  expect(taken.message).toContain('conflict with "rxfleet"');
  expect(taken.causes?.map((c) => c.field)).toEqual(['.spec.size']);
  const again = must(await client.apply(widgets, { metadata: { name, namespace }, spec: { size: 1 } }, { fieldManager: 'gen-test', force: true }));
  expect(again.metadata.generation).toBe(3);
  const noop = must(await client.apply(widgets, { metadata: { name, namespace }, spec: { size: 1 } }, { fieldManager: 'gen-test' }));
  expect(noop.metadata.resourceVersion).toBe(again.metadata.resourceVersion);
  expect(noop.metadata.generation).toBe(3);
}

/** Delete with finalizers marks the object (deletionTimestamp); no finalizer can be added then; removing the last one deletes it. */
export async function finalizers({ client, namespace }: ParityEnv): Promise<void> {
  const name = randomName('fin');
  must(await client.create(configMaps, { metadata: { name, namespace, finalizers: ['rxfleet.dev/a', 'rxfleet.dev/b'] }, data: { a: '1' } }));
  const marked = must(await client.delete(configMaps, name, { namespace })) as ConfigMap;
  expect(marked.metadata.deletionTimestamp).toMatch(/.+/);
  const still = must(await client.get(configMaps, name, { namespace }));
  expect(still.metadata.deletionTimestamp).toBe(marked.metadata.deletionTimestamp);
  const again = must(await client.delete(configMaps, name, { namespace })) as ConfigMap;
  expect(again.metadata.deletionTimestamp).toBe(marked.metadata.deletionTimestamp);
  const added = failed(await client.patch(configMaps, name, { metadata: { finalizers: ['rxfleet.dev/a', 'rxfleet.dev/b', 'rxfleet.dev/c'] } }, { type: 'merge', namespace }));
  expect(added).toMatchObject({ type: 'Invalid', code: 422 });
  expect(added.message).toContain('no new finalizers can be added if the object is being deleted');
  // Other fields may still change while the object waits.
  must(await client.patch(configMaps, name, { metadata: { finalizers: ['rxfleet.dev/b'] }, data: { a: '2' } }, { type: 'merge', namespace }));
  must(await client.patch(configMaps, name, [{ op: 'remove', path: '/metadata/finalizers/0' }], { type: 'json', namespace }));
  expect(failed(await client.get(configMaps, name, { namespace })).type).toBe('NotFound');
}

/** metadata.finalizers is a set: two managers apply one finalizer each and both stay; one that stops applying its own removes only that one. */
export async function finalizerSet({ client, namespace }: ParityEnv): Promise<void> {
  const name = randomName('finset');
  const cm = (finalizers: string[]) => ({ metadata: { name, namespace, finalizers } });
  must(await client.apply(configMaps, cm(['rxfleet.dev/a']), { fieldManager: 'mgr-a' }));
  const both = must(await client.apply(configMaps, cm(['rxfleet.dev/b']), { fieldManager: 'mgr-b' }));
  expect(both.metadata.finalizers).toEqual(['rxfleet.dev/a', 'rxfleet.dev/b']);
  const shared = must(await client.apply(configMaps, cm(['rxfleet.dev/a', 'rxfleet.dev/b']), { fieldManager: 'mgr-a' }));
  expect(shared.metadata.finalizers).toEqual(['rxfleet.dev/a', 'rxfleet.dev/b']);
  // mgr-a stops applying both: its own goes, the one mgr-b applies too stays.
  const left = must(await client.apply(configMaps, { metadata: { name, namespace } }, { fieldManager: 'mgr-a' }));
  expect(left.metadata.finalizers).toEqual(['rxfleet.dev/b']);
  const none = must(await client.apply(configMaps, { metadata: { name, namespace } }, { fieldManager: 'mgr-b' }));
  expect(none.metadata.finalizers).toBeUndefined();
}

/** Every assertion, by name. */
export const parityAssertions = { ssaTwoManagers, statusSubresource, resourceVersionConflict, generation, finalizers, finalizerSet } as const;

// Where the in-memory fleet differs: each function reports what happened, and the parity test says
// what each backend shows (docs/testing.md lists the same differences).

/** A strategic merge patch of a custom resource: a server refuses it (415), the fake applies it as a merge patch. */
export async function strategicPatchOfCustomResource({ client, namespace, widgets }: ParityEnv): Promise<string> {
  const name = randomName('smp');
  must(await client.create(widgets, { metadata: { name, namespace }, spec: { size: 1 } }));
  const r = await client.patch(widgets, name, { spec: { size: 2 } }, { type: 'strategic', namespace });
  return E.isLeft(r) ? `${r.left.code ?? r.left.type}` : 'patched';
}

/** The differences, by name. */
export const parityDifferences = { strategicPatchOfCustomResource } as const;
