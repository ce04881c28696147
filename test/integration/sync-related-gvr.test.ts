// Related objects of any resource (issue 28 item 4): Leases (coordination.k8s.io/v1, a group other
// than core) travel with each Database, one from the workspace down (`origin: kcp`, named by
// `spec.configName`) and one from the service cluster up (`origin: service`, named by
// `spec.connectionSecretName`, its holder rewritten by a mutation), on the real kcp and kube-apiserver with `rxfleet-sync-agent` as its own
// process, every workspace's copies in ONE service namespace. Then tenants try to reach each other's
// Leases, and preflight refuses a resource no server serves. Every check reads the data that arrived.
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/index.js';
import type { Lease } from '../../src/resources/index.js';
import { leases } from '../../src/resources/index.js';
import { withBackReference } from '../../src/sinks/index.js';
import { preflight } from '../../packages/sync-agent/src/preflight.js';
import type { SyncConfig } from '../../packages/sync-agent/src/types.js';
import { getOrUndefined } from '../support/sync-agent-kcp.js';
import { waitFor } from '../support/sync-agent-process.js';
import { backRef } from '../support/sync-agent-service.js';
import { must } from '../support/wait.js';
import type { Conditioned } from './sync-agent-scenario.js';
import { claimNames, holder, relatedScenario, synced } from './sync-agent-scenario.js';
import type { TenancyService } from './sync-tenancy-support.js';
import { sharedNamespaceSyncConfig } from './sync-tenancy-support.js';

type Db = Conditioned & { readonly spec: Conditioned['spec'] & { readonly configName?: string } };


/** Leases down (`lock`) and up (`grant`), given by group, version and resource. */
const config = (side: TenancyService, lockGroup = 'coordination.k8s.io'): SyncConfig => sharedNamespaceSyncConfig(side, side.sharedNamespace, {
  related: [
    { identifier: 'lock', origin: 'kcp', group: lockGroup, version: 'v1', resource: 'leases', object: { path: 'spec.configName' } },
    // The holder is rewritten on the way up (the primary's mutation engine): granted-to-x → for-x.
    { identifier: 'grant', origin: 'service', group: 'coordination.k8s.io', resource: 'leases', object: { path: 'spec.connectionSecretName' }, mutation: { spec: [{ regex: { path: 'spec.holderIdentity', pattern: '^granted-to-(.*)$', replacement: 'for-$1' } }] } },
  ],
});

const lease = (name: string, namespace: string, holderIdentity: string): Lease => ({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name, namespace }, spec: { holderIdentity } });

/** A Lease on the service cluster with this holder, at `name` in the shared namespace. */
const serviceLease = (name: string, holderIdentity: string): Promise<Lease> =>
  waitFor(`the service-side Lease ${name} held by ${holderIdentity}`, async () => {
    const l = await getOrUndefined<Lease>(s.svc.client, leases, name, s.svc.sharedNamespace);
    return holder(l) === holderIdentity ? l : undefined;
  }, { context: s.context });

const s = relatedScenario<Db>({ consumers: 2, config: (side) => config(side), claimed: (c) => claimNames(c).join() === 'leases.coordination.k8s.io' });

describe('rxfleet-sync-agent: related objects of any resource (Leases, coordination.k8s.io/v1)', () => {
  let victim: Db;

  it('a Lease goes down from the workspace and another comes up from the service cluster, each with its contents and back-reference', async () => {
    must(await s.a.client.create(leases, lease('a-lock', 'default', 'tenant-a')));
    must(await s.a.client.apply(s.dbs, { metadata: { name: 'orders', namespace: 'default' }, spec: { engine: 'postgres', size: 1, configName: 'a-lock', connectionSecretName: 'a-grant' } }, { fieldManager: 'consumer' }));
    victim = await s.copyOf(s.a, 'orders');
    // Down: at the name the agent derived and wrote into the copy's spec.
    const down = await serviceLease(victim.spec.configName ?? '', 'tenant-a');
    expect(victim.spec.configName).not.toBe('a-lock');
    expect(backRef(down)).toMatchObject({ cluster: s.a.ws.logicalCluster, namespace: 'default', name: 'orders' });
    // Up: the service's operator (here, the test) makes the Lease where the copy's spec says.
    must(await s.svc.client.create(leases, lease(victim.spec.connectionSecretName ?? '', s.svc.sharedNamespace, 'granted-to-a')));
    const up = await s.workspaceLease(s.a, 'a-grant', 'for-a');
    expect(backRef(up)).toMatchObject({ cluster: s.a.ws.logicalCluster, namespace: 'default', name: 'orders' });
    // A change on the origin side travels (the Lease watch wakes the consumer object).
    must(await s.a.client.patch(leases, 'a-lock', { spec: { holderIdentity: 'tenant-a-2' } }, { type: 'merge', namespace: 'default' }));
    await serviceLease(victim.spec.configName ?? '', 'tenant-a-2');
  });

  it('a consumer naming another tenant\'s Leases (their service-side names) gets only its own', async () => {
    // B learned the names A's Leases have on the service cluster, and names them in its own spec.
    const [aLock, aGrant] = [victim.spec.configName ?? '', victim.spec.connectionSecretName ?? ''];
    must(await s.b.client.create(leases, lease(aLock, 'default', 'tenant-b')));
    must(await s.b.client.apply(s.dbs, { metadata: { name: 'thief', namespace: 'default' }, spec: { engine: 'postgres', size: 1, configName: aLock, connectionSecretName: aGrant } }, { fieldManager: 'consumer' }));
    const thief = await s.copyOf(s.b, 'thief');
    // Sentinel: B's own Lease went down, to B's own place, in the reconcile that handled both Leases.
    await serviceLease(thief.spec.configName ?? '', 'tenant-b');
    expect(thief.spec.configName).not.toBe(aLock);
    expect(thief.spec.connectionSecretName).not.toBe(aGrant);
    // A's grant never reached B; A's Leases on the service side are as A's sync made them.
    expect(await getOrUndefined<Lease>(s.b.client, leases, aGrant, 'default')).toBeUndefined();
    expect(holder(await getOrUndefined<Lease>(s.svc.client, leases, aLock, s.svc.sharedNamespace))).toBe('tenant-a-2');
    expect(holder(await getOrUndefined<Lease>(s.svc.client, leases, aGrant, s.svc.sharedNamespace))).toBe('granted-to-a');
    // B's own grant, once the operator makes it, is what B gets.
    must(await s.svc.client.create(leases, lease(thief.spec.connectionSecretName ?? '', s.svc.sharedNamespace, 'granted-to-b')));
    await s.workspaceLease(s.b, aGrant, 'for-b');
    expect(synced(await getOrUndefined(s.b.client, s.dbs, 'thief', 'default'))).toBeUndefined();
  });

  it('a forged back-reference on a service-side Lease is never delivered, and the refusal is in the consumer object\'s status', async () => {
    must(await s.b.client.apply(s.dbs, { metadata: { name: 'target', namespace: 'default' }, spec: { engine: 'postgres', size: 1, connectionSecretName: 'target-grant' } }, { fieldManager: 'consumer' }));
    const target = await s.copyOf(s.b, 'target');
    const at = target.spec.connectionSecretName ?? '';
    must(await s.svc.client.create(leases, lease(at, s.svc.sharedNamespace, 'granted-to-target')));
    await s.workspaceLease(s.b, 'target-grant', 'for-target');
    // Someone on the service side puts A's holder in B's Lease, with a back-reference claiming B's
    // object (well-formed: the hash matches, only the uid is not B's).
    const forged = withBackReference({ metadata: { name: at, namespace: s.svc.sharedNamespace } }, { ...backRef(target), uid: 'forged-uid' });
    must(await s.svc.client.patch(leases, at, { metadata: forged.metadata, spec: { holderIdentity: 'granted-to-a' } }, { type: 'merge', namespace: s.svc.sharedNamespace }));
    const refused = await s.refusedIn(s.b, 'target');
    expect(refused.reason).toBe('Refused');
    expect(refused.message).toContain('related "grant" (Lease');
    expect(refused.message).toContain('belongs to another object');
    expect(holder(must(await s.b.client.get<Lease>(leases, 'target-grant', { namespace: 'default' })))).toBe('for-target');
  });

  it('deleting the consumer object deletes the Lease copies the agent made on both sides, never an origin object', async () => {
    const [lockCopy, grantOrigin] = [victim.spec.configName ?? '', victim.spec.connectionSecretName ?? ''];
    must(await s.a.client.delete(s.dbs, 'orders', { namespace: 'default' }));
    await waitFor('the copies gone', async () => {
      const [down, up, db] = await Promise.all([getOrUndefined<Lease>(s.svc.client, leases, lockCopy, s.svc.sharedNamespace), getOrUndefined<Lease>(s.a.client, leases, 'a-grant', 'default'), getOrUndefined(s.a.client, s.dbs, 'orders', 'default')]);
      return down === undefined && up === undefined && db === undefined ? true : undefined;
    }, { context: s.context });
    // The origin objects are their owners': the workspace's Lease and the operator's stay.
    expect(holder(await getOrUndefined<Lease>(s.a.client, leases, 'a-lock', 'default'))).toBe('tenant-a-2');
    expect(holder(await getOrUndefined<Lease>(s.svc.client, leases, grantOrigin, s.svc.sharedNamespace))).toBe('granted-to-a');
  });

  it('preflight refuses a related resource no server serves, naming the published resource, the identifier and the cluster', async () => {
    const clients = { service: s.svc.client, kcp: s.provider.client };
    const err = await preflight(config(s.svc, 'nope.example.dev'), clients).then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toContain(`published[0] "databases": related[0] "lock": group nope.example.dev has no version v1 (leases.v1.nope.example.dev) in kcp workspace ${s.provider.client.cluster} (its origin side)`);
    // The same configuration with a served group starts.
    expect((await preflight(config(s.svc), clients)).map((p) => Object.keys(p.related ?? {}))).toEqual([['lock', 'grant']]);
  });
});
