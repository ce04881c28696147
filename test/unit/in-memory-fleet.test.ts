// The in-memory fleet's own semantics, beyond what the parity test checks against a real server:
// watches (streaming list, resume, 410 Gone, the server's timeout), lists, injected failures, the
// request log, seeds, and run() over its provider.
import { pino } from 'pino';
import { filter, firstValueFrom, map } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import { parseWatchLine } from '../../src/client/watch-line.js';
import { E } from '../../src/fp/index.js';
import type { ConfigMap, ControllerReconciler, KubeObject } from '../../src/index.js';
import { clusterName, ConfigError, configMaps, controller, done, resource, run, toAction } from '../../src/index.js';
import { apply } from '../../src/sinks/index.js';
import { inMemoryFleet, requestLabel, statusFailure } from '../../src/testing/index.js';

const cm = (name: string, data: Record<string, string> = {}, labels: Record<string, string> = {}): ConfigMap => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'default', labels },
  data,
});
const scheduler = () =>
  new TestScheduler((actual, expected) => {
    expect(actual).toEqual(expected);
  });
// A watch line as `<TYPE> <name>` (`BOOKMARK end` for the initial-events-end bookmark, `ERROR <code>`).
const short = (line: string): string => {
  const ev = parseWatchLine(clusterName('east'), line);
  if (E.isLeft(ev)) return `ERROR ${ev.left.code ?? ev.left.type}`;
  return ev.right.type === 'BOOKMARK' ? 'BOOKMARK end' : `${ev.right.type} ${ev.right.object.metadata.name ?? ''}`;
};

describe('the in-memory fleet', () => {
  it('serves a streaming list, then live changes through the scheduler, and ends at timeoutSeconds', () => {
    const fleet = inMemoryFleet({ clusters: { east: [cm('a'), cm('b', {}, { app: 'web' })] } });
    const client = fleet.cluster('east').client;
    scheduler().run(({ cold, expectObservable }) => {
      cold('10ms x', { x: 0 }).subscribe(() => fleet.put('east', configMaps, cm('c', {}, { app: 'web' })));
      cold('11ms x', { x: 0 }).subscribe(() => { fleet.delete('east', configMaps, 'default/b'); });
      const all = client.watch(configMaps, { sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan', timeoutSeconds: 1 }).pipe(map(short));
      expectObservable(all).toBe('(abc) 5ms de 988ms |', { a: 'ADDED a', b: 'ADDED b', c: 'BOOKMARK end', d: 'ADDED c', e: 'DELETED b' });
    });
  });

  it('filters watches by label selector and resumes from a resourceVersion, or answers 410 when the log is compacted', () => {
    const fleet = inMemoryFleet({ clusters: { east: [cm('a'), cm('b', {}, { app: 'web' })] }, watchHistory: 5 });
    const client = fleet.cluster('east').client;
    const rv = fleet.object<ConfigMap>('east', configMaps, 'default/a')?.metadata.resourceVersion ?? '';
    scheduler().run(({ expectObservable }) => {
      expectObservable(client.watch(configMaps, { resourceVersion: rv, labelSelector: 'app in (web,api)' }).pipe(map(short)), '^ 5ms !').toBe('a', { a: 'ADDED b' });
      expectObservable(client.watch(configMaps, { resourceVersion: rv, labelSelector: '!app' }).pipe(map(short)), '^ 5ms !').toBe('');
    });
    for (let i = 0; i < 5; i++) fleet.put('east', configMaps, cm('a', { n: String(i) }));
    scheduler().run(({ expectObservable }) => {
      expectObservable(client.watch(configMaps, { resourceVersion: rv }).pipe(map(short))).toBe('(a|)', { a: 'ERROR 410' });
    });
  });

  it('lists in pages with continue tokens, by namespace and field selector', async () => {
    const fleet = inMemoryFleet({ clusters: { east: [cm('a'), cm('b'), cm('c'), { ...cm('d'), metadata: { name: 'd', namespace: 'other' } }] } });
    const client = fleet.cluster('east').client;
    const first = await client.list(configMaps, { namespace: 'default', limit: 2 });
    expect(E.isRight(first) && first.right.items.map((o) => o.metadata.name)).toEqual(['a', 'b']);
    const token = E.isRight(first) ? first.right.metadata.continue : undefined;
    const second = await client.list(configMaps, { namespace: 'default', limit: 2, ...(token === undefined ? {} : { continue: token }) });
    expect(E.isRight(second) && [second.right.items.map((o) => o.metadata.name), second.right.metadata.continue]).toEqual([['c'], undefined]);
    const all = await client.listAll(configMaps, { fieldSelector: 'metadata.namespace!=default' });
    expect(E.isRight(all) && all.right.items.map((o) => o.metadata.name)).toEqual(['d']);
  });

  it('answers injected failures as the real client does, once or N times, and logs every request', async () => {
    const fleet = inMemoryFleet({ clusters: { east: [cm('a')], west: [] } });
    fleet.inject({ cluster: 'east', verb: ['get', 'list'], resource: configMaps, name: 'a', failure: statusFailure(403) });
    fleet.inject({ cluster: 'east', verb: 'create', times: 2, failure: statusFailure(429, { retryAfterSeconds: 3 }) });
    const east = fleet.cluster('east').client;
    const denied = await east.get(configMaps, 'a', { namespace: 'default' });
    expect(E.isLeft(denied) && [denied.left.type, denied.left.code, denied.left.request]).toEqual(['Forbidden', 403, 'GET /api/v1/namespaces/default/configmaps/a']);
    expect(E.isRight(await east.get(configMaps, 'a', { namespace: 'default' }))).toBe(true);
    for (const _ of [1, 2]) {
      const limited = await east.create(configMaps, cm('b'));
      expect(E.isLeft(limited) && [limited.left.type, limited.left.retryAfterSeconds]).toEqual(['TooManyRequests', 3]);
    }
    const generated = await east.create(configMaps, { metadata: { generateName: 'gen-', namespace: 'default' } });
    expect(E.isRight(generated) && generated.right.metadata.name).toMatch(/^gen-.{5}$/);
    const missing = await fleet.cluster('west').client.delete(configMaps, 'nope', { namespace: 'default' });
    expect(E.isLeft(missing) && missing.left.type).toBe('NotFound');
    expect(fleet.requests.map(requestLabel)).toEqual([
      'get east/default/a → 403',
      'get east/default/a',
      'create east/default/b → 429',
      'create east/default/b → 429',
      `create east/default/${E.isRight(generated) ? (generated.right.metadata.name ?? '') : ''}`,
      'delete west/default/nope → 404',
    ]);
    expect(fleet.requestsOf({ cluster: 'west' })).toHaveLength(1);
  });

  it('keeps seeded status on resources with a status subresource, and refuses seeds of unknown kinds', () => {
    interface Widget extends KubeObject {
      spec?: { size: number };
      status?: { ready: boolean };
    }
    const widgets = resource<Widget>({ group: 'demo.rxfleet.dev', version: 'v1', plural: 'widgets', kind: 'Widget', namespaced: true });
    const w: Widget = { apiVersion: 'demo.rxfleet.dev/v1', kind: 'Widget', metadata: { name: 'w', namespace: 'default' }, spec: { size: 1 }, status: { ready: true } };
    const fleet = inMemoryFleet({ clusters: { east: [w] }, resources: [widgets] });
    expect(fleet.object<Widget>('east', widgets, 'default/w')).toMatchObject({ status: { ready: true }, metadata: { generation: 1 } });
    expect(() => inMemoryFleet({ clusters: { east: [w] } })).toThrow(ConfigError);
    expect(() => fleet.cluster('nowhere')).toThrow(/no cluster "nowhere"/);
  });

  it('runs a controller with run() over its provider, in real time', async () => {
    const fleet = inMemoryFleet({ clusters: { east: [cm('web', { v: '1' })], west: [] } });
    const replicate: ControllerReconciler<ConfigMap> = (req, ctx) =>
      req.cluster !== 'east' || req.object === undefined
        ? done()
        : apply(ctx.sinks, { cluster: clusterName('west'), resource: configMaps, object: { metadata: { name: 'web', namespace: 'default' }, data: req.object.data ?? {} } }).pipe(toAction());
    const handle = await run(controller({ name: 'replicate', provider: fleet.provider, resource: configMaps, reconcile: replicate }), {
      logger: pino({ level: 'silent' }),
      signals: false,
      http: false,
    });
    const west = () => fleet.object<ConfigMap>('west', configMaps, 'default/web')?.data;
    await firstValueFrom(handle.outcomes.pipe(filter(() => west()?.v === '1')));
    fleet.put('east', configMaps, cm('web', { v: '2' }));
    await firstValueFrom(handle.outcomes.pipe(filter(() => west()?.v === '2')));
    expect((await handle.stop()).reason).toBe('clean');
    expect(fleet.requestsOf({ cluster: 'west' }).filter((r) => r.verb === 'apply')).toHaveLength(2);
  });
});
