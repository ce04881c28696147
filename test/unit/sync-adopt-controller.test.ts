// The adoption controller on an in-memory fleet shaped like the agent's: an adoption that stopped
// between creating the consumer object and writing the back-reference is finished (no second
// create), and a service object that claims another owner, or would land on a consumer object that
// is not its own, is refused with nothing written on either side.
import { pino } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { RunHandle } from '../../src/index.js';
import type { Outcome } from '../../src/operators/index.js';
import { clusterName, run } from '../../src/index.js';
import { readBackReference, sourceIdentity, withBackReference } from '../../src/sinks/index.js';
import { isWrite, requestLabel } from '../../src/testing/index.js';
import type { InMemoryFleet } from '../../src/testing/index.js';
import { adoptControllers } from '../../packages/sync-agent/src/adopt.js';
import { adoptedFromAnnotation, adoptedUidAnnotation } from '../../packages/sync-agent/src/adopt-place.js';
import type { PublishedPlan } from '../../packages/sync-agent/src/plan.js';
import { agentFleet, agentProvider, database, dbKcp, dbService, plan } from './sync-fixture.js';

let handle: RunHandle | undefined;
afterEach(async () => {
  await handle?.stop();
  handle = undefined;
});

const adopting: PublishedPlan = { ...plan, published: { ...plan.published, related: [], adopt: [{ from: { namespace: 'legacy' }, into: { workspace: 'ws-a' } }] } };
const legacy = (name: string, uid: string): ReturnType<typeof database> => database(name, { size: 2 }, { namespace: 'legacy', uid });
// The refusals each run decided (terminal outcomes), by service object name.
let refused: string[] = [];
const start = async (fleet: InMemoryFleet): Promise<void> => {
  refused = [];
  const onOutcome = (o: Outcome): void => {
    if (o.error instanceof Error && o.error.message.startsWith('adopt refused')) refused.push(o.key.name);
  };
  handle = await run(adoptControllers(adopting, { provider: agentProvider(fleet), waitMs: 20 }), { logger: pino({ level: 'silent' }), signals: false, http: false, onOutcome });
};
// Bounded below the test's own timeout, so a wait that never holds fails as itself.
const until = async (check: () => boolean): Promise<void> => {
  await vi.waitFor(
    () => {
      if (!check()) throw new Error('not yet');
    },
    { timeout: 4_000, interval: 5 },
  );
};

describe('adoptControllers', () => {
  it('finishes an adoption that created the consumer object but stopped before the back-reference: no second create', async () => {
    const fleet = agentFleet({ 'ws-a': [] });
    fleet.put('service', dbService, legacy('orders', 's-1'));
    const uid = fleet.object('service', dbService, 'legacy/orders')?.metadata.uid ?? '';
    fleet.put('ws-a', dbKcp, database('orders', { size: 2 }, { namespace: 'default', annotations: { [adoptedFromAnnotation]: 'legacy/orders', [adoptedUidAnnotation]: uid } }));
    const made = fleet.object('ws-a', dbKcp, 'default/orders') ?? { metadata: {} };
    await start(fleet);
    await until(() => readBackReference(fleet.object('service', dbService, 'legacy/orders') ?? { metadata: {} }) !== undefined);
    expect(readBackReference(fleet.object('service', dbService, 'legacy/orders') ?? { metadata: {} })).toEqual(sourceIdentity(clusterName('ws-a'), dbKcp, made));
    expect(fleet.requests.filter(isWrite).map(requestLabel)).toEqual(['apply service/legacy/orders']);
    expect(refused).toEqual([]);
  });

  it('refuses, writing nothing, a service object that claims another owner and one that would land on a consumer object of its own', async () => {
    const theirs = sourceIdentity(clusterName('ws-b'), dbKcp, database('x', { size: 1 }, { namespace: 'default', uid: 'u-b' }));
    const fleet = agentFleet({ 'ws-a': [database('clash', { size: 1 }, { namespace: 'default', uid: 'u-c' })] });
    fleet.put('service', dbService, withBackReference(legacy('copy', 's-2'), theirs));
    fleet.put('service', dbService, legacy('clash', 's-3'));
    fleet.put('service', dbService, legacy('fresh', 's-4'));
    await start(fleet);
    // Both refusals decided, and a third object adopted beside them.
    await until(() => refused.includes('copy') && refused.includes('clash') && readBackReference(fleet.object('service', dbService, 'legacy/fresh') ?? { metadata: {} }) !== undefined);
    expect(fleet.object('ws-a', dbKcp, 'default/copy')).toBeUndefined();
    expect(fleet.object('ws-a', dbKcp, 'default/clash')?.metadata.annotations).toBeUndefined();
    expect(readBackReference(fleet.object('service', dbService, 'legacy/copy') ?? { metadata: {} })).toEqual(theirs);
    expect(fleet.object('service', dbService, 'legacy/clash')?.metadata.annotations).toBeUndefined();
    expect(fleet.requests.filter(isWrite).map(requestLabel).sort()).toEqual(['apply service/legacy/fresh', 'create ws-a/default/fresh']);
  });
});
