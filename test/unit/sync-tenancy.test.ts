// The sync controller against tenants who try to reach each other's related objects, on the
// in-memory fleet: a consumer naming another workspace's Secret in a shared service namespace, two
// namespaces of one workspace naming the same objects, a forged back-reference on the service side,
// a rename while a copy exists, and two objects naming one Secret in the workspace. A stand-in
// operator writes each copy's connection Secret where the copy's spec says, holding its owner.
import { afterEach, describe, expect, it } from 'vitest';
import type { KubeObject, Secret } from '../../src/index.js';
import { secrets } from '../../src/index.js';
import { readBackReference, withBackReference } from '../../src/sinks/index.js';
import type { PublishedPlan } from '../../packages/sync-agent/src/plan.js';
import type { InMemoryFleet } from '../../src/testing/index.js';
import { isWrite } from '../../src/testing/index.js';
import type { Db, Running } from './sync-fixture.js';
import { agentFleet, database, dbKcp, dbService, plan, runSync, secret } from './sync-fixture.js';

let running: Running | undefined;
afterEach(async () => {
  await running?.handle.stop();
  running = undefined;
});

const shared: PublishedPlan = {
  ...plan,
  published: { ...plan.published, naming: { namespace: 'shared', name: '{{ .ClusterName }}-{{ .Object.metadata.namespace | sha3short }}-{{ .Object.metadata.name | sha3short }}' } },
};
const b64 = (s: string): string => Buffer.from(s).toString('base64');
const owner = (s: KubeObject | undefined): string => Buffer.from((s as Secret | undefined)?.data?.owner ?? '', 'base64').toString();

/** The service's operator: for every copy naming a connection Secret, that Secret, holding whose it is. */
function operate(fleet: InMemoryFleet): void {
  for (const copy of fleet.objects<Db>('service', dbService)) {
    const name = copy.spec?.connectionSecretName;
    const ref = readBackReference(copy);
    if (name === undefined || ref === undefined) continue;
    const ns = copy.metadata.namespace ?? '';
    const want = `${ref.cluster}/${ref.namespace}/${ref.name}`;
    if (owner(fleet.object('service', secrets, `${ns}/${name}`)) !== want) fleet.put('service', secrets, secret(ns, name, { owner: b64(want) }));
  }
}

const conditionOf = (fleet: InMemoryFleet, cluster: string, ref: string): Readonly<Record<string, unknown>> | undefined => {
  const status = fleet.object(cluster, dbKcp, ref)?.status as { conditions?: readonly Readonly<Record<string, unknown>>[] } | undefined;
  return status?.conditions?.find((c) => c.type === 'sync.rxfleet.dev/Synced');
};

describe('sync tenancy', () => {
  it('a consumer naming another workspace\'s connection Secret in a shared service namespace gets its own, never the other\'s', async () => {
    const fleet = agentFleet({ 'ws-a': [database('orders', { size: 1, connectionSecretName: 'a-conn' })], 'ws-b': [database('thief', { size: 1, connectionSecretName: 'a-conn' })] });
    running = await runSync(fleet, [shared]);
    await running.until(() => {
      operate(fleet);
      return owner(fleet.object('ws-a', secrets, 'default/a-conn')) === 'ws-a/default/orders' && owner(fleet.object('ws-b', secrets, 'default/a-conn')) === 'ws-b/default/thief';
    });
    // Every Secret ws-b ever received was its own.
    const intoB = fleet.requestsOf({ cluster: 'ws-b', resource: secrets }).filter(isWrite);
    expect(intoB.length).toBeGreaterThan(0);
    expect(intoB.every((r) => !JSON.stringify(r.body ?? {}).includes(b64('ws-a/default/orders')))).toBe(true);
    expect(fleet.objects('service', secrets, 'shared')).toHaveLength(2);
  });

  it('two namespaces of one workspace naming the same related objects get one each, both ways', async () => {
    const spec = { size: 1, connectionSecretName: 'dup-conn', credentialsSecretName: 'dup-creds' };
    const dup = (ns: string): Db => ({ ...database('dup', spec), metadata: { name: 'dup', namespace: ns } });
    const fleet = agentFleet({ 'ws-a': [dup('default'), dup('team'), secret('default', 'dup-creds', { tier: b64('gold') }), secret('team', 'dup-creds', { tier: b64('bronze') })] });
    running = await runSync(fleet);
    await running.until(() => {
      operate(fleet);
      return owner(fleet.object('ws-a', secrets, 'default/dup-conn')) === 'ws-a/default/dup' && owner(fleet.object('ws-a', secrets, 'team/dup-conn')) === 'ws-a/team/dup';
    });
    // Down: each copy names its own credentials on the service side, holding its own tier.
    const tierOf = (ns: string): string => {
      const copy = fleet.objects<Db>('service', dbService).find((c) => readBackReference(c)?.namespace === ns);
      return Buffer.from(fleet.object<Secret>('service', secrets, `ws-a/${copy?.spec?.credentialsSecretName ?? ''}`)?.data?.tier ?? '', 'base64').toString();
    };
    await running.until(() => tierOf('default') === 'gold' && tierOf('team') === 'bronze');
    expect(conditionOf(fleet, 'ws-a', 'team/dup')).toBeUndefined();
  });

  it('a forged back-reference on the service side is never delivered; the refusal is in the consumer\'s status', async () => {
    const fleet = agentFleet({ 'ws-b': [database('orders', { size: 1, connectionSecretName: 'conn' })] });
    running = await runSync(fleet, [shared]);
    await running.until(() => fleet.objects<Db>('service', dbService).length === 1);
    const copy = fleet.objects<Db>('service', dbService)[0];
    const at = copy?.spec?.connectionSecretName ?? '';
    const ref = copy === undefined ? undefined : readBackReference(copy);
    if (ref === undefined) throw new Error('copy');
    // Someone on the service side puts another tenant's data where B's Secret goes, claiming B (wrong uid).
    fleet.put('service', secrets, withBackReference(secret('shared', at, { owner: b64('ws-a/default/orders') }), { ...ref, uid: 'not-b' }));
    await running.until(() => conditionOf(fleet, 'ws-b', 'default/orders')?.status === 'False');
    expect(fleet.object('ws-b', secrets, 'default/conn')).toBeUndefined();
    expect(String(conditionOf(fleet, 'ws-b', 'default/orders')?.message)).toContain('belongs to another object');
    // The operator's own Secret replaces the forgery: B gets it, and the condition clears.
    fleet.put('service', secrets, secret('shared', at, { owner: b64('ws-b/default/orders') }));
    await running.until(() => owner(fleet.object('ws-b', secrets, 'default/conn')) === 'ws-b/default/orders' && conditionOf(fleet, 'ws-b', 'default/orders')?.status === 'True');
  });

  it('a rename while a copy exists moves the copy in the workspace and never reaches another tenant\'s Secret', async () => {
    const fleet = agentFleet({ 'ws-a': [database('orders', { size: 1, connectionSecretName: 'a-conn' })], 'ws-b': [database('orders', { size: 1, connectionSecretName: 'b-conn' }, { namespace: 'other' })] });
    running = await runSync(fleet, [shared]);
    await running.until(() => {
      operate(fleet);
      return owner(fleet.object('ws-b', secrets, 'other/b-conn')) === 'ws-b/other/orders' && owner(fleet.object('ws-a', secrets, 'default/a-conn')) === 'ws-a/default/orders';
    });
    const b = fleet.object<Db>('ws-b', dbKcp, 'other/orders');
    if (b === undefined) throw new Error('b');
    fleet.put('ws-b', dbKcp, { ...b, spec: { size: 1, connectionSecretName: 'a-conn' } });
    await running.until(() => {
      operate(fleet);
      return fleet.object('ws-b', secrets, 'other/a-conn') !== undefined && fleet.object('ws-b', secrets, 'other/b-conn') === undefined;
    });
    expect(owner(fleet.object('ws-b', secrets, 'other/a-conn'))).toBe('ws-b/other/orders');
    expect(owner(fleet.object('ws-a', secrets, 'default/a-conn'))).toBe('ws-a/default/orders');
  });

  it('two objects of one namespace naming one Secret in the workspace: the second is refused, in its status, and the first keeps its own', async () => {
    const fleet = agentFleet({ 'ws-a': [database('first', { size: 1, connectionSecretName: 'conn' })] });
    running = await runSync(fleet);
    await running.until(() => {
      operate(fleet);
      return owner(fleet.object('ws-a', secrets, 'default/conn')) === 'ws-a/default/first';
    });
    fleet.put('ws-a', dbKcp, database('second', { size: 1, connectionSecretName: 'conn' }));
    await running.until(() => {
      operate(fleet);
      return conditionOf(fleet, 'ws-a', 'default/second')?.status === 'False';
    });
    expect(owner(fleet.object('ws-a', secrets, 'default/conn'))).toBe('ws-a/default/first');
    expect(String(conditionOf(fleet, 'ws-a', 'default/second')?.message)).toBe('refused by the sync agent: related "connection" (Secret conn in this workspace): Secret belongs to another object');
  });

  it('a service-side name the operator gives two copies (a status path) is delivered to neither, and both are told', async () => {
    const byStatus: PublishedPlan = { ...plan, published: { ...plan.published, related: [{ identifier: 'connection', origin: 'service', kind: 'Secret', object: { path: 'status.secretName' } }] } };
    const fleet = agentFleet({ 'ws-a': [database('one', { size: 1 }), database('two', { size: 1 })] });
    running = await runSync(fleet, [byStatus]);
    await running.until(() => fleet.objects('service', dbService).length === 2);
    // The operator (wrongly) reports the same Secret for both copies.
    for (const copy of fleet.objects<Db>('service', dbService)) fleet.put('service', dbService, { ...copy, status: { secretName: 'same' } } as Db);
    fleet.put('service', secrets, secret('ws-a', 'same', { owner: b64('whoever') }));
    await running.until(() => ['default/one', 'default/two'].every((ref) => conditionOf(fleet, 'ws-a', ref)?.status === 'False'));
    expect(String(conditionOf(fleet, 'ws-a', 'default/one')?.message)).toContain('is also named by another object on the service cluster');
    expect(fleet.object('ws-a', secrets, 'default/same')).toBeUndefined();
  });
});
