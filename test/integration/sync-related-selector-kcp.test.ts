// Related objects found by a label selector in the consumer's workspace (`origin: kcp`), and
// `matchExpressions` in related selectors of both origins (issue 28 item 4), on the real kcp and
// kube-apiserver with `rxfleet-sync-agent` as its own process, every workspace's copies in ONE
// service namespace. Two workspaces use the same object and Lease names; one forges a back-reference
// to the other's object. Every check reads the data that arrived.
import { describe, expect, it } from 'vitest';
import type { Lease } from '../../src/resources/index.js';
import { leases } from '../../src/resources/index.js';
import { sourceLabel } from '../../src/sinks/index.js';
import type { SyncConfig } from '../../packages/sync-agent/src/types.js';
import { getOrUndefined } from '../support/sync-agent-kcp.js';
import { waitFor } from '../support/sync-agent-process.js';
import { backRef } from '../support/sync-agent-service.js';
import { must } from '../support/wait.js';
import type { Conditioned as Db, AgentWorkspace as Workspace } from './sync-agent-scenario.js';
import { holder, relatedScenario } from './sync-agent-scenario.js';
import type { TenancyService } from './sync-tenancy-support.js';
import { sharedNamespaceSyncConfig } from './sync-tenancy-support.js';

const derived = /^[0-9a-f]{20}-[0-9a-f]{8}-[0-9a-f]{8}$/;

const config = (side: TenancyService): SyncConfig => sharedNamespaceSyncConfig(side, side.sharedNamespace, {
  related: [
    // Down: the consumer's Leases labelled with the object's name, gold tier only.
    { identifier: 'cfg', origin: 'kcp', group: 'coordination.k8s.io', version: 'v1', resource: 'leases', object: { selector: { matchLabels: { 'app.example.dev/db': '{{ .RemoteObject.metadata.name }}' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['gold'] }], rewrite: { template: '{{ .Value }}' } } } },
    // Up: the operator's Leases labelled with the copy's name, except internal ones.
    { identifier: 'tokens', origin: 'service', group: 'coordination.k8s.io', version: 'v1', resource: 'leases', object: { selector: { matchLabels: { 'svc.example.dev/db': '{{ .LocalObject.metadata.name }}' }, matchExpressions: [{ key: 'svc.example.dev/kind', operator: 'NotIn', values: ['internal'] }], rewrite: { regex: { pattern: '^.*-(t[0-9]+)$', replacement: 'token-$1' } } } } },
  ],
});

const lease = (name: string, labels: Readonly<Record<string, string>>, holderIdentity: string, extra: Partial<Lease['metadata']> = {}): Lease => ({
  apiVersion: 'coordination.k8s.io/v1',
  kind: 'Lease',
  metadata: { name, namespace: 'default', labels, ...extra },
  spec: { holderIdentity },
});
const gold = (db: string): Record<string, string> => ({ 'app.example.dev/db': db, tier: 'gold' });

/** The agent's Lease copies in the shared service namespace whose back-reference names `w`'s `name`. */
async function serviceCopies(w: Workspace, name: string): Promise<readonly Lease[]> {
  const all = must(await s.svc.client.list(leases, { namespace: s.svc.sharedNamespace })).items;
  return all.filter((l) => l.metadata.labels?.['sync.rxfleet.dev/related'] === 'cfg' && l.metadata.annotations?.['rxfleet.dev/source-cluster'] !== undefined && backRef(l).cluster === w.ws.logicalCluster && backRef(l).name === name);
}

const copiesHeld = (w: Workspace, name: string, holders: readonly string[]): Promise<readonly Lease[]> =>
  waitFor(`${w.ws.logicalCluster}/default/${name}'s service-side Leases held by ${holders.join(', ')}`, async () => {
    const got = await serviceCopies(w, name);
    return JSON.stringify(got.map(holder).sort()) === JSON.stringify([...holders].sort()) ? got : undefined;
  }, { context: s.context });

const s = relatedScenario<Db>({ consumers: 2, config });

describe('rxfleet-sync-agent: related objects selected in the workspace (origin kcp), and matchExpressions', () => {
  let victim: Db;
  let aCopies: readonly Lease[];

  it('the consumer\'s labelled objects meeting matchExpressions go down under names the agent derives, and follow a label change', async () => {
    must(await s.a.client.create(leases, lease('cfg-1', gold('orders'), 'a-gold')));
    must(await s.a.client.create(leases, lease('cfg-2', { 'app.example.dev/db': 'orders', tier: 'bronze' }, 'a-bronze')));
    must(await s.a.client.create(leases, lease('cfg-3', gold('billing'), 'a-billing')));
    must(await s.a.client.apply(s.dbs, { metadata: { name: 'orders', namespace: 'default' }, spec: { engine: 'postgres', size: 1, connectionSecretName: 'orders-conn' } }, { fieldManager: 'consumer' }));
    victim = await s.copyOf(s.a, 'orders');
    const [only] = await copiesHeld(s.a, 'orders', ['a-gold']);
    expect(only?.metadata.name).toMatch(derived);
    // The service's operator finds them by its copy's own source label.
    expect(only?.metadata.labels?.[sourceLabel]).toBe(victim.metadata.labels?.[sourceLabel]);
    // cfg-2 now meets the expression (a workspace change wakes the consumer object): it goes down too.
    must(await s.a.client.patch(leases, 'cfg-2', { metadata: { labels: { tier: 'gold' } } }, { type: 'merge', namespace: 'default' }));
    aCopies = await copiesHeld(s.a, 'orders', ['a-gold', 'a-bronze']);
    expect(aCopies.every((l) => derived.test(l.metadata.name ?? ''))).toBe(true);
  });

  it('another workspace with the same names gets copies of its own, and a forged back-reference to the other tenant is refused', async () => {
    must(await s.b.client.create(leases, lease('cfg-1', gold('orders'), 'b-gold')));
    // B's Lease claims to be A's object's (the back-reference of A's copy, verbatim).
    const forged = { labels: { ...gold('orders'), [sourceLabel]: victim.metadata.labels?.[sourceLabel] ?? '' }, annotations: Object.fromEntries(Object.entries(victim.metadata.annotations ?? {}).filter(([k]) => k.startsWith('rxfleet.dev/source'))) };
    must(await s.b.client.create(leases, lease('cfg-9', forged.labels, 'b-forged', { annotations: forged.annotations })));
    must(await s.b.client.apply(s.dbs, { metadata: { name: 'orders', namespace: 'default' }, spec: { engine: 'postgres', size: 1, connectionSecretName: 'orders-conn' } }, { fieldManager: 'consumer' }));
    const [bGold] = await copiesHeld(s.b, 'orders', ['b-gold']);
    expect(aCopies.map((l) => l.metadata.name)).not.toContain(bGold?.metadata.name);
    const refused = await s.refusedIn(s.b, 'orders');
    expect(refused.message).toContain('related "cfg" (Lease');
    expect(refused.message).not.toContain(s.a.ws.logicalCluster);
    // Sentinel: a later Lease of B arrives; the forged one never went anywhere, and A's copies are A's.
    must(await s.b.client.create(leases, lease('cfg-4', gold('orders'), 'b-gold-2')));
    await copiesHeld(s.b, 'orders', ['b-gold', 'b-gold-2']);
    const all = must(await s.svc.client.list(leases, { namespace: s.svc.sharedNamespace })).items;
    expect(all.map(holder)).not.toContain('b-forged');
    expect((await serviceCopies(s.a, 'orders')).map(holder).sort()).toEqual(['a-bronze', 'a-gold']);
  });

  it('a service-origin selector with matchExpressions brings up only the objects that meet them', async () => {
    const copy = victim.metadata.name ?? '';
    const token = (n: number, kind: string, holderIdentity: string): Lease => {
      const l = lease(`${copy}-t${n}`, { 'svc.example.dev/db': copy, 'svc.example.dev/kind': kind }, holderIdentity);
      return { ...l, metadata: { ...l.metadata, namespace: s.svc.sharedNamespace } };
    };
    must(await s.svc.client.create(leases, token(1, 'token', 'tok-1')));
    must(await s.svc.client.create(leases, token(2, 'internal', 'tok-internal')));
    await s.workspaceLease(s.a, 'token-t1', 'tok-1');
    // Sentinel: a later token arrives; the internal one never did.
    must(await s.svc.client.create(leases, token(3, 'token', 'tok-3')));
    await s.workspaceLease(s.a, 'token-t3', 'tok-3');
    expect(await getOrUndefined<Lease>(s.a.client, leases, 'token-t2', 'default')).toBeUndefined();
  });

  it('deleting the consumer object deletes its service-side copies and leaves the workspace\'s Leases', async () => {
    must(await s.a.client.delete(s.dbs, 'orders', { namespace: 'default' }));
    await waitFor('A\'s service-side Lease copies gone', async () => ((await serviceCopies(s.a, 'orders')).length === 0 ? true : undefined), { context: s.context });
    expect(holder(await getOrUndefined<Lease>(s.a.client, leases, 'cfg-1', 'default'))).toBe('a-gold');
    expect((await serviceCopies(s.b, 'orders')).map(holder).sort()).toEqual(['b-gold', 'b-gold-2']);
  });
});
