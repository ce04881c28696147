// The pure pieces of the kcp providers: one wildcard watch split by logical cluster (the split cache
// every APIExport workspace's informers read), which selections it can serve, following bindings,
// URL sets, the tenant guard and URL helpers.
import { describe, expect, it } from 'vitest';
import { lastValueFrom, NEVER, of, Subject, toArray } from 'rxjs';
import type { ClusterClient } from '../../src/client/index.js';
import { E } from '../../src/fp/index.js';
import type { KubeObject } from '../../src/index.js';
import { clusterName, objectKey, resource } from '../../src/index.js';
import { kcpBase } from '../../src/providers/kcp/credentials.js';
import { logicalScope, wildcardServes } from '../../src/providers/kcp/endpoint.js';
import type { APIBinding, APIExportEndpointSlice } from '../../src/providers/kcp/index.js';
import { retarget, tenantGuard } from '../../src/providers/kcp/index.js';
import { isBoundTo, presenceTracker } from '../../src/providers/kcp/presence.js';
import { workspaceOf } from '../../src/providers/kcp/sources.js';
import { clusterUrl, urlsOf, wildcardUrl } from '../../src/providers/kcp/urls.js';
import type { WatchEvent } from '../../src/streams/index.js';
import { splitCache } from '../../src/streams/split-cache.js';
import { unhurried } from '../support/unhurried.js';

const obj = (cluster: string, name: string, rv = '1'): KubeObject => ({ metadata: { name, namespace: 'default', resourceVersion: rv, annotations: { 'kcp.io/cluster': cluster } } });
const binding = (cluster: string, phase: string, extra: Partial<APIBinding['metadata']> = {}): APIBinding => ({
  metadata: { name: 'b', annotations: { 'kcp.io/cluster': cluster }, ...extra },
  spec: { reference: { export: { name: 'widgets' } } },
  status: { phase },
});

/** One wildcard watch (a Subject standing in for it) split by kcp.io/cluster, as each endpoint does. */
function wildcard(): { readonly watch: Subject<WatchEvent>; readonly split: ReturnType<typeof splitCache<KubeObject>> } {
  const watch = new Subject<WatchEvent>();
  return { watch, split: splitCache<KubeObject>({ events: watch, health: NEVER, scopeOf: logicalScope, scheduler: unhurried }) };
}

const labelOf = (ev: WatchEvent): string => (ev.type === 'initStarted' || ev.type === 'initDone' ? ev.type : `${ev.type} ${ev.object.metadata.name ?? ''}`);

describe('a wildcard watch split by logical cluster', () => {
  it('keys the same namespace/name in two logical clusters apart, each under its fleet name', () => {
    const { watch, split } = wildcard();
    const a = split.view(clusterName('a'), clusterName('root:org:a'));
    const b = split.view(clusterName('b'), clusterName('b'));
    const seen: string[] = [];
    const subs = [a.events.subscribe((ev) => seen.push(`a ${labelOf(ev)}`)), b.events.subscribe((ev) => seen.push(`b ${labelOf(ev)}`))];
    for (const ev of [{ type: 'initStarted' }, { type: 'initApply', object: obj('a', 'w') }, { type: 'initApply', object: obj('b', 'w') }, { type: 'initDone' }] as WatchEvent[]) watch.next(ev);
    expect(seen.filter((l) => l.includes('initApply')).sort()).toEqual(['a initApply w', 'b initApply w']);
    expect(a.store.get(objectKey(clusterName('root:org:a'), 'default', 'w'))).toBeDefined();
    expect(a.store.list()).toHaveLength(1);
    expect(b.store.get(objectKey(clusterName('b'), 'default', 'w'))?.metadata.annotations?.['kcp.io/cluster']).toBe('b');
    for (const s of subs) s.unsubscribe();
  });

  it('turns a relist into deletes for objects and whole workspaces that vanished', () => {
    const { watch, split } = wildcard();
    const a = split.view(clusterName('a'), clusterName('a'));
    const b = split.view(clusterName('b'), clusterName('b'));
    const seen: string[] = [];
    const subs = [a.events.subscribe((ev) => seen.push(`a ${labelOf(ev)}`)), b.events.subscribe((ev) => seen.push(`b ${labelOf(ev)}`))];
    const first: WatchEvent[] = [{ type: 'initStarted' }, { type: 'initApply', object: obj('a', 'w') }, { type: 'initApply', object: obj('a', 'x') }, { type: 'initApply', object: obj('b', 'w') }, { type: 'initDone' }];
    for (const ev of first) watch.next(ev);
    seen.length = 0;
    for (const ev of [{ type: 'initStarted' }, { type: 'initApply', object: obj('a', 'w', '2') }, { type: 'initDone' }] as WatchEvent[]) watch.next(ev);
    expect(seen.filter((l) => l.includes('deleted')).sort()).toEqual(['a deleted x', 'b deleted w']);
    expect(a.store.list().map((o) => o.metadata.name)).toEqual(['w']);
    expect(b.store.list()).toEqual([]);
    for (const s of subs) s.unsubscribe();
  });

  it('passes live events to their workspace only, ignores objects without kcp.io/cluster, and empties the cache when the last view leaves', () => {
    const { watch, split } = wildcard();
    const a = split.view(clusterName('a'), clusterName('a'));
    const seen: string[] = [];
    const sub = a.events.subscribe((ev) => seen.push(labelOf(ev)));
    watch.next({ type: 'initStarted' });
    watch.next({ type: 'initDone' });
    watch.next({ type: 'applied', object: obj('a', 'w') });
    watch.next({ type: 'applied', object: obj('b', 'w') });
    watch.next({ type: 'applied', object: { metadata: { name: 'no-annotation', namespace: 'default' } } });
    expect(seen).toEqual(['initStarted', 'initDone', 'applied w']);
    expect(a.store.list()).toHaveLength(1);
    sub.unsubscribe();
    expect(a.store.list()).toEqual([]);
  });
});

describe('which selections a wildcard watch serves', () => {
  it('serves every object, label selectors and metadata.name field selectors, and leaves namespaces and other fields to per-workspace watches', () => {
    expect(wildcardServes({})).toBe(true);
    expect(wildcardServes({ labelSelector: 'app=web,tier!=db' })).toBe(true);
    expect(wildcardServes({ fieldSelector: 'metadata.name=settings' })).toBe(true);
    expect(wildcardServes({ fieldSelector: 'metadata.name!=a,metadata.name!=b' })).toBe(true);
    // kcp v0.28.1 refuses a namespaced wildcard (400) and answers metadata.namespace on the wildcard with nothing.
    expect(wildcardServes({ namespace: 'default' })).toBe(false);
    expect(wildcardServes({ fieldSelector: 'metadata.namespace=default' })).toBe(false);
    expect(wildcardServes({ fieldSelector: 'metadata.name=a,status.phase=Running' })).toBe(false);
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

  it('should keep a binding being deleted as bound (its objects still need their finalizers removed), and one of another export as not bound', () => {
    expect(isBoundTo(binding('a', 'Bound', { deletionTimestamp: '2026-01-01T00:00:00Z' }), 'widgets')).toBe(true);
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
    expect(workspaceOf('https://k:6443/clusters/root:org:provider')).toBe('root:org:provider');
    expect(workspaceOf('https://k:6443/')).toBe('https://k:6443/');
  });
});

describe('tenantGuard', () => {
  const widgets = resource({ group: 'example.com', version: 'v1', plural: 'widgets', kind: 'Widget', namespaced: true });
  const sent: string[] = [];
  const ok = (verb: string) => (): Promise<E.Either<never, KubeObject>> => {
    sent.push(verb);
    return Promise.resolve(E.right({ metadata: {} }));
  };
  const inner = { cluster: clusterName('a'), server: 'https://k/clusters/a', create: ok('create'), update: ok('update'), apply: ok('apply'), patch: ok('patch') } as unknown as ClusterClient;
  const guarded = tenantGuard(inner, 'a');

  it('should refuse writes of another cluster\'s object with an error naming both clusters, sending nothing', async () => {
    sent.length = 0;
    const r = await guarded.apply(widgets, obj('b', 'w'), { fieldManager: 'm' });
    expect(E.isLeft(r) && r.left.type === 'Forbidden' && r.left.message.includes('"b"') && r.left.message.includes('"a"')).toBe(true);
    expect(E.isLeft(await guarded.create(widgets, obj('b', 'w')))).toBe(true);
    expect(E.isLeft(await guarded.update(widgets, obj('b', 'w')))).toBe(true);
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
