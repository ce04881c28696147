// One agent serving two kcp installations (api-syncagent#13), on the in-memory fleet: the default
// installation's workspace `root` and installation `eu`'s (`eu#root`, logical cluster `root` too)
// hold the same namespace/name. Each gets its own copy (eu's namespace prefixed), back-referenced to
// its own installation; each status goes back to its own; deleting one leaves the other; a copy
// made before installations existed (a bare back-reference) stays the default installation's
// through restarts and sweeps; a copy forged to name the other installation's object is refused.
import { afterEach, describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/index.js';
import { clusterName, namespaces } from '../../src/index.js';
import { resourceId } from '../../src/client/index.js';
import { readBackReference, withBackReference } from '../../src/sinks/index.js';
import type { InMemoryFleet } from '../../src/testing/index.js';
import { agentLabels } from '../../packages/sync-agent/src/labels.js';
import type { PublishedPlan } from '../../packages/sync-agent/src/plan.js';
import type { Db, Running } from './sync-fixture.js';
import { agentFleet, copyRef, database, dbKcp, dbService, plan, runSync } from './sync-fixture.js';

let running: Running | undefined;
afterEach(async () => {
  await running?.handle.stop();
  running = undefined;
});

const two: PublishedPlan = { ...plan, installations: [{ name: 'eu', kubeconfig: 'eu.kubeconfig', namespacePrefix: 'eu-' }] };
const orders = database('orders', { size: 1 });
// The copy's name is the same in both installations (a hash of namespace and name); only the namespace differs.
const name = copyRef('root', orders).split('/')[1] ?? '';
const phase = (fleet: InMemoryFleet, cluster: string): string | undefined => fleet.object<Db>(cluster, dbKcp, 'default/orders')?.status?.phase;
const synced = (fleet: InMemoryFleet, cluster: string): Readonly<Record<string, unknown>> | undefined =>
  (fleet.object(cluster, dbKcp, 'default/orders')?.status as { conditions?: readonly Readonly<Record<string, unknown>>[] } | undefined)?.conditions?.find((c) => c.type === 'sync.rxfleet.dev/Synced');
const uidOf = (fleet: InMemoryFleet, cluster: string, ref: string): string => fleet.object(cluster, dbKcp, ref)?.metadata.uid ?? '';
/** A copy as the agent writes it, back-referenced to `cluster`'s object (`uid`). */
const copyOf = (namespace: string, cluster: string, ref: string, uid: string, size: number): Db =>
  withBackReference<Db>(
    { apiVersion: 'db.example.dev/v1', kind: 'Database', metadata: { name: copyRef('root', database(ref.split('/')[1] ?? '', {})).split('/')[1] ?? '', namespace, labels: agentLabels('rxfleet-sync', 'databases') }, spec: { size } },
    { cluster: clusterName(cluster), resource: resourceId(dbKcp), namespace: 'default', name: ref.split('/')[1] ?? '', uid },
  );
const deletes = (fleet: InMemoryFleet): string[] => fleet.requestsOf({ cluster: 'service', resource: dbService }).filter((r) => r.verb === 'delete').map((r) => `${r.namespace}/${r.name}`);

describe('sync agent: several kcp installations', () => {
  it('the same workspace, namespace and name in two installations get two copies, each back-referenced to its own installation, each status back to its own', async () => {
    const fleet = agentFleet({ root: [orders], 'eu#root': [database('orders', { size: 2 })] });
    running = await runSync(fleet, [two]);
    await running.until(() => fleet.object('service', dbService, `root/${name}`) !== undefined && fleet.object('service', dbService, `eu-root/${name}`) !== undefined);
    const here = fleet.object<Db>('service', dbService, `root/${name}`);
    const eu = fleet.object<Db>('service', dbService, `eu-root/${name}`);
    expect([here?.spec?.size, eu?.spec?.size]).toEqual([1, 2]);
    expect(here === undefined ? undefined : readBackReference(here)?.cluster).toBe('root');
    expect(eu === undefined ? undefined : readBackReference(eu)?.cluster).toBe('eu#root');
    expect(fleet.object<KubeObject>('service', namespaces, 'eu-root')?.metadata.annotations?.['sync.rxfleet.dev/cluster']).toBe('eu#root');

    if (here === undefined || eu === undefined) throw new Error('copies');
    fleet.put('service', dbService, { ...here, status: { phase: 'default-ready' } });
    fleet.put('service', dbService, { ...eu, status: { phase: 'eu-ready' } });
    await running.until(() => phase(fleet, 'root') === 'default-ready' && phase(fleet, 'eu#root') === 'eu-ready');
  });

  it("deleting the object in one installation deletes its copy only; the other installation's stays", async () => {
    const fleet = agentFleet({ root: [orders], 'eu#root': [database('orders', { size: 2 })] });
    running = await runSync(fleet, [two]);
    await running.until(() => fleet.objects('service', dbService).length === 2 && (fleet.object('eu#root', dbKcp, 'default/orders')?.metadata.finalizers ?? []).length > 0);
    fleet.delete('eu#root', dbKcp, 'default/orders');
    await running.until(() => fleet.object('eu#root', dbKcp, 'default/orders') === undefined);
    expect(fleet.object('service', dbService, `eu-root/${name}`)).toBeUndefined();
    expect(fleet.object<Db>('service', dbService, `root/${name}`)?.spec?.size).toBe(1);
    expect(deletes(fleet)).toEqual([`eu-root/${name}`]);
  });

  it("a copy made before installations (a bare back-reference) stays the default installation's, through a restart's orphan sweep, beside eu's copy of the same name", async () => {
    const fleet = agentFleet({ root: [orders], 'eu#root': [database('orders', { size: 2 })] });
    const legacy = fleet.put('service', dbService, copyOf('root', 'root', 'default/orders', uidOf(fleet, 'root', 'default/orders'), 1));
    // An orphan of eu's (its object is gone): the sweep's sentinel, and proof it judges eu's copies.
    fleet.put('service', dbService, copyOf('eu-root', 'eu#root', 'default/gone', 'u-gone', 3));
    const gone = `eu-root/${copyRef('root', database('gone', {})).split('/')[1] ?? ''}`;
    running = await runSync(fleet, [two]);
    await running.until(() => fleet.object('service', dbService, gone) === undefined && fleet.object('service', dbService, `eu-root/${name}`) !== undefined);
    // Restarted: the new run's sweep judges both copies named orders again, and keeps both.
    await running.handle.stop();
    fleet.put('service', dbService, copyOf('eu-root', 'eu#root', 'default/gone', 'u-gone', 3));
    const from = fleet.requests.length;
    running = await runSync(fleet, [two]);
    // The sentinel: the workspaces' sweep (its list of related Secrets there) starts only once the service side's is over.
    await running.until(() => fleet.requests.slice(from).some((r) => r.verb === 'list' && r.resource === 'secrets' && (r.cluster === 'root' || r.cluster === 'eu#root')));
    expect(fleet.object('service', dbService, gone)).toBeUndefined();
    expect(fleet.object('service', dbService, `root/${name}`)?.metadata.uid).toBe(legacy.metadata.uid);
    expect(fleet.object<Db>('service', dbService, `eu-root/${name}`)?.spec?.size).toBe(2);
    expect(deletes(fleet)).toEqual([gone, gone]);
    // Still the default installation's: its status goes to root's object.
    fleet.put('service', dbService, { ...legacy, status: { phase: 'legacy-ready' } });
    await running.until(() => phase(fleet, 'root') === 'legacy-ready');
    expect(phase(fleet, 'eu#root')).toBeUndefined();
  });

  it("a copy at eu's place forged to name the default installation's object is refused: never written over, its status delivered to neither", async () => {
    const fleet = agentFleet({ root: [orders], 'eu#root': [database('orders', { size: 2 })] });
    fleet.put('service', dbService, { ...copyOf('eu-root', 'root', 'default/orders', uidOf(fleet, 'root', 'default/orders'), 9), status: { phase: 'forged' } });
    running = await runSync(fleet, [two]);
    await running.until(() => synced(fleet, 'eu#root')?.status === 'False' && fleet.object('service', dbService, `root/${name}`) !== undefined);
    expect(String(synced(fleet, 'eu#root')?.message)).toContain('taken by another object');
    expect(fleet.object<Db>('service', dbService, `eu-root/${name}`)?.spec?.size).toBe(9);
    // The sentinel: the default installation's own copy's status arrives; the forged one's never did.
    const mine = fleet.object<Db>('service', dbService, `root/${name}`);
    if (mine === undefined) throw new Error('copy');
    fleet.put('service', dbService, { ...mine, status: { phase: 'mine' } });
    await running.until(() => phase(fleet, 'root') === 'mine');
    expect(phase(fleet, 'eu#root')).toBeUndefined();
    expect(fleet.requestsOf({ cluster: 'root' }).concat(fleet.requestsOf({ cluster: 'eu#root' })).some((r) => JSON.stringify(r.body ?? {}).includes('forged'))).toBe(false);
    // The forgery removed and eu's object changed (a refusal waits for one), it gets its own copy at its own place.
    fleet.delete('service', dbService, `eu-root/${name}`);
    fleet.put('eu#root', dbKcp, { ...(fleet.object<Db>('eu#root', dbKcp, 'default/orders') ?? orders), spec: { size: 5 } });
    await running.until(() => fleet.object<Db>('service', dbService, `eu-root/${name}`)?.spec?.size === 5 && synced(fleet, 'eu#root')?.status === 'True');
    expect(readBackReference(fleet.object<Db>('service', dbService, `eu-root/${name}`) ?? orders)?.cluster).toBe('eu#root');
    expect(fleet.object<Db>('service', dbService, `root/${name}`)?.status?.phase).toBe('mine');
  });
});
