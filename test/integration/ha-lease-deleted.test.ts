// A Lease deleted under two replicas of examples/ha (separate OS processes on the shared
// kube-apiserver, controller-runtime's default timings 15 s / 10 s / 2 s), right after its
// holder's renew. Leader election: the standby, which saw the Lease, treats it as the leader's for
// a lease duration and never leads; the leader's next renew finds it gone and fences at once (the
// API server would have re-created it for that PUT). Sharding, by the same rule: the member whose
// Lease was deleted fences at its next renew, and its peer never sees it leave. Audited on the
// server: no replica's write lands after another replica's first write (leader election), no two
// replicas had a cluster at once, and every write lies inside its writer's engagement.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClusterClient } from '../../src/client/index.js';
import { E } from '../../src/fp/index.js';
import type { ConfigMap } from '../../src/index.js';
import { configMaps } from '../../src/index.js';
import type { LeaseState } from '../../src/runtime/ha/lease-keeper.js';
import { leaseKeeper } from '../../src/runtime/ha/lease-keeper.js';
import { leaseTiming } from '../../src/runtime/ha/lease-timing.js';
import { memberLeaseName } from '../../src/runtime/ha/shard-view.js';
import { sharedKubeApiserver } from '../support/context.js';
import type { LeaseObject, ServerEvent } from '../support/replica-audit.js';
import { auditWrites, engagements, leaseResource, overlaps, recordOnServer } from '../support/replica-audit.js';
import type { ReplicaBuild } from '../support/replica-build.js';
import { buildReplicaExample } from '../support/replica-build.js';
import type { LogLine, ReplicaProcess } from '../support/replica-process.js';
import { startReplica, stateOf, states, stopAll, tails, waitForLog } from '../support/replica-process.js';
import { churnInputs, createTenants, putInputs, randomGroup } from '../support/replica-tenants.js';
import { eventually } from '../support/wait.js';
import { clientFrom } from './runtime-support.js';

const RETRY_MS = 2_000; // the default retry period: the leader renews this often
const TRIALS = 4;
const LEASE = 'ha-copy';
const stamp = {
  clusterOf: (o: ConfigMap) => o.metadata.namespace ?? '',
  writerOf: (o: ConfigMap) => o.metadata.annotations?.[WRITTEN_BY],
  writtenAtOf: (o: ConfigMap) => Number(o.metadata.annotations?.[WRITTEN_AT]),
};
const WRITTEN_BY = 'rxfleet.io/written-by';
const WRITTEN_AT = 'rxfleet.io/written-at';

let build: ReplicaBuild | undefined;
let client: ClusterClient;
const started: ReplicaProcess[] = [];
const stops: (() => void)[] = [];

beforeAll(async () => {
  client = clientFrom('server', sharedKubeApiserver().kubeconfigYaml('admin'));
  build = await buildReplicaExample();
});
afterAll(async () => {
  await stopAll(started);
  for (const stop of stops) stop();
  build?.remove();
});

const holderOf = (l: LeaseObject | undefined): string => l?.spec?.holderIdentity ?? '';
const isState = (type: string) => (l: LogLine) => stateOf(l)?.type === type;

/**
 * Deletes Lease `name` each time `arm()` is called, at the first renew by `holder` seen after it:
 * a watch event, answered by a DELETE carrying that renew's resourceVersion as precondition, so
 * what is deleted is exactly the Lease as renewed. Resolves with the deletion's time.
 */
function deleterAfterRenew(namespace: string): { arm(name: string, holder: string): Promise<number>; stop(): void } {
  let armed: { name: string; holder: string; resolve: (at: number) => void; reject: (e: Error) => void } | undefined;
  const sub = client.watch(leaseResource, { namespace }).subscribe((text) => {
    const line = JSON.parse(text) as { type?: string; object?: LeaseObject };
    const a = armed;
    const lease = line.object;
    if (a === undefined || line.type !== 'MODIFIED' || lease?.metadata.name !== a.name || holderOf(lease) !== a.holder) return;
    armed = undefined;
    void client.delete(leaseResource, a.name, { namespace, preconditions: { resourceVersion: lease.metadata.resourceVersion ?? '' } }).then((r) => {
      if (E.isRight(r)) a.resolve(Date.now());
      else a.reject(new Error(`deleting the Lease right after a renew: ${r.left.message}`));
    });
  });
  return {
    arm: (name, holder) =>
      new Promise<number>((resolve, reject) => {
        armed = { name, holder, resolve, reject };
      }),
    stop: () => {
      sub.unsubscribe();
    },
  };
}

/** Two replicas of examples/ha over three tenant clusters, with records of the outputs and Leases. */
async function replicaPair(mode: 'leader' | 'shard', group: string) {
  const built = build;
  if (built === undefined) throw new Error('examples/ha was not built');
  const leaseNamespace = await sharedKubeApiserver().createNamespace(`ha-${group}`);
  const tenants = await createTenants(client, 3, randomGroup(group));
  await putInputs(client, tenants.names, 'settings', 0);
  const outputs = recordOnServer<ConfigMap>(client, configMaps, { labelSelector: 'rxfleet.io/ha-role=output' });
  const leases = recordOnServer(client, leaseResource, { namespace: leaseNamespace });
  const deleter = deleterAfterRenew(leaseNamespace);
  stops.push(() => { outputs.stop(); }, () => { leases.stop(); }, () => { deleter.stop(); });
  await Promise.all([outputs.ready, leases.ready]);
  const suffix = randomBytes(3).toString('hex');
  const [a, b] = ['a', 'b'].map((n) =>
    startReplica(built, { identity: `${n}-${suffix}`, mode, kubeconfigPath: sharedKubeApiserver().kubeconfigPath('admin'), leaseNamespace, leaseName: LEASE, tenantSelector: tenants.selector }),
  ) as [ReplicaProcess, ReplicaProcess];
  started.push(a, b);
  const mine = (w: ServerEvent<ConfigMap>): boolean => w.type !== 'LISTED' && tenants.names.includes(w.object.metadata.namespace ?? '');
  const writesBy = (r: ReplicaProcess) => outputs.events().filter((w) => mine(w) && w.object.metadata.annotations?.[WRITTEN_BY] === r.identity);
  const churn = churnInputs(client, tenants.names, 'settings', 100);
  // After the churn: everything it caused has reached the server once the last input's output shows it.
  const settled = async (): Promise<void> => {
    expect(await churn.stop()).toBeGreaterThan(0);
    const last = tenants.names.at(-1) ?? '';
    await eventually('the last round of inputs copied', async () => {
      const [got, input] = await Promise.all([client.get<ConfigMap>(configMaps, 'settings-out', { namespace: last }), client.get<ConfigMap>(configMaps, 'settings', { namespace: last })]);
      return E.isRight(got) && E.isRight(input) && got.right.data?.n === input.right.data?.n;
    }, { timeoutMs: 20_000, context: () => tails([a, b]) });
    expect(outputs.errors()).toEqual([]);
    expect(leases.errors()).toEqual([]);
  };
  return { a, b, outputs, leases, deleter, mine, writesBy, settled };
}

/** Writes of a replica that landed after another replica's first write (two leaders at once). */
function lateWrites(writes: readonly ServerEvent<ConfigMap>[]): string[] {
  const byRv = [...writes].sort((x, y) => (x.rv < y.rv ? -1 : x.rv > y.rv ? 1 : 0));
  const first = new Map<string, bigint>();
  for (const w of byRv) {
    const by = w.object.metadata.annotations?.[WRITTEN_BY] ?? '';
    if (!first.has(by)) first.set(by, w.rv);
  }
  return byRv.flatMap((w) => {
    const by = w.object.metadata.annotations?.[WRITTEN_BY] ?? '';
    const mine = first.get(by) ?? 0n;
    const later = [...first].filter(([other, rv]) => other !== by && rv > mine && w.rv > rv);
    return later.map(([other, rv]) => `${by} wrote ${w.object.metadata.namespace ?? ''} at rv ${w.rv}, after ${other}'s first write (rv ${rv})`);
  });
}

describe('the leader Lease deleted right after a renew (two processes, lease 15 s, renew 10 s, retry 2 s)', () => {
  it(`never gives two leaders: 0 overlapping writes over ${TRIALS} trials, the old leader fenced at its next renew`, async () => {
    const { a, b, outputs, leases, deleter, mine, writesBy, settled } = await replicaPair('leader', 'deleted');
    const both = [a, b];
    const leader = await eventually(
      'one leader, by the Lease on the server and its log',
      () => [a, b].find((r) => holderOf(leases.events().at(-1)?.object) === r.identity && states(r).at(-1)?.type === 'leading'),
      { timeoutMs: 30_000, context: () => tails(both) },
    );
    const standby = leader === a ? b : a;
    // The premise: the standby has seen the leader's Lease. One whose process started late and never
    // saw it may rightly take a deleted Lease at once (as CI's load once made happen).
    await eventually("the standby has seen the leader's Lease", () => states(standby).some((s) => s.type === 'standby' && s.holder === leader.identity), { timeoutMs: 20_000, context: () => tails(both) });
    const fencedAfter: number[] = [];
    for (let trial = 0; trial < TRIALS; trial++) {
      const from = leader.lines().length;
      const written = writesBy(leader).length;
      await eventually(`trial ${trial}: the leader writing`, () => writesBy(leader).length >= written + 3, { timeoutMs: 20_000, context: () => tails(both) });
      const deletedAt = await deleter.arm(LEASE, leader.identity);
      // Its next renew (at most a retry period later) finds the Lease gone: fenced at once...
      const fenced = await waitForLog(leader, `trial ${trial}: fenced after the deletion`, (l) => isState('fenced')(l) && String(stateOf(l)?.reason).includes('the Lease was deleted'), RETRY_MS + 3_000, from);
      fencedAfter.push(fenced.time - deletedAt);
      // ...then, its own record being the last one anyone saw, it leads again; the standby waits.
      await waitForLog(leader, `trial ${trial}: leading again`, isState('leading'), 10_000, from);
      expect(states(standby).filter((s) => s.type === 'leading')).toEqual([]);
    }
    await settled();
    const writes = outputs.events().filter(mine);
    expect(writes.length).toBeGreaterThan(TRIALS * 3);
    expect(lateWrites(writes)).toEqual([]);
    expect(writesBy(standby)).toEqual([]);
    const intervals = both.flatMap((r) => engagements(r));
    expect(overlaps(intervals)).toEqual([]);
    expect(auditWrites(writes, intervals, stamp)).toEqual([]);
    // The Lease never named the standby.
    expect(leases.events().filter((e) => holderOf(e.object) === standby.identity)).toEqual([]);
    console.info(`lease deleted after a renew, ${TRIALS} trials: ${writes.length} writes, 0 late; leader fenced ${fencedAfter.join(', ')} ms after each deletion`);
  });
});

describe('a sharding member Lease deleted right after a renew (two processes, same timings)', () => {
  it(`fences that member at its next renew, and its peer never sees it leave: ${TRIALS - 1} trials, no overlap`, async () => {
    const { a, b, outputs, deleter, mine, settled } = await replicaPair('shard', 'deleted-member');
    const both = [a, b];
    const pair = JSON.stringify([a.identity, b.identity].sort());
    const inView = (r: ReplicaProcess) => states(r).some((s) => s.type === 'sharing' && s.confirmed === true && JSON.stringify([...(s.members ?? [])].sort()) === pair);
    await eventually('both members in a confirmed view of both', () => both.every(inView), { timeoutMs: 30_000, context: () => tails(both) });
    const peerFrom = states(b).length;
    const fencedAfter: number[] = [];
    for (let trial = 0; trial < TRIALS - 1; trial++) {
      const from = a.lines().length;
      const deletedAt = await deleter.arm(memberLeaseName(LEASE, a.identity), a.identity);
      const fenced = await waitForLog(a, `trial ${trial}: fenced after the deletion`, (l) => isState('fenced')(l) && String(stateOf(l)?.reason).includes('the Lease was deleted'), RETRY_MS + 3_000, from);
      fencedAfter.push(fenced.time - deletedAt);
      await waitForLog(a, `trial ${trial}: sharing again`, (l) => stateOf(l)?.type === 'sharing' && stateOf(l)?.confirmed === true, 15_000, from);
    }
    await settled();
    // The peer's view never lost the member whose Lease was deleted: it was its record's until it changed again.
    expect(states(b).slice(peerFrom).filter((s) => s.type !== 'sharing' || (s.members ?? []).length !== 2)).toEqual([]);
    const writes = outputs.events().filter(mine);
    const intervals = both.flatMap((r) => engagements(r));
    expect(overlaps(intervals)).toEqual([]);
    expect(auditWrites(writes, intervals, stamp)).toEqual([]);
    console.info(`member Lease deleted after a renew, ${TRIALS - 1} trials: ${writes.length} writes, no overlap; member fenced ${fencedAfter.join(', ')} ms after each deletion`);
  });
});

describe('the keeper on a real server, its Lease deleted', () => {
  it('says lost at its next renew, on the 409 alone, then holds the Lease again through a read, under a new epoch', async () => {
    const namespace = await sharedKubeApiserver().createNamespace('ha-keeper');
    const timing = leaseTiming({ leaseDurationMs: 4_000, renewDeadlineMs: 3_000, retryPeriodMs: 500 });
    const keeper = leaseKeeper({ client, namespace, name: LEASE, identity: 'keeper-a', timing, mode: 'leader' });
    const seen: LeaseState[] = [];
    const sub = keeper.states.subscribe((st) => seen.push(st));
    stops.push(() => { sub.unsubscribe(); });
    await eventually('the Lease held', () => keeper.valid(), { timeoutMs: 10_000 });
    const deleted = await client.delete(leaseResource, LEASE, { namespace });
    expect(E.isRight(deleted)).toBe(true);
    const lost = await eventually('lost after the deletion', () => seen.find((st) => st.type === 'lost'), { timeoutMs: 5_000 });
    await eventually('held again', () => seen.find((st) => st.type === 'held' && st.epoch === 2), { timeoutMs: 5_000 });
    // The API server answers a renew of a deleted Lease 409 (the body names the old uid): that alone stops it.
    expect(lost).toMatchObject({ reason: expect.stringContaining('the Lease was deleted or taken (a renew answered 409 Conflict)') as string });
  });
});

