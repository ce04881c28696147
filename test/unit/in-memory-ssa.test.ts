// The in-memory fleet's write semantics in detail, through its client: ownership taken by plain
// writes, status applies by two managers, dry runs, JSON patch operations and managedFields.
import { firstValueFrom } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { E } from '../../src/fp/index.js';
import type { ConfigMap, KubeObject } from '../../src/index.js';
import { clusterName, configMaps, objectKey, resource } from '../../src/index.js';
import { patch, sinkContext } from '../../src/sinks/index.js';
import { inMemoryFleet } from '../../src/testing/index.js';
import { must } from '../support/wait.js';

interface Widget extends KubeObject {
  spec?: { size?: number; image?: string };
  status?: { ready?: boolean; note?: string };
}
const widgets = resource<Widget>({ group: 'demo.rxfleet.dev', version: 'v1', plural: 'widgets', kind: 'Widget', namespaced: true });
const client = () => inMemoryFleet({ clusters: { east: [] }, resources: [widgets] }).cluster('east').client;
const meta = (name: string) => ({ name, namespace: 'default' });


describe('the in-memory fleet writes', () => {
  it('gives a field changed by a plain write to its writer, so the applier conflicts on it', async () => {
    const c = client();
    must(await c.apply(configMaps, { metadata: meta('a'), data: { k: '1', j: '1' } }, { fieldManager: 'ctl' }));
    must(await c.patch(configMaps, 'a', { data: { k: 'edited' } }, { type: 'merge', namespace: 'default', fieldManager: 'kubectl-edit' }));
    const r = await c.apply(configMaps, { metadata: meta('a'), data: { k: '1', j: '1' } }, { fieldManager: 'ctl' });
    expect(E.isLeft(r) && [r.left.type, r.left.causes?.map((x) => [x.field, x.message])]).toEqual(['Conflict', [['.data.k', 'conflict with "kubectl-edit" using v1']]]);
    // The field it did not touch is still the applier's alone: dropping it removes it.
    const dropped = must(await c.apply(configMaps, { metadata: meta('a'), data: { k: 'edited' } }, { fieldManager: 'ctl' }));
    expect(dropped.data).toEqual({ k: 'edited' });
  });

  it('keeps status applies by two managers apart, and conflicts only on a shared field', async () => {
    const c = client();
    must(await c.create(widgets, { metadata: meta('w'), spec: { size: 1 } }));
    const status = (s: NonNullable<Widget['status']>, fieldManager: string, force = false) => c.apply(widgets, { metadata: meta('w'), status: s }, { fieldManager, subresource: 'status', force });
    must(await status({ ready: true }, 'probe'));
    expect(must(await status({ note: 'n' }, 'notes')).status).toEqual({ ready: true, note: 'n' });
    const clash = await status({ ready: false }, 'notes');
    expect(E.isLeft(clash) && clash.left.message).toContain('conflict with "probe"');
    const forced = must(await status({ ready: false, note: 'n' }, 'notes', true));
    expect(forced.status).toEqual({ ready: false, note: 'n' });
    const entries = (forced.metadata.managedFields as readonly { manager: string; subresource?: string; fieldsV1: unknown }[]).map((m) => [m.manager, m.subresource, m.fieldsV1]);
    expect(entries).toEqual([
      ['rxfleet', undefined, { 'f:spec': { 'f:size': {} } }],
      ['notes', 'status', { 'f:status': { 'f:note': {}, 'f:ready': {} } }],
    ]);
  });

  it('answers a dry run with the result and stores nothing', async () => {
    const c = client();
    const live = must(await c.create(configMaps, { metadata: meta('a'), data: { k: '1' } }));
    const dry = must(await c.apply(configMaps, { metadata: meta('a'), data: { k: '2' } }, { fieldManager: 'ctl', dryRun: true, force: true }));
    expect(dry.data).toEqual({ k: '2' });
    const now = must(await c.get<ConfigMap>(configMaps, 'a', { namespace: 'default' }));
    expect([now.data, now.metadata.resourceVersion]).toEqual([{ k: '1' }, live.metadata.resourceVersion]);
    must(await c.create(configMaps, { metadata: meta('b') }, { dryRun: true }));
    expect(must(await c.list(configMaps)).items.map((o) => o.metadata.name)).toEqual(['a']);
  });

  it('applies JSON patch operations, and refuses a patch whose path does not exist', async () => {
    const c = client();
    must(await c.create(configMaps, { metadata: { ...meta('a'), labels: { x: '1' } }, data: { k: '1' } }));
    const patched = must(
      await c.patch(
        configMaps,
        'a',
        [
          { op: 'add', path: '/data/j', value: '2' },
          { op: 'copy', from: '/data/k', path: '/data/c' },
          { op: 'move', from: '/metadata/labels/x', path: '/metadata/labels/y' },
          { op: 'replace', path: '/data/k', value: '9' },
        ],
        { type: 'json', namespace: 'default' },
      ),
    );
    expect([patched.data, patched.metadata.labels]).toEqual([{ k: '9', j: '2', c: '1' }, { y: '1' }]);
    const bad = await c.patch(configMaps, 'a', [{ op: 'remove', path: '/data/nope' }], { type: 'json', namespace: 'default' });
    expect(E.isLeft(bad) && [bad.left.type, bad.left.code]).toEqual(['Invalid', 422]);
  });

  it('creates with a server-side apply, and answers 404 for status of an object that is not there', async () => {
    const c = client();
    const made = must(await c.apply(widgets, { metadata: meta('w'), spec: { size: 3 }, status: { ready: true } }, { fieldManager: 'ctl' }));
    expect([made.spec, made.status, made.metadata.generation]).toEqual([{ size: 3 }, undefined, 1]);
    const missing = await c.apply(widgets, { metadata: meta('nope'), status: { ready: true } }, { fieldManager: 'ctl', subresource: 'status' });
    expect(E.isLeft(missing) && missing.left.type).toBe('NotFound');
  });

  it('answers a status write to a resource without a status subresource so that the sinks tell it from a missing object', async () => {
    const fleet = inMemoryFleet({ clusters: { east: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: meta('a') }] }, resources: [widgets] });
    const ctx = sinkContext({ clusters: fleet.sinkClusters, fieldManager: 'ctl' });
    const write = (name: string) => patch(ctx, { key: objectKey(clusterName('east'), 'default', name), resource: configMaps, subresource: 'status', patch: { status: { x: 1 } } });
    const noStatus = await firstValueFrom(write('a'));
    expect(E.isLeft(noStatus) && noStatus.left.type).toBe('NoStatusSubresource');
    const w = fleet.put('east', widgets, { metadata: meta('w') });
    expect(w.metadata.generation).toBe(1);
    const missing = await firstValueFrom(patch(ctx, { key: objectKey(clusterName('east'), 'default', 'nope'), resource: widgets, subresource: 'status', patch: { status: { ready: true } } }));
    expect(E.isLeft(missing) && missing.left.type).toBe('NotFound');
  });
});
