// The sync controller over an in-memory fleet shaped like the agent's: spec down, status up,
// related Secrets both ways, two workspaces with the same namespace/name kept apart, and deletion
// that removes the service side before the consumer's finalizer.
import { afterEach, describe, expect, it } from 'vitest';
import type { Namespace, Secret } from '../../src/index.js';
import { resourceId } from '../../src/client/index.js';
import { namespaces, secrets } from '../../src/index.js';
import { readBackReference } from '../../src/sinks/index.js';
import { isWrite, requestLabel } from '../../src/testing/index.js';
import type { Db, Running } from './sync-fixture.js';
import { FINALIZER, agentFleet, copyRef, database, dbKcp, dbService, plan, relatedName, relatedRef, runSync, secret } from './sync-fixture.js';
import { resource } from '../../src/index.js';
import type { KubeObject } from '../../src/index.js';
import type { PublishedPlan } from '../../packages/sync-agent/src/plan.js';


let running: Running | undefined;
afterEach(async () => {
  await running?.handle.stop();
  running = undefined;
});

const orders = database('orders', { size: 1, connectionSecretName: 'orders-conn' }, { labels: { 'app/tier': 'gold', private: 'x' } });

describe('syncController', () => {
  it('syncs spec down into a namespace per workspace, status and the connection Secret up, and spec changes after', async () => {
    const fleet = agentFleet({ 'ws-a': [orders] });
    running = await runSync(fleet);
    const ref = copyRef('ws-a', orders);
    const copy = (): Db | undefined => fleet.object('service', dbService, ref);
    await running.until(() => copy() !== undefined);

    const consumer = (): Db | undefined => fleet.object('ws-a', dbKcp, 'default/orders');
    expect(consumer()?.metadata.finalizers).toEqual([FINALIZER]);
    const c = copy();
    // The service side gets the name the agent derived, never the one the consumer wrote.
    expect(c?.spec).toEqual({ size: 1, connectionSecretName: relatedName('ws-a', orders, 'connection') });
    expect(c?.metadata.namespace).toBe('ws-a');
    // Only the labels syncDown lists travel, next to the agent's own and the back-reference.
    expect(c?.metadata.labels).toMatchObject({ 'app/tier': 'gold', 'sync.rxfleet.dev/agent': 'rxfleet-sync', 'sync.rxfleet.dev/published': 'databases' });
    expect(c?.metadata.labels?.private).toBeUndefined();
    expect(c === undefined ? undefined : readBackReference(c)).toEqual({ cluster: 'ws-a', resource: resourceId(dbKcp), namespace: 'default', name: 'orders', uid: consumer()?.metadata.uid });
    const ns = fleet.object<Namespace>('service', namespaces, 'ws-a');
    expect(ns?.metadata.labels?.['sync.rxfleet.dev/agent']).toBe('rxfleet-sync');
    expect(ns?.metadata.annotations?.['sync.rxfleet.dev/cluster']).toBe('ws-a');
    // Every write to the service cluster is the agent's server-side apply.
    expect(fleet.requestsOf({ cluster: 'service' }).filter(isWrite).every((r) => r.verb === 'apply' && r.fieldManager === 'rxfleet-sync')).toBe(true);

    // The service's operator reports Ready and creates the connection Secret.
    const stored = copy();
    if (stored === undefined) throw new Error('copy');
    fleet.put('service', dbService, { ...stored, status: { phase: 'Ready', endpoint: 'db:5432' } });
    fleet.put('service', secrets, secret('ws-a', relatedName('ws-a', orders, 'connection'), { password: 'c2VjcmV0' }));
    await running.until(() => consumer()?.status?.phase === 'Ready' && fleet.object('ws-a', secrets, 'default/orders-conn') !== undefined);
    expect(consumer()?.status).toEqual({ phase: 'Ready', endpoint: 'db:5432' });
    const conn = fleet.object<Secret>('ws-a', secrets, 'default/orders-conn');
    expect(conn?.data).toEqual({ password: 'c2VjcmV0' });
    expect(conn?.metadata.labels?.['sync.rxfleet.dev/related']).toBe('connection');
    expect(conn === undefined ? undefined : readBackReference(conn)?.name).toBe('orders');

    // A status field dropped on the service side is dropped in the workspace too (the whole status syncs).
    const ready = copy();
    if (ready === undefined) throw new Error('copy');
    fleet.put('service', dbService, { ...ready, status: { phase: 'Resizing' } });
    await running.until(() => consumer()?.status?.phase === 'Resizing');
    expect(consumer()?.status).toEqual({ phase: 'Resizing' });

    // A spec update in the workspace reaches the service cluster; so does a Secret the consumer provides.
    const now = consumer();
    if (now === undefined) throw new Error('consumer');
    fleet.put('ws-a', secrets, secret('default', 'orders-creds', { user: 'YWRtaW4=' }));
    fleet.put('ws-a', dbKcp, { ...now, spec: { ...now.spec, size: 2, credentialsSecretName: 'orders-creds' } });
    await running.until(() => copy()?.spec?.size === 2 && fleet.object('service', secrets, relatedRef('ws-a', orders, 'credentials')) !== undefined);
    expect(copy()?.spec?.credentialsSecretName).toBe(relatedName('ws-a', orders, 'credentials'));
    const creds = fleet.object<Secret>('service', secrets, relatedRef('ws-a', orders, 'credentials'));
    expect(creds?.data).toEqual({ user: 'YWRtaW4=' });
    expect(creds?.metadata.labels?.['sync.rxfleet.dev/related']).toBe('credentials');
  });

  it('keeps two workspaces with the same namespace/name apart: copies, status and Secrets', async () => {
    const fleet = agentFleet({ 'ws-a': [orders], 'ws-b': [orders] });
    running = await runSync(fleet);
    const [refA, refB] = [copyRef('ws-a', orders), copyRef('ws-b', orders)];
    expect(refA).not.toBe(refB);
    await running.until(() => fleet.object('service', dbService, refA) !== undefined && fleet.object('service', dbService, refB) !== undefined);
    const copyA = fleet.object('service', dbService, refA);
    expect(copyA === undefined ? undefined : readBackReference(copyA)?.cluster).toBe('ws-a');
    if (copyA === undefined) throw new Error('copy');

    fleet.put('service', dbService, { ...copyA, status: { phase: 'Ready' } });
    fleet.put('service', secrets, secret('ws-a', relatedName('ws-a', orders, 'connection'), { password: 'YQ==' }));
    await running.until(() => fleet.object('ws-a', dbKcp, 'default/orders')?.status?.phase === 'Ready' && fleet.object('ws-a', secrets, 'default/orders-conn') !== undefined);
    expect(fleet.object('ws-b', dbKcp, 'default/orders')?.status).toBeUndefined();
    expect(fleet.object('ws-b', secrets, 'default/orders-conn')).toBeUndefined();
    // Nothing of ws-a's was ever written into ws-b.
    expect(fleet.requestsOf({ cluster: 'ws-b' }).filter(isWrite).map(requestLabel)).toEqual(['update ws-b/default/orders']);
  });

  it('deletes the service copy and the related copies before it lets the consumer object go', async () => {
    const withCreds = database('orders', { size: 1, connectionSecretName: 'orders-conn', credentialsSecretName: 'orders-creds' });
    const fleet = agentFleet({ 'ws-a': [withCreds, secret('default', 'orders-creds', { user: 'dQ==' })] });
    fleet.put('service', secrets, secret('ws-a', relatedName('ws-a', withCreds, 'connection'), { password: 'cA==' }));
    running = await runSync(fleet);
    const ref = copyRef('ws-a', withCreds);
    await running.until(
      () =>
        fleet.object('service', dbService, ref) !== undefined &&
        fleet.object('service', secrets, relatedRef('ws-a', withCreds, 'credentials')) !== undefined &&
        fleet.object('ws-a', secrets, 'default/orders-conn') !== undefined,
    );
    const before = fleet.requests.length;
    fleet.delete('ws-a', dbKcp, 'default/orders');
    await running.until(() => fleet.object('ws-a', dbKcp, 'default/orders') === undefined);

    expect(fleet.object('service', dbService, ref)).toBeUndefined();
    expect(fleet.object('service', secrets, relatedRef('ws-a', withCreds, 'credentials'))).toBeUndefined();
    expect(fleet.object('ws-a', secrets, 'default/orders-conn')).toBeUndefined();
    // The origins stay: the service's own Secret and the consumer's.
    expect(fleet.object('service', secrets, relatedRef('ws-a', withCreds, 'connection'))).toBeDefined();
    expect(fleet.object('ws-a', secrets, 'default/orders-creds')).toBeDefined();
    const writes = fleet.requests.slice(before).filter(isWrite).map(requestLabel);
    const copyGone = writes.indexOf(`delete service/${ref}`);
    const released = writes.indexOf('update ws-a/default/orders');
    expect(copyGone).toBeGreaterThanOrEqual(0);
    expect(released).toBeGreaterThan(copyGone);
  });

  it('waits for a service copy held by the service operator\'s finalizer before releasing the consumer object', async () => {
    const fleet = agentFleet({ 'ws-a': [orders] });
    running = await runSync(fleet);
    const ref = copyRef('ws-a', orders);
    await running.until(() => fleet.object('service', dbService, ref) !== undefined);
    const copy = fleet.object('service', dbService, ref);
    if (copy === undefined) throw new Error('copy');
    fleet.put('service', dbService, { ...copy, metadata: { ...copy.metadata, finalizers: ['db.example.dev/teardown'] } });
    fleet.delete('ws-a', dbKcp, 'default/orders');
    await running.until(() => fleet.object('service', dbService, ref)?.metadata.deletionTimestamp !== undefined);
    // Held: the consumer object is still there, terminating, with the agent's finalizer.
    await running.until(() => running?.outcomes.some((o) => o.key.cluster === 'ws-a' && o.result === 'requeue') ?? false);
    expect(fleet.object('ws-a', dbKcp, 'default/orders')?.metadata.finalizers).toEqual([FINALIZER]);

    // The service operator finishes; the copy goes, then the consumer object.
    const held = fleet.object('service', dbService, ref);
    if (held === undefined) throw new Error('held');
    fleet.put('service', dbService, { ...held, metadata: { ...held.metadata, finalizers: [] } });
    await running.until(() => fleet.object('ws-a', dbKcp, 'default/orders') === undefined);
    expect(fleet.object('service', dbService, ref)).toBeUndefined();
  });

  it('runs one controller per published resource in one run, sharing the workspace namespace on the service cluster', async () => {
    const cacheKcp = resource({ group: 'databases.example.dev', version: 'v1', plural: 'caches', kind: 'Cache', namespaced: true });
    const cacheService = resource({ group: 'db.example.dev', version: 'v1', plural: 'caches', kind: 'Cache', namespaced: true });
    const caches: PublishedPlan = { ...plan, published: { name: 'caches', crd: { group: 'db.example.dev', kind: 'Cache' } }, kcp: cacheKcp, service: cacheService };
    const cache: KubeObject = { apiVersion: 'databases.example.dev/v1', kind: 'Cache', metadata: { name: 'orders', namespace: 'default' }, spec: { mb: 64 } };
    const fleet = agentFleet({ 'ws-a': [orders] });
    fleet.put('ws-a', cacheKcp, cache);
    running = await runSync(fleet, [plan, caches]);
    const ref = copyRef('ws-a', orders);
    await running.until(() => fleet.object('service', dbService, ref) !== undefined && fleet.object('service', cacheService, ref) !== undefined);
    expect(fleet.object('service', cacheService, ref)?.metadata.labels?.['sync.rxfleet.dev/published']).toBe('caches');
    expect(fleet.object('ws-a', cacheKcp, 'default/orders')?.metadata.finalizers).toEqual([FINALIZER]);
    // Both made sure of namespace ws-a under the one field manager: no conflict, no tug of war.
    const nsWrites = fleet.requestsOf({ cluster: 'service' }).filter((r) => isWrite(r) && r.resource === 'namespaces');
    expect(nsWrites.length).toBeGreaterThanOrEqual(1);
    expect(nsWrites.every((r) => r.error === undefined && r.fieldManager === 'rxfleet-sync')).toBe(true);
  });
});
