// An object that leaves the published filter's label selector is released, not stranded: its copies
// are deleted (or kept, by `filter.release: keep`) and the agent's finalizer goes, so a later delete
// completes. Also the selector syntax the filter takes, checked when the config is read.
import { afterEach, describe, expect, it } from 'vitest';
import { secrets } from '../../src/index.js';
import { parseLabelSelector } from '../../packages/sync-agent/src/label-selector.js';
import { syncConfigProblems } from '../../packages/sync-agent/src/config.js';
import type { PublishedPlan } from '../../packages/sync-agent/src/plan.js';
import type { InMemoryFleet } from '../../src/testing/index.js';
import type { Db, Running } from './sync-fixture.js';
import { FINALIZER, agentFleet, copyRef, database, dbKcp, dbService, plan, relatedName, runSync, secret } from './sync-fixture.js';

let running: Running | undefined;
afterEach(async () => {
  await running?.handle.stop();
  running = undefined;
});

const filtered = (release?: 'delete' | 'keep'): PublishedPlan => ({ ...plan, published: { ...plan.published, filter: { labelSelector: 'sync=yes', ...(release === undefined ? {} : { release }) } } });
/** Whether ws-a's default/orders carries the agent's finalizer. */
const held = (fleet: InMemoryFleet): boolean => (fleet.object('ws-a', dbKcp, 'default/orders')?.metadata.finalizers ?? []).includes(FINALIZER);
const labelled = database('orders', { size: 1, connectionSecretName: 'orders-conn' }, { labels: { sync: 'yes' } });

describe('leaving the filter', () => {
  it('deletes the copies and removes the finalizer of an object that loses its label; the object lives on, and a delete then completes', async () => {
    const fleet = agentFleet({ 'ws-a': [labelled, database('other', { size: 1 })] });
    fleet.put('service', secrets, secret('ws-a', relatedName('ws-a', labelled, 'connection'), { password: 'cA==' }));
    running = await runSync(fleet, [filtered()]);
    const ref = copyRef('ws-a', labelled);
    await running.until(() => fleet.object('service', dbService, ref) !== undefined && fleet.object('ws-a', secrets, 'default/orders-conn') !== undefined);
    // The object that never matched was never taken.
    expect(fleet.object('ws-a', dbKcp, 'default/other')?.metadata.finalizers).toBeUndefined();
    expect(fleet.objects('service', dbService)).toHaveLength(1);

    const taken = fleet.object<Db>('ws-a', dbKcp, 'default/orders');
    if (taken === undefined) throw new Error('orders');
    fleet.put('ws-a', dbKcp, { ...taken, metadata: { ...taken.metadata, labels: { sync: 'no' } } });
    await running.until(() => !held(fleet));
    expect(fleet.object('service', dbService, ref)).toBeUndefined();
    expect(fleet.object('ws-a', secrets, 'default/orders-conn')).toBeUndefined();
    expect(fleet.object('ws-a', dbKcp, 'default/orders')).toBeDefined();
    fleet.delete('ws-a', dbKcp, 'default/orders');
    await running.until(() => fleet.object('ws-a', dbKcp, 'default/orders') === undefined);
  });

  it('keeps the copies with `release: keep`, and still removes the finalizer', async () => {
    const fleet = agentFleet({ 'ws-a': [labelled] });
    running = await runSync(fleet, [filtered('keep')]);
    const ref = copyRef('ws-a', labelled);
    await running.until(() => held(fleet) && fleet.object('service', dbService, ref) !== undefined);
    const taken = fleet.object<Db>('ws-a', dbKcp, 'default/orders');
    if (taken === undefined) throw new Error('orders');
    fleet.put('ws-a', dbKcp, { ...taken, metadata: { ...taken.metadata, labels: {} } });
    await running.until(() => !held(fleet));
    expect(fleet.object('service', dbService, ref)).toBeDefined();
  });

  it('releases at start an object that lost its label while the agent was down', async () => {
    const fleet = agentFleet({ 'ws-a': [labelled] });
    running = await runSync(fleet, [filtered()]);
    const ref = copyRef('ws-a', labelled);
    await running.until(() => fleet.object('service', dbService, ref) !== undefined);
    await running.handle.stop();
    const taken = fleet.object<Db>('ws-a', dbKcp, 'default/orders');
    if (taken === undefined) throw new Error('orders');
    fleet.put('ws-a', dbKcp, { ...taken, metadata: { ...taken.metadata, labels: {} } });
    running = await runSync(fleet, [filtered()]);
    await running.until(() => !held(fleet) && fleet.object('service', dbService, ref) === undefined);
  });
});

describe('parseLabelSelector', () => {
  const matches = (s: string, labels: Readonly<Record<string, string>>): boolean => {
    const r = parseLabelSelector(s);
    if (r.type === 'invalid') throw new Error(r.message);
    return r.matches(labels);
  };

  it('takes kubectl -l syntax: equality, inequality, sets, existence, numbers', () => {
    expect(matches('tier=prod', { tier: 'prod' })).toBe(true);
    expect(matches('tier==prod,env', { tier: 'prod' })).toBe(false);
    expect(matches('tier!=prod', {})).toBe(true);
    expect(matches('tier in (gold, silver),!legacy', { tier: 'silver' })).toBe(true);
    expect(matches('tier in (gold, silver),!legacy', { tier: 'silver', legacy: '' })).toBe(false);
    expect(matches('tier notin (gold)', {})).toBe(true);
    expect(matches('app.kubernetes.io/name=db', { 'app.kubernetes.io/name': 'db' })).toBe(true);
    expect(matches('replicas>2', { replicas: '3' })).toBe(true);
    expect(matches('replicas<2', { replicas: 'x' })).toBe(false);
  });

  it('refuses what the API server would refuse, and the config reports it with its path', () => {
    for (const bad of ['tier in (gold', 'tier=a b', ',tier', 'tier>x', '-x']) expect(parseLabelSelector(bad).type, bad).toBe('invalid');
    const problems = syncConfigProblems({ apiExport: 'x.dev', published: [{ name: 'p', crd: { group: 'x.dev', kind: 'X' }, filter: { labelSelector: 'tier in (gold', release: 'later' } }] });
    expect(problems).toEqual([
      'published[0].filter.labelSelector: "tier in (gold" is not a label selector: it has unbalanced parentheses',
      'published[0].filter.release: "later" is not a release: expected "delete" (the default) or "keep"',
    ]);
  });
});
