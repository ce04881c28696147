// Related objects' status, namespace and cleanup (issue 28 item 4: `syncStatus`, `mutation.status`,
// `object.namespace`, `cleanup`), on the real kcp and kube-apiserver with `rxfleet-sync-agent` as its
// own process and every workspace's copies in ONE service namespace:
// - a ResourceQuota (a resource with a status subresource that both servers serve) goes down from
//   the workspace with its status (`syncStatus`, origin kcp), `status.used` removed on the way;
// - a Lease the service's operator makes comes up into the workspace namespace the consumer names
//   (`object.namespace`), and stays, detached, when the consumer object goes (`cleanup: false`);
// - a tenant tries to use both to reach another's objects; preflight refuses syncStatus on a
//   resource without a status subresource.
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/index.js';
import { ConfigError, namespaces, resource } from '../../src/index.js';
import type { Lease } from '../../src/resources/index.js';
import { leases } from '../../src/resources/index.js';
import { readBackReference } from '../../src/sinks/index.js';
import type { Database } from '../../examples/sync-agent/api.js';
import { preflight } from '../../packages/sync-agent/src/preflight.js';
import type { SyncConfig } from '../../packages/sync-agent/src/types.js';
import { getOrUndefined } from '../support/sync-agent-kcp.js';
import { waitFor } from '../support/sync-agent-process.js';
import { backRef } from '../support/sync-agent-service.js';
import { must } from '../support/wait.js';
import type { AgentWorkspace as Workspace } from './sync-agent-scenario.js';
import { claimNames, holder, relatedScenario } from './sync-agent-scenario.js';
import type { TenancyService } from './sync-tenancy-support.js';
import { sharedNamespaceSyncConfig } from './sync-tenancy-support.js';

type Db = Database & { readonly spec: Database['spec'] & { readonly quotaName?: string; readonly connectionNamespace?: string } };
interface Quota extends KubeObject {
  readonly spec?: { readonly hard?: Readonly<Record<string, string>> };
  readonly status?: { readonly hard?: Readonly<Record<string, string>>; readonly used?: Readonly<Record<string, string>> };
}

const quotas = resource<Quota>({ group: '', version: 'v1', plural: 'resourcequotas', kind: 'ResourceQuota', namespaced: true });

/** A quota down with its status (`used` removed), a Lease up into the namespace the consumer names, kept. */
const config = (side: TenancyService, grant: Readonly<Record<string, unknown>> = {}): SyncConfig => sharedNamespaceSyncConfig(side, side.sharedNamespace, {
  related: [
    { identifier: 'quota', origin: 'kcp', resource: 'resourcequotas', object: { path: 'spec.quotaName' }, syncStatus: true, mutation: { status: [{ delete: { path: 'status.used' } }] } },
    { identifier: 'grant', origin: 'service', group: 'coordination.k8s.io', resource: 'leases', object: { path: 'spec.connectionSecretName', namespace: { path: 'spec.connectionNamespace' } }, cleanup: false, ...grant },
  ],
});

/** A quota with `hard.pods`, its status written through the status subresource (as a quota controller would). */
async function quotaIn(w: Workspace, name: string, pods: string, used: string): Promise<void> {
  must(await w.client.apply(quotas, { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name, namespace: 'default' }, spec: { hard: { pods } } }, { fieldManager: 'consumer', force: true }));
  must(await w.client.patch(quotas, name, { status: { hard: { pods }, used: { pods: used } } }, { type: 'merge', namespace: 'default', subresource: 'status' }));
}

/** The service-side quota at `name` once its status says `pods`. */
const serviceQuota = (name: string, pods: string): Promise<Quota> =>
  waitFor(`the service-side quota ${name} with status.hard.pods ${pods}`, async () => {
    const q = await getOrUndefined<Quota>(s.svc.client, quotas, name, s.svc.sharedNamespace);
    return q?.status?.hard?.pods === pods ? q : undefined;
  }, { context: s.context });

const lease = (name: string, namespace: string, holderIdentity: string): Lease => ({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name, namespace }, spec: { holderIdentity } });

const s = relatedScenario<Db>({ consumers: 2, specFields: ['quotaName', 'connectionNamespace'], config: (side) => config(side), claimed: (c) => claimNames(c).join() === 'leases.coordination.k8s.io,resourcequotas.' });

describe('rxfleet-sync-agent: related objects\' status, namespace and cleanup', () => {
  let victim: Db;

  it('a ResourceQuota goes down with its status (syncStatus), status.used removed by mutation.status; a change of status follows', async () => {
    await quotaIn(s.a, 'a-quota', '5', '1');
    must(await s.a.client.apply(namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team' } }, { fieldManager: 'consumer' }));
    must(await s.a.client.apply(s.dbs, { metadata: { name: 'orders', namespace: 'default' }, spec: { engine: 'postgres', size: 1, quotaName: 'a-quota', connectionSecretName: 'a-grant', connectionNamespace: 'team' } }, { fieldManager: 'consumer' }));
    victim = await s.copyOf(s.a, 'orders');
    const down = await serviceQuota(victim.spec.quotaName ?? '', '5');
    expect(down.spec?.hard).toEqual({ pods: '5' });
    expect(down.status?.used).toBeUndefined();
    expect(backRef(down)).toMatchObject({ cluster: s.a.ws.logicalCluster, namespace: 'default', name: 'orders' });
    await quotaIn(s.a, 'a-quota', '7', '2');
    expect((await serviceQuota(victim.spec.quotaName ?? '', '7')).status?.used).toBeUndefined();
  });

  it('a Lease the operator makes comes up into the workspace namespace the consumer names (object.namespace); the copy\'s field says the copy\'s own namespace', async () => {
    expect(victim.spec.connectionNamespace).toBe(s.svc.sharedNamespace);
    must(await s.svc.client.create(leases, lease(victim.spec.connectionSecretName ?? '', s.svc.sharedNamespace, 'granted-to-a')));
    const up = await s.workspaceLease(s.a, 'a-grant', 'granted-to-a', 'team');
    expect(backRef(up)).toMatchObject({ cluster: s.a.ws.logicalCluster, namespace: 'default', name: 'orders' });
    expect(await getOrUndefined<Lease>(s.a.client, leases, 'a-grant', 'default')).toBeUndefined();
  });

  it('a consumer naming a service-side namespace and another tenant\'s objects gets only its own, and its status never reaches another\'s copy', async () => {
    // On the service cluster: an operator's own Lease in `default`, which B names with the namespace field.
    const root = `root-credentials-${s.svc.sharedNamespace.slice(-6)}`;
    must(await s.svc.client.create(leases, lease(root, 'default', 'operator-root')));
    const aQuota = victim.spec.quotaName ?? '';
    // B names A's service-side quota name (with a quota of its own, status 99) and the operator's Lease.
    await quotaIn(s.b, aQuota, '99', '0');
    must(await s.b.client.apply(s.dbs, { metadata: { name: 'thief', namespace: 'default' }, spec: { engine: 'postgres', size: 1, quotaName: aQuota, connectionSecretName: root, connectionNamespace: 'default' } }, { fieldManager: 'consumer' }));
    const thief = await s.copyOf(s.b, 'thief');
    expect(thief.spec.connectionNamespace).toBe(s.svc.sharedNamespace);
    expect(thief.spec.connectionSecretName).not.toBe(root);
    expect(thief.spec.quotaName).not.toBe(aQuota);
    // Sentinels: B's quota status went to B's own copy; B's own grant (made by the operator for B) came up.
    await serviceQuota(thief.spec.quotaName ?? '', '99');
    must(await s.svc.client.create(leases, lease(thief.spec.connectionSecretName ?? '', s.svc.sharedNamespace, 'granted-to-b')));
    await s.workspaceLease(s.b, root, 'granted-to-b');
    // A's copy keeps A's status; the operator's Lease is as it was.
    expect((await getOrUndefined<Quota>(s.svc.client, quotas, aQuota, s.svc.sharedNamespace))?.status?.hard?.pods).toBe('7');
    expect(holder(await getOrUndefined<Lease>(s.svc.client, leases, root, 'default'))).toBe('operator-root');
  });

  it('deleting the consumer object deletes the service-side quota copy and keeps the Lease copy (cleanup: false), detached; origin objects stay', async () => {
    const [quotaCopy, grantOrigin] = [victim.spec.quotaName ?? '', victim.spec.connectionSecretName ?? ''];
    must(await s.a.client.delete(s.dbs, 'orders', { namespace: 'default' }));
    // The finalizer goes only after the cleanup (the quota copy deleted, the Lease copy detached).
    await waitFor('the consumer object and the quota copy gone', async () => {
      const [down, db] = await Promise.all([getOrUndefined<Quota>(s.svc.client, quotas, quotaCopy, s.svc.sharedNamespace), getOrUndefined(s.a.client, s.dbs, 'orders', 'default')]);
      return down === undefined && db === undefined ? true : undefined;
    }, { context: s.context });
    const kept = must(await s.a.client.get<Lease>(leases, 'a-grant', { namespace: 'team' }));
    expect(holder(kept)).toBe('granted-to-a');
    expect(readBackReference(kept)).toBeUndefined();
    expect(Object.keys(kept.metadata.labels ?? {}).filter((k) => k.startsWith('sync.rxfleet.dev/') || k.startsWith('rxfleet.dev/'))).toEqual([]);
    expect(Object.keys(kept.metadata.annotations ?? {}).filter((k) => k.startsWith('rxfleet.dev/'))).toEqual([]);
    expect((await getOrUndefined<Quota>(s.a.client, quotas, 'a-quota', 'default'))?.spec?.hard).toEqual({ pods: '7' });
    expect(holder(await getOrUndefined<Lease>(s.svc.client, leases, grantOrigin, s.svc.sharedNamespace))).toBe('granted-to-a');
  });

  it('preflight refuses syncStatus on a resource without a status subresource, naming the published resource, the identifier and the cause', async () => {
    const clients = { service: s.svc.client, kcp: s.provider.client };
    const err = await preflight(config(s.svc, { syncStatus: true }), clients).then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toContain(`published[0] "databases": related[1] "grant": syncStatus: leases.v1.coordination.k8s.io has no status subresource on the service cluster ${s.svc.client.cluster}, so there is no status to copy`);
    expect((await preflight(config(s.svc), clients)).map((p) => Object.keys(p.related ?? {}))).toEqual([['quota', 'grant']]);
  });
});
