// The pure pieces of the kcp providers: splitting a wildcard watch by logical cluster, following
// bindings, URL sets, the tenant guard and URL helpers.
import { describe, expect, it } from 'vitest';
import { lastValueFrom, of, toArray } from 'rxjs';
import type { ClusterClient, KubeObject, WatchEvent } from '../../src/index.js';
import { clusterName, createStore, E, objectKey, resource } from '../../src/index.js';
import type { APIBinding, APIExportEndpointSlice } from '../../src/providers/kcp/index.js';
import { clusterUrl, isBoundTo, kcpBase, presenceTracker, retarget, tenantGuard, urlsOf, wildcardSplitter, wildcardUrl } from '../../src/providers/kcp/index.js';

const obj = (cluster: string, name: string, rv = '1'): KubeObject => ({ metadata: { name, namespace: 'default', resourceVersion: rv, annotations: { 'kcp.io/cluster': cluster } } });
const binding = (cluster: string, phase: string, extra: Partial<APIBinding['metadata']> = {}): APIBinding => ({
  metadata: { name: 'b', annotations: { 'kcp.io/cluster': cluster }, ...extra },
  spec: { reference: { export: { name: 'widgets' } } },
  status: { phase },
});

describe('wildcardSplitter', () => {
  it('should key the same namespace/name in two logical clusters apart', () => {
    const store = createStore<KubeObject>();
    const split = wildcardSplitter(store);
    split.apply({ type: 'initStarted' });
    split.apply({ type: 'initApply', object: obj('a', 'w') });
    split.apply({ type: 'initApply', object: obj('b', 'w') });
    const out = split.apply({ type: 'initDone' });
    expect(out.map((e) => `${e.logical}/${e.event.type}`).sort()).toEqual(['a/applied', 'b/applied']);
    expect(store.get(objectKey(clusterName('a'), 'default', 'w'))).toBeDefined();
    expect(store.get(objectKey(clusterName('b'), 'default', 'w'))).toBeDefined();
  });

  it('should turn a relist into deletes for objects and whole workspaces that vanished', () => {
    const store = createStore<KubeObject>();
    const split = wildcardSplitter(store);
    const events: WatchEvent[] = [{ type: 'initStarted' }, { type: 'initApply', object: obj('a', 'w') }, { type: 'initApply', object: obj('a', 'x') }, { type: 'initApply', object: obj('b', 'w') }, { type: 'initDone' }];
    for (const ev of events) split.apply(ev);
    split.apply({ type: 'initStarted' });
    split.apply({ type: 'initApply', object: obj('a', 'w', '2') });
    const out = split.apply({ type: 'initDone' });
    expect(out.filter((e) => e.event.type === 'deleted').map((e) => `${e.logical}/${e.event.object.metadata.name ?? ''}`).sort()).toEqual(['a/x', 'b/w']);
    expect(store.size).toBe(1);
    expect([...split.clusters()]).toEqual(['a']);
  });

  it('should pass live events through and drop everything on drop()', () => {
    const store = createStore<KubeObject>();
    const split = wildcardSplitter(store);
    split.apply({ type: 'initStarted' });
    split.apply({ type: 'initDone' });
    expect(split.apply({ type: 'applied', object: obj('a', 'w') })).toEqual([{ logical: 'a', event: { type: 'applied', object: obj('a', 'w') } }]);
    expect(split.apply({ type: 'applied', object: { metadata: { name: 'no-annotation' } } })).toEqual([]);
    expect(split.drop().map((e) => e.event.type)).toEqual(['deleted']);
    expect(store.size).toBe(0);
  });
});

describe('presenceTracker of APIBindings', () => {
  it('should engage on the first bound binding and disengage when the last one goes', () => {
    const t = presenceTracker<APIBinding>((b) => isBoundTo(b, 'widgets'));
    t.apply({ type: 'initStarted' });
    t.apply({ type: 'initApply', object: binding('a', 'Binding') });
    expect(t.apply({ type: 'initDone' })).toEqual([]);
    expect(t.apply({ type: 'applied', object: binding('a', 'Bound') }).map((x) => x.type)).toEqual(['present']);
    expect(t.apply({ type: 'applied', object: binding('a', 'Bound') })).toEqual([]);
    const second: APIBinding = { ...binding('a', 'Bound'), metadata: { name: 'b2', annotations: { 'kcp.io/cluster': 'a' } } };
    expect(t.apply({ type: 'applied', object: second })).toEqual([]);
    expect(t.apply({ type: 'deleted', object: binding('a', 'Bound') })).toEqual([]);
    expect(t.apply({ type: 'deleted', object: second })).toEqual([{ type: 'absent', logical: 'a' }]);
  });

  it('should treat a binding being deleted, or one of another export, as not bound', () => {
    expect(isBoundTo(binding('a', 'Bound', { deletionTimestamp: '2026-01-01T00:00:00Z' }), 'widgets')).toBe(false);
    expect(isBoundTo(binding('a', 'Bound'), 'gadgets')).toBe(false);
    expect(isBoundTo({ ...binding('a', 'Binding'), status: { conditions: [{ type: 'Ready', status: 'True' }] } }, 'widgets')).toBe(true);
  });

  it('should report clusters missing from a relist as absent', () => {
    const t = presenceTracker<APIBinding>((b) => isBoundTo(b, 'widgets'));
    t.apply({ type: 'initStarted' });
    t.apply({ type: 'initApply', object: binding('a', 'Bound') });
    t.apply({ type: 'initApply', object: binding('b', 'Bound') });
    expect(t.apply({ type: 'initDone' }).map((x) => `${x.type}:${x.logical}`).sort()).toEqual(['present:a', 'present:b']);
    t.apply({ type: 'initStarted' });
    t.apply({ type: 'initApply', object: binding('b', 'Bound') });
    expect(t.apply({ type: 'initDone' })).toEqual([{ type: 'absent', logical: 'a' }]);
    expect(t.drop()).toEqual([{ type: 'absent', logical: 'b' }]);
  });
});

describe('urlsOf', () => {
  it('should emit the endpoint URL set each time it changes, starting empty', async () => {
    const slice = (urls: string[]): APIExportEndpointSlice => ({ metadata: { name: 'widgets' }, status: { endpoints: urls.map((url) => ({ url })) } });
    const events: WatchEvent<APIExportEndpointSlice>[] = [
      { type: 'initStarted' },
      { type: 'initApply', object: slice([]) },
      { type: 'initDone' },
      { type: 'applied', object: slice(['https://s1/x']) },
      { type: 'applied', object: slice(['https://s1/x']) },
      { type: 'applied', object: slice(['https://s2/x', 'https://s1/x']) },
      { type: 'deleted', object: slice([]) },
    ];
    const out = await lastValueFrom(of(...events).pipe(urlsOf((s) => (s.status?.endpoints ?? []).map((e) => e.url)), toArray()));
    expect(out).toEqual([[], ['https://s1/x'], ['https://s1/x', 'https://s2/x'], []]);
  });
});

describe('URL helpers', () => {
  it('should build wildcard and per-cluster URLs and find the kcp base', () => {
    expect(wildcardUrl('https://k/services/apiexport/p/e/')).toBe('https://k/services/apiexport/p/e/clusters/*');
    expect(clusterUrl('https://k/services/apiexport/p/e', '2x9k')).toBe('https://k/services/apiexport/p/e/clusters/2x9k');
    expect(kcpBase('https://k:6443/clusters/root:org')).toBe('https://k:6443');
    expect(kcpBase('https://k:6443/prefix/services/apiexport/p/e')).toBe('https://k:6443/prefix');
  });
});

describe('tenantGuard', () => {
  const widgets = resource({ group: 'example.com', version: 'v1', plural: 'widgets', kind: 'Widget', namespaced: true });
  const sent: string[] = [];
  const ok = (verb: string) => (): Promise<E.Either<never, KubeObject>> => {
    sent.push(verb);
    return Promise.resolve(E.right({ metadata: {} }));
  };
  const inner = { cluster: clusterName('a'), server: 'https://k/clusters/a', create: ok('create'), replace: ok('replace'), apply: ok('apply'), patch: ok('patch') } as unknown as ClusterClient;
  const guarded = tenantGuard(inner, 'a');

  it('should refuse writes of another cluster\'s object with an error naming both clusters, sending nothing', async () => {
    sent.length = 0;
    const r = await guarded.apply(widgets, obj('b', 'w'), { fieldManager: 'm' });
    expect(E.isLeft(r) && r.left._tag === 'Forbidden' && r.left.message.includes('"b"') && r.left.message.includes('"a"')).toBe(true);
    expect(E.isLeft(await guarded.create(widgets, obj('b', 'w')))).toBe(true);
    expect(E.isLeft(await guarded.replace(widgets, obj('b', 'w')))).toBe(true);
    expect(E.isLeft(await guarded.patch(widgets, 'w', [{ op: 'add', path: '/metadata/annotations/kcp.io~1cluster', value: 'b' }], { type: 'json' }))).toBe(true);
    expect(sent).toEqual([]);
  });

  it('should let through own objects, unannotated objects and retargeted ones', async () => {
    sent.length = 0;
    expect(E.isRight(await guarded.apply(widgets, obj('a', 'w'), { fieldManager: 'm' }))).toBe(true);
    expect(E.isRight(await guarded.create(widgets, { metadata: { name: 'new' } }))).toBe(true);
    expect(E.isRight(await guarded.create(widgets, retarget(obj('b', 'w'))))).toBe(true);
    expect(E.isRight(await guarded.patch(widgets, 'w', { status: { x: 1 } }, { type: 'merge', subresource: 'status' }))).toBe(true);
    expect(sent).toEqual(['apply', 'create', 'create', 'patch']);
  });
});
