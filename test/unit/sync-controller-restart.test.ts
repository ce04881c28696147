// The sync controller's guards: the tenant check refusing a service object that belongs to another
// workspace, a restart over the same state that writes nothing, the orphan sweep, and the pure
// pieces (status merge patch, synced-key patterns, the up-to-date test).
import { afterEach, describe, expect, it } from 'vitest';
import { resourceId } from '../../src/client/index.js';
import type { KubeObject } from '../../src/index.js';
import { clusterName, secrets } from '../../src/index.js';
import type { SourceIdentity } from '../../src/sinks/index.js';
import { withBackReference } from '../../src/sinks/index.js';
import { syncedConditionType } from '../../packages/sync-agent/src/condition.js';
import { agentLabels } from '../../packages/sync-agent/src/labels.js';
import { copyUpToDate, desiredCopy, keyMatches } from '../../packages/sync-agent/src/sync-down.js';
import { mergePatchTo, tenantProblem } from '../../packages/sync-agent/src/sync-up.js';
import { isWrite, requestLabel, statusFailure } from '../../src/testing/index.js';
import type { Running } from './sync-fixture.js';
import { agentFleet, copyRef, database, dbKcp, dbService, plan, relatedName, runSync, secret } from './sync-fixture.js';


let running: Running | undefined;
afterEach(async () => {
  await running?.handle.stop();
  running = undefined;
});

const orders = database('orders', { size: 1, connectionSecretName: 'orders-conn' });
const source = (cluster: string, name: string, uid: string): SourceIdentity => ({ cluster: clusterName(cluster), resource: resourceId(dbKcp), namespace: 'default', name, uid });

/** A service copy as the agent would have made it for `src`, at `ref` (`namespace/name`). */
function serviceCopy(ref: string, src: SourceIdentity, status?: Readonly<Record<string, unknown>>): KubeObject {
  const [namespace = '', name = ''] = ref.split('/');
  const copy = { apiVersion: 'db.example.dev/v1', kind: 'Database', metadata: { name, namespace, labels: agentLabels('rxfleet-sync', 'databases') }, spec: { size: 9 }, ...(status === undefined ? {} : { status }) };
  return withBackReference(copy as KubeObject, src);
}

describe('syncController guards', () => {
  it('refuses to write or read a service object whose back-reference names another workspace', async () => {
    const ref = copyRef('ws-a', orders);
    const fleet = agentFleet({ 'ws-a': [orders] });
    fleet.put('service', dbService, serviceCopy(ref, source('ws-b', 'orders', 'u-b'), { phase: 'Ready' }));
    running = await runSync(fleet);
    await running.until(() => running?.outcomes.some((o) => o.key.cluster === 'ws-a' && o.result === 'terminal') ?? false);
    const refusal = running.outcomes.find((o) => o.result === 'terminal');
    const message = String((refusal?.error as { message?: string } | undefined)?.message);
    expect(message).toContain('tenant check');
    expect(message).toContain('ws-b/default/orders');
    expect(message).toContain('ws-a/default/orders');
    // The other workspace's object is untouched, and nothing of it reached ws-a: its status holds the
    // agent's refusal alone, which names nothing of ws-b.
    expect(fleet.requestsOf({ cluster: 'service', resource: dbService }).filter(isWrite)).toEqual([]);
    await running.until(() => fleet.object('ws-a', dbKcp, 'default/orders')?.status !== undefined);
    const status = fleet.object('ws-a', dbKcp, 'default/orders')?.status as { conditions?: readonly Record<string, unknown>[] } | undefined;
    expect(Object.keys(status ?? {})).toEqual(['conditions']);
    expect(status?.conditions).toEqual([expect.objectContaining({ type: syncedConditionType, status: 'False', reason: 'Refused' })]);
    expect(JSON.stringify(status)).not.toContain('ws-b');
    expect(String(status?.conditions?.[0]?.message)).toContain(`the service-side name ${ref} is taken by another object`);
  });

  it('restarts over the same state without a duplicate or a single write', async () => {
    const fleet = agentFleet({ 'ws-a': [orders], 'ws-b': [orders] });
    fleet.put('service', secrets, secret('ws-a', relatedName('ws-a', orders, 'connection'), { password: 'cA==' }));
    running = await runSync(fleet);
    const ref = copyRef('ws-a', orders);
    await running.until(() => fleet.object('service', dbService, ref) !== undefined && fleet.object('ws-a', secrets, 'default/orders-conn') !== undefined);
    const copy = fleet.object('service', dbService, ref);
    if (copy === undefined) throw new Error('copy');
    fleet.put('service', dbService, { ...copy, status: { phase: 'Ready' } });
    await running.until(() => fleet.object('ws-a', dbKcp, 'default/orders')?.status?.phase === 'Ready' && fleet.objects('service', dbService).length === 2);
    await running.handle.stop();

    const before = fleet.requests.length;
    const counts = (): number[] => [fleet.objects('service', dbService).length, fleet.objects('service', secrets).length, fleet.objects('ws-a', secrets).length, fleet.objects('ws-b', secrets).length];
    const had = counts();
    running = await runSync(fleet);
    const done = (cluster: string): boolean => running?.outcomes.some((o) => o.key.cluster === cluster && o.result === 'done') ?? false;
    await running.until(() => done('ws-a') && done('ws-b'));
    expect(fleet.requests.slice(before).filter(isWrite).map(requestLabel)).toEqual([]);
    expect(counts()).toEqual(had);
    expect(had).toEqual([2, 1, 1, 0]);
  });

  it('puts back a service copy deleted or edited on the service cluster', async () => {
    const fleet = agentFleet({ 'ws-a': [orders] });
    running = await runSync(fleet);
    const ref = copyRef('ws-a', orders);
    await running.until(() => fleet.object('service', dbService, ref) !== undefined);
    const first = fleet.object('service', dbService, ref)?.metadata.uid;
    fleet.delete('service', dbService, ref);
    await running.until(() => fleet.object('service', dbService, ref) !== undefined);
    expect(fleet.object('service', dbService, ref)?.metadata.uid).not.toBe(first);
    const back = fleet.object('service', dbService, ref);
    if (back === undefined) throw new Error('copy');
    fleet.put('service', dbService, { ...back, spec: { size: 7, connectionSecretName: 'orders-conn' } });
    await running.until(() => fleet.object('service', dbService, ref)?.spec?.size === 1);
  });

  it('releases a consumer object whose workspace refuses the related kind (no permission claim): nothing of it could be there', async () => {
    const fleet = agentFleet({ 'ws-a': [orders] });
    running = await runSync(fleet);
    const ref = copyRef('ws-a', orders);
    await running.until(() => fleet.object('service', dbService, ref) !== undefined);
    fleet.inject({ cluster: 'ws-a', verb: 'list', resource: secrets, times: Infinity, failure: statusFailure(403) });
    fleet.delete('ws-a', dbKcp, 'default/orders');
    await running.until(() => fleet.object('ws-a', dbKcp, 'default/orders') === undefined);
    expect(fleet.object('service', dbService, ref)).toBeUndefined();
    expect(fleet.requestsOf({ cluster: 'ws-a', resource: secrets }).some((r) => r.verb === 'list' && r.error?.type === 'Forbidden')).toBe(true);
  });

  it('reports an object its naming template cannot name, and syncs the others', async () => {
    const named: typeof plan = { ...plan, published: { ...plan.published, naming: { name: '{{ .Object.metadata.name }}-{{ .Object.spec.connectionSecretName }}' } } };
    const fleet = agentFleet({ 'ws-a': [orders, database('nameless', { size: 1 })] });
    running = await runSync(fleet, [named]);
    await running.until(() => fleet.object('service', dbService, 'ws-a/orders-orders-conn') !== undefined && (running?.outcomes.some((o) => o.key.name === 'nameless' && o.result === 'terminal') ?? false));
    const failed = running.outcomes.find((o) => o.key.name === 'nameless' && o.result === 'terminal');
    expect(String((failed?.error as { message?: string } | undefined)?.message)).toContain('default/nameless');
    expect(fleet.objects('service', dbService)).toHaveLength(1);
  });

  it('sweeps copies whose consumer object is gone (service copies, related copies in workspaces), and keeps those of a workspace not engaged', async () => {
    const fleet = agentFleet({ 'ws-a': [] });
    const gone = source('ws-a', 'gone', 'u-gone');
    fleet.put('service', dbService, serviceCopy('ws-a/gone', gone));
    fleet.put('service', dbService, serviceCopy('ws-z/away', source('ws-z', 'away', 'u-z')));
    fleet.put('ws-a', secrets, withBackReference({ ...secret('default', 'gone-conn', { p: 'cA==' }), metadata: { name: 'gone-conn', namespace: 'default', labels: agentLabels('rxfleet-sync', 'databases') } }, gone));
    fleet.put('ws-a', secrets, secret('default', 'consumers-own', { p: 'cA==' }));
    running = await runSync(fleet);
    await running.until(() => fleet.object('service', dbService, 'ws-a/gone') === undefined && fleet.object('ws-a', secrets, 'default/gone-conn') === undefined);
    expect(fleet.object('service', dbService, 'ws-z/away')).toBeDefined();
    expect(fleet.object('ws-a', secrets, 'default/consumers-own')).toBeDefined();
    expect(fleet.requests.filter(isWrite).map(requestLabel).sort()).toEqual(['delete service/ws-a/gone', 'delete ws-a/default/gone-conn']);
  });
});

describe('sync pieces', () => {
  it('mergePatchTo replaces a whole status: changed fields set, dropped ones nulled, maps diffed', () => {
    expect(mergePatchTo({ phase: 'Pending', ready: false, conn: { host: 'a', port: 1 } }, { phase: 'Ready', conn: { host: 'a', port: 2 } })).toEqual({ phase: 'Ready', ready: null, conn: { port: 2 } });
    expect(mergePatchTo({ list: [1, 2] }, { list: [1] })).toEqual({ list: [1] });
    expect(mergePatchTo({ a: 1 }, { a: 1 })).toBeUndefined();
  });

  it('tenantProblem accepts only the exact consumer object, uid included', () => {
    const mine = source('ws-a', 'orders', 'u-1');
    const copy = serviceCopy('ws-a/x', mine);
    expect(tenantProblem(copy, mine)).toBeUndefined();
    expect(tenantProblem(copy, { ...mine, uid: 'u-2' })).toContain('not to ws-a/default/orders (uid u-2)');
    expect(tenantProblem(copy, { ...mine, cluster: clusterName('ws-b') })).toContain('belongs to ws-a/default/orders');
    expect(tenantProblem({ metadata: { name: 'x', namespace: 'ws-a' } }, mine)).toContain('no valid back-reference');
  });

  it('keyMatches and copyUpToDate: listed keys and prefixes travel, and a dropped synced label is a change', () => {
    expect(keyMatches(['app/*', 'team'], 'app/tier')).toBe(true);
    expect(keyMatches(['app/*', 'team'], 'team2')).toBe(false);
    expect(keyMatches(undefined, 'team')).toBe(false);
    const obj = database('orders', { size: 1 }, { uid: 'u-1', labels: { 'app/tier': 'gold' } });
    const src = source('ws-a', 'orders', 'u-1');
    const desired = desiredCopy(plan, obj, { namespace: 'ws-a', name: 'x' }, src, 'ws-a');
    expect(copyUpToDate(plan, desired, desired)).toBe(true);
    const dropped = desiredCopy(plan, database('orders', { size: 1 }, { uid: 'u-1' }), { namespace: 'ws-a', name: 'x' }, src, 'ws-a');
    expect(copyUpToDate(plan, desired, dropped)).toBe(false);
    expect(copyUpToDate(plan, { ...desired, spec: { size: 2 } }, desired)).toBe(false);
    // Fields the service side adds to metadata (its own labels, status) are not the agent's business.
    expect(copyUpToDate(plan, { ...desired, metadata: { ...desired.metadata, labels: { ...desired.metadata.labels, svc: 'x' } }, status: { a: 1 } }, desired)).toBe(true);
  });
});
