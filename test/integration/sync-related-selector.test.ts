// Related objects found by a label selector on the service cluster (issue 28 item 4), on the real kcp
// and kube-apiserver with `rxfleet-sync-agent` as its own process, every workspace's copies in ONE
// service namespace. The service's operator (here, the test) makes token Leases for a copy, labelled
// with the copy's name and with `kind=token`. One selector names the copy (`db: {{ .LocalObject.metadata.name }}`);
// another is written to catch every tenant's tokens (`kind: token`). Every check reads the data that arrived.
import { describe, expect, it } from 'vitest';
import type { Lease } from '../../src/resources/index.js';
import { leases } from '../../src/resources/index.js';
import type { SyncConfig } from '../../packages/sync-agent/src/types.js';
import { getOrUndefined } from '../support/sync-agent-kcp.js';
import { backRef } from '../support/sync-agent-service.js';
import { must } from '../support/wait.js';
import type { Conditioned as Db, AgentWorkspace as Workspace } from './sync-agent-scenario.js';
import { holder, relatedScenario } from './sync-agent-scenario.js';
import type { TenancyService } from './sync-tenancy-support.js';
import { sharedNamespaceSyncConfig } from './sync-tenancy-support.js';

const leasesOf = async (w: Workspace): Promise<readonly Lease[]> => must(await w.client.list(leases, { namespace: 'default' })).items;

const regex = (prefix: string): { readonly regex: { readonly pattern: string; readonly replacement: string } } => ({ regex: { pattern: '^.*-(t[0-9]+)$', replacement: `${prefix}-$1` } });
const config = (side: TenancyService): SyncConfig => sharedNamespaceSyncConfig(side, side.sharedNamespace, {
  related: [
    { identifier: 'tokens', origin: 'service', group: 'coordination.k8s.io', version: 'v1', resource: 'leases', object: { selector: { matchLabels: { 'svc.example.dev/db': '{{ .LocalObject.metadata.name }}' }, rewrite: regex('token') } } },
    { identifier: 'broad', origin: 'service', group: 'coordination.k8s.io', version: 'v1', resource: 'leases', object: { selector: { matchLabels: { 'svc.example.dev/kind': 'token' }, rewrite: regex('broad') } } },
  ],
});

/** What the service's operator makes for a copy: a token Lease labelled with the copy's name. */
const token = (copy: Db, n: number, holderIdentity: string): Lease => ({
  apiVersion: 'coordination.k8s.io/v1',
  kind: 'Lease',
  metadata: { name: `${copy.metadata.name ?? ''}-t${n}`, namespace: s.svc.sharedNamespace, labels: { 'svc.example.dev/db': copy.metadata.name ?? '', 'svc.example.dev/kind': 'token' } },
  spec: { holderIdentity },
});

const s = relatedScenario<Db>({ consumers: 2, config });

describe('rxfleet-sync-agent: related objects found by a label selector (one service namespace for every workspace)', () => {
  let victim: Db;

  it('a selector that names the copy brings each of its objects up under its rewritten name, and follows a change', async () => {
    must(await s.a.client.apply(s.dbs, { metadata: { name: 'orders', namespace: 'default' }, spec: { engine: 'postgres', size: 1, connectionSecretName: 'orders-conn' } }, { fieldManager: 'consumer' }));
    victim = await s.copyOf(s.a, 'orders');
    must(await s.svc.client.create(leases, token(victim, 1, 'a-secret-1')));
    must(await s.svc.client.create(leases, token(victim, 2, 'a-secret-2')));
    const [t1] = await Promise.all([s.workspaceLease(s.a, 'token-t1', 'a-secret-1'), s.workspaceLease(s.a, 'token-t2', 'a-secret-2')]);
    expect(backRef(t1)).toMatchObject({ cluster: s.a.ws.logicalCluster, namespace: 'default', name: 'orders' });
    // A change on the service side wakes the consumer object (the selector, rendered per copy).
    must(await s.svc.client.patch(leases, `${victim.metadata.name ?? ''}-t1`, { spec: { holderIdentity: 'a-secret-1b' } }, { type: 'merge', namespace: s.svc.sharedNamespace }));
    await s.workspaceLease(s.a, 'token-t1', 'a-secret-1b');
  });

  it('a selector written to catch every tenant\'s objects delivers none of them: each is refused where it is not proven', async () => {
    // The broad selector matches A's tokens, which prove nothing for anyone (no owner reference, no
    // back-reference, the selector does not name a copy): refused for A too, nothing copied.
    const forA = await s.refusedIn(s.a, 'orders');
    expect(forA.message).toContain('related "broad" (Lease');
    expect(forA.message).toContain('match the selector without being proven to belong to this object');
    must(await s.b.client.apply(s.dbs, { metadata: { name: 'thief', namespace: 'default' }, spec: { engine: 'postgres', size: 1, connectionSecretName: 'thief-conn' } }, { fieldManager: 'consumer' }));
    const thief = await s.copyOf(s.b, 'thief');
    const refused = await s.refusedIn(s.b, 'thief');
    expect(refused.message).toContain('related "broad" (Lease');
    expect(refused.message).not.toContain(victim.metadata.name ?? '');
    expect(refused.message).not.toContain(s.a.ws.logicalCluster);
    // Sentinel: B's own token arrives through the selector that names B's copy; none of A's ever did.
    must(await s.svc.client.create(leases, token(thief, 1, 'b-secret-1')));
    await s.workspaceLease(s.b, 'token-t1', 'b-secret-1');
    const held = (await leasesOf(s.b)).map(holder);
    expect(held).not.toContain('a-secret-1b');
    expect(held).not.toContain('a-secret-2');
    expect((await leasesOf(s.a)).map(holder)).not.toContain('b-secret-1');
    expect(await getOrUndefined<Lease>(s.b.client, leases, 'broad-t1', 'default')).toBeUndefined();
  });
});
