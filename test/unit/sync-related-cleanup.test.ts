// `cleanup: false` on a related entry (issue 28 item 4), over the in-memory fleet: the workspace
// copies of that entry are never deleted by the agent, neither when the consumer object renames
// them nor when it goes, and are detached (the agent's labels and back-reference removed) when the
// agent lets go of the consumer object; the other entries' copies, of the same kind too, are
// deleted as before, and no origin object is touched; the orphan sweep leaves the kept ones too.
import { afterEach, describe, expect, it } from 'vitest';
import { resourceId } from '../../src/client/index.js';
import type { KubeObject } from '../../src/index.js';
import { clusterName, secrets } from '../../src/index.js';
import { readBackReference, withBackReference } from '../../src/sinks/index.js';
import { isWrite, requestLabel } from '../../src/testing/index.js';
import { agentLabels, relatedLabel } from '../../packages/sync-agent/src/labels.js';
import type { PublishedPlan } from '../../packages/sync-agent/src/plan.js';
import type { Running } from './sync-fixture.js';
import { agentFleet, copyRef, database, dbKcp, dbService, plan, relatedName, relatedRef, runSync, secret } from './sync-fixture.js';

let running: Running | undefined;
afterEach(async () => {
  await running?.handle.stop();
  running = undefined;
});

// `connection` kept; `extra` (a Secret too, named after the copy) and `credentials` (origin kcp) not.
const kept: PublishedPlan = {
  ...plan,
  published: {
    ...plan.published,
    related: [
      { identifier: 'connection', origin: 'service', kind: 'Secret', object: { path: 'spec.connectionSecretName' }, cleanup: false },
      { identifier: 'extra', origin: 'service', kind: 'Secret', object: { template: '{{ .Object.metadata.name }}-extra' } },
      { identifier: 'credentials', origin: 'kcp', kind: 'Secret', object: { path: 'spec.credentialsSecretName' } },
    ],
  },
};

const agentKeys = (o: KubeObject | undefined): string[] => [...Object.keys(o?.metadata.labels ?? {}), ...Object.keys(o?.metadata.annotations ?? {})].filter((k) => k.includes('rxfleet.dev/'));

describe('related cleanup: false', () => {
  it('keeps the workspace copies through a rename and the consumer object\'s deletion, detached; deletes the rest; touches no origin', async () => {
    const orders = database('orders', { size: 1, connectionSecretName: 'orders-conn', credentialsSecretName: 'orders-creds' });
    const fleet = agentFleet({ 'ws-a': [orders, secret('default', 'orders-creds', { user: 'dQ==' })] });
    const copyName = copyRef('ws-a', orders).split('/')[1] ?? '';
    fleet.put('service', secrets, secret('ws-a', relatedName('ws-a', orders, 'connection'), { password: 'cA==' }));
    fleet.put('service', secrets, secret('ws-a', `${copyName}-extra`, { extra: 'eA==' }));
    running = await runSync(fleet, [kept]);
    await running.until(
      () =>
        fleet.object('ws-a', secrets, 'default/orders-conn') !== undefined &&
        fleet.object('ws-a', secrets, 'default/orders-extra') !== undefined &&
        fleet.object('service', secrets, relatedRef('ws-a', orders, 'credentials')) !== undefined,
    );
    // A rename: the copy comes to the new name, and the old one stays (the agent never deletes it).
    const now = fleet.object('ws-a', dbKcp, 'default/orders') ?? orders;
    fleet.put('ws-a', dbKcp, { ...now, spec: { ...now.spec, connectionSecretName: 'orders-conn-2' } });
    await running.until(() => fleet.object('ws-a', secrets, 'default/orders-conn-2') !== undefined);
    expect(fleet.object('ws-a', secrets, 'default/orders-conn')).toBeDefined();

    fleet.delete('ws-a', dbKcp, 'default/orders');
    await running.until(() => fleet.object('ws-a', dbKcp, 'default/orders') === undefined);
    // Kept and detached: the data is there, nothing of the agent's.
    for (const name of ['orders-conn', 'orders-conn-2']) {
      const s = fleet.object('ws-a', secrets, `default/${name}`);
      expect(s?.data).toEqual({ password: 'cA==' });
      expect(readBackReference(s as KubeObject)).toBeUndefined();
      expect(agentKeys(s)).toEqual([]);
    }
    // The other entries' copies are deleted: `extra` in the workspace, `credentials` on the service cluster, and the copy.
    expect(fleet.object('ws-a', secrets, 'default/orders-extra')).toBeUndefined();
    expect(fleet.object('service', secrets, relatedRef('ws-a', orders, 'credentials'))).toBeUndefined();
    expect(fleet.object('service', dbService, copyRef('ws-a', orders))).toBeUndefined();
    // The origins stay: the service's Secrets and the consumer's.
    expect(fleet.object('service', secrets, relatedRef('ws-a', orders, 'connection'))).toBeDefined();
    expect(fleet.object('service', secrets, `ws-a/${copyName}-extra`)).toBeDefined();
    expect(fleet.object('ws-a', secrets, 'default/orders-creds')).toBeDefined();
  });

  it('the orphan sweep leaves a kept entry\'s copies alone and deletes the others\' whose consumer object is gone', async () => {
    const gone = { cluster: clusterName('ws-a'), resource: resourceId(dbKcp), namespace: 'default', name: 'gone', uid: 'u-gone' };
    const orphan = (name: string, identifier: string): KubeObject => withBackReference({ ...secret('default', name, { v: 'dg==' }), metadata: { name, namespace: 'default', labels: { ...agentLabels(kept.agentName, kept.published.name), [relatedLabel]: identifier } } }, gone);
    const fleet = agentFleet({ 'ws-a': [orphan('gone-conn', 'connection'), orphan('gone-extra', 'extra')] });
    running = await runSync(fleet, [kept]);
    await running.until(() => fleet.object('ws-a', secrets, 'default/gone-extra') === undefined);
    expect(fleet.object('ws-a', secrets, 'default/gone-conn')).toBeDefined();
    expect(fleet.requests.filter(isWrite).map(requestLabel)).toEqual(['delete ws-a/default/gone-extra']);
  });
});
