// `syncStatus` with origin `service` (issue 28 item 4), over the in-memory fleet: the status of a
// related object the service's operator made comes up into the workspace with it, through the
// status subresource of the workspace's copy, after `mutation.status` ran on the operator's object;
// a later status change follows, and the workspace copy's own status edits are put back.
import { afterEach, describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/index.js';
import { resource } from '../../src/index.js';
import type { PublishedPlan } from '../../packages/sync-agent/src/plan.js';
import type { Running } from './sync-fixture.js';
import { agentFleet, database, plan, relatedName, runSync } from './sync-fixture.js';

interface Quota extends KubeObject {
  readonly spec?: { readonly hard?: Readonly<Record<string, string>> };
  readonly status?: { readonly hard?: Readonly<Record<string, string>>; readonly used?: Readonly<Record<string, string>>; readonly note?: string };
}
const quotas = resource<Quota>({ group: '', version: 'v1', plural: 'resourcequotas', kind: 'ResourceQuota', namespaced: true });

let running: Running | undefined;
afterEach(async () => {
  await running?.handle.stop();
  running = undefined;
});

const withQuota: PublishedPlan = {
  ...plan,
  published: {
    ...plan.published,
    related: [
      {
        identifier: 'connection',
        origin: 'service',
        resource: 'resourcequotas',
        object: { path: 'spec.connectionSecretName' },
        syncStatus: true,
        mutation: { status: [{ delete: { path: 'status.used' } }, { template: { path: 'status.note', template: 'for {{ .RemoteObject.metadata.name }}' } }] },
      },
    ],
  },
  related: { connection: quotas },
};

const quota = (namespace: string, name: string, pods: string): Quota => ({ apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name, namespace }, spec: { hard: { pods } }, status: { hard: { pods }, used: { pods: '1' } } });

describe('related syncStatus, origin service', () => {
  it('the operator\'s object\'s status comes up with it, after mutation.status; a change follows; an edit of the copy\'s status is put back', async () => {
    const orders = database('orders', { size: 1, connectionSecretName: 'orders-quota' });
    const fleet = agentFleet({ 'ws-a': [orders] });
    const at = `ws-a/${relatedName('ws-a', orders, 'connection')}`;
    fleet.put('service', quotas, quota('ws-a', relatedName('ws-a', orders, 'connection'), '5'));
    running = await runSync(fleet, [withQuota]);
    const up = (pods: string) => (): boolean => fleet.object('ws-a', quotas, 'default/orders-quota')?.status?.hard?.pods === pods;
    await running.until(up('5'));
    const copy = fleet.object('ws-a', quotas, 'default/orders-quota');
    expect(copy?.spec?.hard).toEqual({ pods: '5' });
    expect(copy?.status).toEqual({ hard: { pods: '5' }, note: 'for orders-quota' });
    // The operator changes it: the status follows.
    const now = fleet.object('service', quotas, at);
    fleet.put('service', quotas, { ...(now ?? quota('ws-a', '', '7')), status: { hard: { pods: '7' }, used: { pods: '2' } } });
    await running.until(up('7'));
    // Someone edits the copy's status in the workspace: the origin's is put back.
    const mine = fleet.object('ws-a', quotas, 'default/orders-quota');
    fleet.put('ws-a', quotas, { ...(mine ?? quota('default', 'orders-quota', '9')), status: { hard: { pods: '9' } } });
    await running.until(up('7'));
    expect(fleet.object('ws-a', quotas, 'default/orders-quota')?.status).toEqual({ hard: { pods: '7' }, note: 'for orders-quota' });
  });
});
