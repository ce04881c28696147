// The published filter on the real kcp and kube-apiserver, `rxfleet-sync-agent` as its own process (issue
// 28 item 2): an object that stops matching `filter.labelSelector` is released, its service copy and
// connection Secret deleted and the agent's finalizer removed, so a later delete completes instead
// of hanging; an object that never matched is never touched.
import { load } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import type { Secret } from '../../src/index.js';
import { secrets } from '../../src/index.js';
import type { Database } from '../../examples/sync-agent/api.js';
import { getOrUndefined } from '../support/sync-agent-kcp.js';
import { waitFor } from '../support/sync-agent-process.js';
import type { ServiceSide } from '../support/sync-agent-service.js';
import { backRef, startService } from '../support/sync-agent-service.js';
import { must } from '../support/wait.js';
import { agentScenario } from './sync-agent-scenario.js';

/** The example's configuration, with a label filter. */
function filtered(svc: ServiceSide): string {
  const config = load(svc.configYaml) as { published: { filter?: unknown }[] };
  for (const entry of config.published) entry.filter = { labelSelector: 'sync=yes' };
  return JSON.stringify(config);
}

const s = agentScenario<ServiceSide, Database>({ service: (yaml) => startService(yaml, { readyAfterMs: 200, deprovisionMs: 500 }), consumers: 1, config: filtered });
const finalizer = (): string => `sync.rxfleet.dev/${s.svc.agentName}`;
const copiesOf = async (name: string): Promise<readonly Database[]> => (await s.svc.copiesFrom(s.a.ws.logicalCluster)).filter((c) => backRef(c).name === name);

describe('rxfleet-sync-agent: the label filter releases what leaves it', () => {
  it('an object that loses its label is released: its copy and Secret deleted, the finalizer removed, and a delete then completes', async () => {
    must(await s.a.client.apply(s.dbs, { metadata: { name: 'plain', namespace: 'default' }, spec: { engine: 'postgres', size: 1, connectionSecretName: 'plain-db' } }, { fieldManager: 'consumer' }));
    must(await s.a.client.apply(s.dbs, { metadata: { name: 'orders', namespace: 'default', labels: { sync: 'yes' } }, spec: { engine: 'postgres', size: 1, connectionSecretName: 'orders-db' } }, { fieldManager: 'consumer' }));
    await waitFor('orders synced: Ready and its Secret', async () => {
      const d = await getOrUndefined(s.a.client, s.dbs, 'orders', 'default');
      const secret = await getOrUndefined<Secret>(s.a.client, secrets, 'orders-db', 'default');
      return d?.status?.phase === 'Ready' && secret !== undefined ? true : undefined;
    }, { context: s.context });
    expect((await getOrUndefined(s.a.client, s.dbs, 'orders', 'default'))?.metadata.finalizers).toContain(finalizer());
    expect(await copiesOf('orders')).toHaveLength(1);
    // The object that never matched was never taken.
    expect((await getOrUndefined(s.a.client, s.dbs, 'plain', 'default'))?.metadata.finalizers ?? []).not.toContain(finalizer());
    expect(await copiesOf('plain')).toEqual([]);

    must(await s.a.client.patch(s.dbs, 'orders', { metadata: { labels: { sync: null } } }, { type: 'merge', namespace: 'default' }));
    const released = await waitFor('orders released: no finalizer, no copy, no Secret', async () => {
      const d = await getOrUndefined(s.a.client, s.dbs, 'orders', 'default');
      if (d === undefined || (d.metadata.finalizers ?? []).includes(finalizer())) return undefined;
      const [copies, secret] = await Promise.all([copiesOf('orders'), getOrUndefined<Secret>(s.a.client, secrets, 'orders-db', 'default')]);
      return copies.length === 0 && secret === undefined ? d : undefined;
    }, { context: s.context });
    expect(released.metadata.deletionTimestamp).toBeUndefined();
    must(await s.a.client.delete(s.dbs, 'orders', { namespace: 'default' }));
    await waitFor('orders deleted', async () => ((await getOrUndefined(s.a.client, s.dbs, 'orders', 'default')) === undefined ? true : undefined), { context: s.context });
  });
});
