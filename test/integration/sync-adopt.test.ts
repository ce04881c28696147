// Adoption on the real kcp and kube-apiserver, `rxfleet-sync-agent` as its own process (issue 28 item
// 5, api-syncagent#129): Databases made on the service cluster without kcp are adopted into a
// workspace by an `adopt` rule and then sync in place, spec down and status up, and a deletion in the
// workspace deletes them; a service object that is another workspace's copy is never adopted, and an
// adoption that would land on an existing consumer object is refused naming both, nothing written.
import { randomBytes } from 'node:crypto';
import { load } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { namespaces } from '../../src/index.js';
import { readBackReference } from '../../src/sinks/index.js';
import type { Database } from '../../examples/sync-agent/api.js';
import { getOrUndefined } from '../support/sync-agent-kcp.js';
import { waitFor } from '../support/sync-agent-process.js';
import type { ServiceSide } from '../support/sync-agent-service.js';
import { backRef, startService } from '../support/sync-agent-service.js';
import { must } from '../support/wait.js';
import type { AgentWorkspace } from './sync-agent-scenario.js';
import { agentScenario } from './sync-agent-scenario.js';

interface Condition { readonly type: string; readonly status: string; readonly message: string }

const legacy = `legacy-${randomBytes(3).toString('hex')}`;
const spec = (size: number, secret: string): Database['spec'] => ({ engine: 'postgres', size, connectionSecretName: secret });

/** Made on the service cluster before the agent runs, as an operator's users did without kcp. */
async function legacyOrders(svc: ServiceSide): Promise<void> {
  must(await svc.client.apply(namespaces, { metadata: { name: legacy } }, { fieldManager: 'admin' }));
  must(await svc.client.apply(svc.databases, { metadata: { name: 'orders', namespace: legacy, labels: { 'app.kubernetes.io/name': 'orders', internal: 'x' } }, spec: spec(2, 'orders-conn') }, { fieldManager: 'admin' }));
}

/**
 * The example's configuration, with two rules into A: the legacy namespace, and B's copies (a rule
 * that, wrongly written, selects another workspace's objects).
 */
function adopting(svc: ServiceSide, [wa, wb]: readonly AgentWorkspace[]): string {
  const config = load(svc.configYaml) as { published: [{ adopt?: unknown }] };
  config.published[0].adopt = [
    { from: { namespace: legacy }, into: { workspace: wa?.ws.logicalCluster, namespace: 'default' } },
    { from: { namespace: wb?.ws.logicalCluster }, into: { workspace: wa?.ws.logicalCluster } },
  ];
  return JSON.stringify(config);
}

const s = agentScenario<ServiceSide, Database>({ service: (yaml) => startService(yaml, { readyAfterMs: 200, deprovisionMs: 500 }), consumers: 2, beforeWorkspaces: legacyOrders, config: adopting });
const onService = (namespace: string, name: string): Promise<Database | undefined> => getOrUndefined(s.svc.client, s.svc.databases, name, namespace);
const present = async (namespace: string, name: string): Promise<Database> => {
  const d = await onService(namespace, name);
  if (d === undefined) throw new Error(`databases ${namespace}/${name} is not on the service cluster`);
  return d;
};
const refusal = (text: string): boolean => s.agent.lines().some((l) => JSON.stringify(l).includes(text));

describe('rxfleet-sync-agent: adopting service objects into a workspace', () => {
  it('a service object is adopted into the workspace and then syncs in place: status up, spec down, deleted with its consumer object', async () => {
    const before = await onService(legacy, 'orders');
    const adopted = await waitFor('orders adopted into A and Ready there', async () => {
      const d = await getOrUndefined(s.a.client, s.dbs, 'orders', 'default');
      return d?.status?.phase === 'Ready' ? d : undefined;
    }, { context: s.context });
    expect(adopted.spec).toEqual(spec(2, 'orders-conn'));
    expect(adopted.metadata.labels).toEqual({ 'app.kubernetes.io/name': 'orders' });
    expect(adopted.metadata.annotations?.['sync.rxfleet.dev/adopted-from']).toBe(`${legacy}/orders`);
    // The service object is the copy, in place: the same object, back-referenced to A's.
    const copy = await present(legacy, 'orders');
    expect(copy.metadata.uid).toBe(before?.metadata.uid);
    expect(backRef(copy)).toMatchObject({ cluster: s.a.ws.logicalCluster, namespace: 'default', name: 'orders', uid: adopted.metadata.uid });
    expect(copy.metadata.labels?.internal).toBe('x');
    // No second copy where the naming templates would have put a new one.
    expect((await s.svc.copiesFrom(s.a.ws.logicalCluster)).map((c) => `${c.metadata.namespace ?? ''}/${c.metadata.name ?? ''}`)).toEqual([`${legacy}/orders`]);

    must(await s.a.client.patch(s.dbs, 'orders', { spec: { size: 3 } }, { type: 'merge', namespace: 'default' }));
    await waitFor('size 3 down to the adopted service object', async () => ((await onService(legacy, 'orders'))?.spec.size === 3 ? true : undefined), { context: s.context });
    await waitFor('observedSize 3 up to A', async () => ((await getOrUndefined(s.a.client, s.dbs, 'orders', 'default'))?.status?.observedSize === 3 ? true : undefined), { context: s.context });

    // Adoption hands the object to the workspace: deleting it there deletes the service object.
    must(await s.a.client.delete(s.dbs, 'orders', { namespace: 'default' }));
    await waitFor('orders gone from A and from the service cluster', async () => {
      const [inA, svcSide] = await Promise.all([getOrUndefined(s.a.client, s.dbs, 'orders', 'default'), onService(legacy, 'orders')]);
      return inA === undefined && svcSide === undefined ? true : undefined;
    }, { context: s.context });
  });

  it("another workspace's copy is never adopted, even by a rule that selects it", async () => {
    must(await s.b.client.apply(s.dbs, { metadata: { name: 'mine', namespace: 'default' }, spec: spec(1, 'mine-conn') }, { fieldManager: 'consumer' }));
    const copy = await waitFor("B's copy made", async () => (await s.svc.copiesFrom(s.b.ws.logicalCluster)).find((c) => backRef(c).name === 'mine'), { context: s.context });
    // The refusal, in the agent's log, names the copy and the workspace object it belongs to.
    await waitFor('the adoption of B\'s copy refused', () => Promise.resolve(refusal(`${copy.metadata.namespace ?? ''}/${copy.metadata.name ?? ''} on the service cluster carries a back-reference to ${s.b.ws.logicalCluster}/default/mine`) ? true : undefined), { context: s.context });
    expect(await getOrUndefined(s.a.client, s.dbs, copy.metadata.name ?? '', 'default')).toBeUndefined();
    expect(backRef(await present(copy.metadata.namespace ?? '', copy.metadata.name ?? ''))).toMatchObject({ cluster: s.b.ws.logicalCluster, name: 'mine' });
  });

  it('an adoption that would land on an existing consumer object is refused naming both, and nothing is written', async () => {
    must(await s.a.client.apply(s.dbs, { metadata: { name: 'clash', namespace: 'default' }, spec: spec(1, 'clash-a') }, { fieldManager: 'consumer' }));
    const made = await waitFor("A's clash synced (in the agent's cache)", async () => (await s.svc.copiesFrom(s.a.ws.logicalCluster)).find((c) => backRef(c).name === 'clash'), { context: s.context });
    must(await s.svc.client.apply(s.svc.databases, { metadata: { name: 'clash', namespace: legacy }, spec: spec(5, 'clash-svc') }, { fieldManager: 'admin' }));
    await waitFor('the adoption of legacy/clash refused', () => Promise.resolve(refusal(`databases ${legacy}/clash on the service cluster would be adopted as ${s.a.ws.logicalCluster}/default/clash, but that object exists already`) ? true : undefined), { context: s.context });
    const [inA, svcSide] = await Promise.all([getOrUndefined(s.a.client, s.dbs, 'clash', 'default'), onService(legacy, 'clash')]);
    expect(inA?.spec).toEqual(spec(1, 'clash-a'));
    expect(inA?.metadata.annotations?.['sync.rxfleet.dev/adopted-from']).toBeUndefined();
    expect(svcSide?.metadata.annotations ?? {}).toEqual({});
    expect(svcSide?.spec.size).toBe(5);
    expect(made.metadata.namespace).not.toBe(legacy);
  });
  it("a consumer object whose annotations name another workspace's adopted copy is told so in its status, and the copy is untouched", async () => {
    must(await s.svc.client.apply(s.svc.databases, { metadata: { name: 'shared', namespace: legacy }, spec: spec(4, 'shared-conn') }, { fieldManager: 'admin' }));
    const inA = await waitFor('shared adopted into A', async () => {
      const [d, copy] = await Promise.all([getOrUndefined(s.a.client, s.dbs, 'shared', 'default'), onService(legacy, 'shared')]);
      return d !== undefined && copy !== undefined && readBackReference(copy)?.uid === d.metadata.uid ? d : undefined;
    }, { context: s.context });
    const annotations = { 'sync.rxfleet.dev/adopted-from': `${legacy}/shared`, 'sync.rxfleet.dev/adopted-uid': inA.metadata.annotations?.['sync.rxfleet.dev/adopted-uid'] ?? '' };
    must(await s.b.client.apply(s.dbs, { metadata: { name: 'forged', namespace: 'default', annotations }, spec: spec(9, 'forged-conn') }, { fieldManager: 'consumer' }));
    const condition = await waitFor('B told in its status', async () => {
      const d = (await getOrUndefined(s.b.client, s.dbs, 'forged', 'default')) as (Database & { readonly status?: { readonly conditions?: readonly Condition[] } }) | undefined;
      return d?.status?.conditions?.find((c) => c.type === 'sync.rxfleet.dev/Synced' && c.status === 'False');
    }, { context: s.context });
    expect(condition.message).toContain('names a service object that is not this object');
    expect(condition.message).not.toContain(s.a.ws.logicalCluster);
    const copy = await present(legacy, 'shared');
    expect(copy.spec.size).toBe(4);
    expect(backRef(copy)).toMatchObject({ cluster: s.a.ws.logicalCluster, name: 'shared', uid: inA.metadata.uid });
    expect((await s.svc.copiesFrom(s.b.ws.logicalCluster)).filter((c) => backRef(c).name === 'forged')).toEqual([]);
  });
});
