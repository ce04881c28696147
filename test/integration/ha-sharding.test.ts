// Sharding clusters across replicas, as separate OS processes: three replicas of examples/ha share
// 45 namespace-clusters of the shared kube-apiserver; one is killed with SIGKILL, a new one joins,
// one leaves with SIGTERM, while every input changes once a second. Audited against the server
// (the writer of every output write, in resourceVersion order) and against the replicas' engage
// and disengage log lines. Identities and cluster names are fixed, so the rendezvous assignment
// each phase must reach is known in advance (src/runtime/ha/rendezvous.ts computes it).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClusterClient } from '../../src/client/index.js';
import { E } from '../../src/fp/index.js';
import type { ConfigMap } from '../../src/index.js';
import { configMaps } from '../../src/index.js';
import { rendezvousAssignments } from '../../src/runtime/ha/rendezvous.js';
import { sharedKubeApiserver } from '../support/context.js';
import type { LeaseObject, ServerRecord } from '../support/replica-audit.js';
import { auditWrites, engagements, lastRenew, leaseResource, overlaps, ownersNow, recordOnServer } from '../support/replica-audit.js';
import type { ReplicaBuild } from '../support/replica-build.js';
import { buildReplicaExample } from '../support/replica-build.js';
import type { ReplicaProcess } from '../support/replica-process.js';
import { startReplica, states, stopAll, tails } from '../support/replica-process.js';
import type { Churn, Tenants } from '../support/replica-tenants.js';
import { churnInputs, createTenants, putInput, putInputs } from '../support/replica-tenants.js';
import { clientFrom } from './runtime-support.js';
import { eventually } from '../support/wait.js';

const TIMING = { leaseDurationMs: 4_000, renewDeadlineMs: 3_000, retryPeriodMs: 500 };
// Beyond what the protocol allows: scheduling on a 2-core machine that also runs the control
// planes, a few HTTP round trips, the watch that brings the object, and the log line.
const SLACK_MS = 1_000;
const CLUSTERS = 45;
const WRITTEN_BY = 'rxfleet.io/written-by';
const WRITTEN_AT = 'rxfleet.io/written-at';

let build: ReplicaBuild | undefined;
let client: ClusterClient;
let tenants: Tenants;
let leaseNamespace: string;
let outputs: ServerRecord<ConfigMap> | undefined;
/** Every change of the members' Leases, from before the replicas started. */
let leases: ServerRecord<LeaseObject> | undefined;
let churn: Churn | undefined;
const replicas = new Map<string, ReplicaProcess>();

function launch(identity: string): ReplicaProcess {
  if (build === undefined) throw new Error('examples/ha was not built');
  const r = startReplica(build, {
    identity,
    mode: 'shard',
    kubeconfigPath: sharedKubeApiserver().kubeconfigPath('admin'),
    leaseNamespace,
    leaseName: 'ha-copy',
    tenantSelector: tenants.selector,
    timing: TIMING,
  });
  replicas.set(identity, r);
  return r;
}

function replica(identity: string): ReplicaProcess {
  const r = replicas.get(identity);
  if (r === undefined) throw new Error(`no replica ${identity} was started`);
  return r;
}

const live = (): ReplicaProcess[] => [...replicas.values()].filter((r) => r.exitedAt() === undefined);
const expectedOwners = (ids: readonly string[]) => rendezvousAssignments(ids.map((identity) => ({ identity, weight: 1 })), tenants.names);

/**
 * Waits until the live replicas are exactly `ids`, each in a confirmed view of them, and the
 * clusters each has engaged (by its logs) are exactly its rendezvous share, every cluster once.
 */
async function settledOn(ids: readonly string[], timeoutMs: number): Promise<Map<string, string>> {
  const expected = expectedOwners(ids);
  const members = [...ids].sort();
  return eventually(
    `replicas ${members.join(', ')} settled on their rendezvous shares`,
    () => {
      const rs = live();
      if (rs.map((r) => r.identity).sort().join() !== members.join()) return undefined;
      const settled = rs.every((r) => {
        const s = states(r).at(-1);
        // `confirmed` is checked when the log line carries it.
        return s?.type === 'sharing' && s.confirmed !== false && JSON.stringify([...(s.members ?? [])].sort()) === JSON.stringify(members);
      });
      const owners = ownersNow(rs);
      const exact = owners.size === CLUSTERS && tenants.names.every((n) => owners.get(n)?.length === 1 && owners.get(n)?.[0] === expected.get(n));
      return settled && exact ? expected : undefined;
    },
    { timeoutMs, context: () => tails(live(), 15) },
  );
}

/** Per cluster, `what` of each output the server saw change since `since` (test clock). */
function sinceOf(since: number, what: (o: ConfigMap) => string | undefined): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const e of outputs?.events() ?? []) {
    const ns = e.object.metadata.namespace ?? '';
    const v = what(e.object);
    if (e.type === 'LISTED' || e.seenAt < since || v === undefined || !tenants.names.includes(ns)) continue;
    out.set(ns, (out.get(ns) ?? new Set()).add(v));
  }
  return out;
}

/** The writers of the outputs the server saw change since `since`, per cluster. */
const writersSince = (since: number): Map<string, Set<string>> => sinceOf(since, (o) => o.metadata.annotations?.[WRITTEN_BY]);
/** The input values (`data.n`) whose outputs the server saw written since `since`, per cluster. */
const roundsSince = (since: number): Map<string, Set<string>> => sinceOf(since, (o) => o.data?.n);

/** The first time `r` logged `cluster engaged` for `cluster` at or after `since`. */
function engagedAt(r: ReplicaProcess, cluster: string, since: number): number | undefined {
  return r.lines().find((l) => l.msg === 'cluster engaged' && l.cluster === cluster && l.time >= since)?.time;
}

/** Per cluster, the changes of writer, and those where the new writer's first written-at precedes the old one's last. */
function writerChanges(): { readonly count: number; readonly outOfOrder: readonly string[] } {
  const bad: string[] = [];
  let count = 0;
  const last = new Map<string, { by: string; at: number }>();
  const ordered = (outputs?.events() ?? []).filter((e) => e.type === 'ADDED' || e.type === 'MODIFIED').sort((x, y) => (x.rv < y.rv ? -1 : x.rv > y.rv ? 1 : 0));
  for (const e of ordered) {
    const ns = e.object.metadata.namespace ?? '';
    const by = e.object.metadata.annotations?.[WRITTEN_BY] ?? '';
    const at = Number(e.object.metadata.annotations?.[WRITTEN_AT]);
    const prev = last.get(ns);
    if (prev !== undefined && prev.by !== by) {
      count++;
      if (!(at > prev.at)) bad.push(`${ns}: ${prev.by} wrote at ${prev.at}, then ${by} at ${at}`);
    }
    last.set(ns, { by, at });
  }
  return { count, outOfOrder: bad };
}

beforeAll(async () => {
  client = clientFrom('server', sharedKubeApiserver().kubeconfigYaml('admin'));
  const built = buildReplicaExample();
  leaseNamespace = await sharedKubeApiserver().createNamespace('ha-shard-lease');
  // Fixed names (this run's server is fresh): the expected assignment does not change between runs.
  tenants = await createTenants(client, CLUSTERS, 'ha-shard');
  await putInputs(client, tenants.names, 'settings', 0);
  outputs = recordOnServer<ConfigMap>(client, configMaps, { labelSelector: 'rxfleet.io/ha-role=output' });
  leases = recordOnServer(client, leaseResource, { namespace: leaseNamespace });
  await Promise.all([outputs.ready, leases.ready]);
  build = await built;
  for (const id of ['shard-a', 'shard-b', 'shard-c']) launch(id);
  churn = churnInputs(client, tenants.names, 'settings', 1_000);
});

afterAll(async () => {
  await churn?.stop().catch(() => 0);
  await stopAll([...replicas.values()]);
  outputs?.stop();
  leases?.stop();
  build?.remove();
});

describe('sharding across processes (examples/ha, 45 namespace-clusters, lease 4 s, renew 3 s, retry 0.5 s)', () => {
  it('reconciles every cluster in exactly one replica: its rendezvous owner', async () => {
    const owners = await settledOn(['shard-a', 'shard-b', 'shard-c'], 30_000);
    // Two rounds of input changes after settling (a round a second): each cluster's writes come
    // from its owner only; a replica that wrongly took a cluster had the whole second round to show it.
    const since = Date.now();
    await eventually('two rounds of writes in every cluster since settling', () => tenants.names.every((n) => (roundsSince(since).get(n)?.size ?? 0) >= 2), { timeoutMs: 15_000, context: () => tails(live(), 15) });
    const writers = writersSince(since);
    for (const n of tenants.names) expect([n, ...(writers.get(n) ?? [])]).toEqual([n, owners.get(n)]);
    const shares = [...owners.values()].reduce((m, id) => m.set(id, (m.get(id) ?? 0) + 1), new Map<string, number>());
    expect(shares.size).toBe(3);
  });

  it('after kill -9 of a replica, its clusters are picked up within the lease duration, objects created meanwhile included', async () => {
    const victim = replica('shard-c');
    const before = expectedOwners(['shard-a', 'shard-b', 'shard-c']);
    const orphaned = tenants.names.filter((n) => before.get(n) === 'shard-c');
    const killedAt = victim.signal('SIGKILL');
    expect(await victim.exited).toBe('SIGKILL');
    // Objects that appear while nobody owns their cluster: the new owner must reconcile what
    // already exists when it starts the cluster, not only what changes afterwards.
    for (const n of orphaned) await putInput(client, n, 'orphan', 1);

    // Every orphan engaged by a survivor within the bound of the kill, or the wait fails: the dead
    // member's last renew was at most one retry period before the kill; peers see its Lease expire
    // leaseDuration after they saw it change (up to one retry period after the renew) and notice on
    // their next poll (one more); then one acknowledgement round (a renew and a poll) confirms the new view.
    const bound = TIMING.leaseDurationMs + 3 * TIMING.retryPeriodMs + SLACK_MS;
    const survivors = () => [replica('shard-a'), replica('shard-b')];
    const engagedTimes = await eventually('every orphaned cluster engaged by a survivor', () => {
      const times = orphaned.map((n) => Math.min(...survivors().map((r) => engagedAt(r, n, killedAt) ?? Number.POSITIVE_INFINITY)));
      return times.every(Number.isFinite) && times;
    }, { timeoutMs: killedAt + bound - Date.now(), context: () => tails(live(), 15) });
    const after = await settledOn(['shard-a', 'shard-b'], 15_000);
    const pickedUp = engagedTimes.map((t) => t - killedAt);
    const slowest = Math.max(...pickedUp);
    // And never before its Lease could have expired (by the Lease's own stamps: a lease duration
    // after its last renew): that would be two owners.
    expect(Math.min(...engagedTimes)).toBeGreaterThanOrEqual(lastRenew(leases?.events() ?? [], 'shard-c') + TIMING.leaseDurationMs);
    // Only the dead member's clusters moved.
    for (const n of tenants.names) if (before.get(n) !== 'shard-c') expect([n, after.get(n)]).toEqual([n, before.get(n)]);

    const orphanWriter = async (n: string) => {
      const got = await client.get<ConfigMap>(configMaps, 'orphan-out', { namespace: n });
      return E.isRight(got) ? got.right.metadata.annotations?.[WRITTEN_BY] : undefined;
    };
    await eventually('the objects created while nobody owned their cluster, copied by the new owners', async () => ((await Promise.all(orphaned.map(orphanWriter))).every((w, i) => w === after.get(orphaned[i] ?? '')) ? true : undefined), { timeoutMs: 10_000, context: () => tails(live(), 15) });
    console.info(`kill -9: ${orphaned.length} clusters picked up in ${Math.min(...pickedUp)}..${slowest} ms`);
  });

  it('a new replica takes about a third of the clusters, and only clusters move to it', async () => {
    const before = expectedOwners(['shard-a', 'shard-b']);
    const joinedAt = Date.now();
    launch('shard-d');
    const after = await settledOn(['shard-a', 'shard-b', 'shard-d'], 30_000);
    const moved = tenants.names.filter((n) => after.get(n) !== before.get(n));
    expect(moved.every((n) => after.get(n) === 'shard-d')).toBe(true);
    expect(moved.length / CLUSTERS).toBeGreaterThanOrEqual(0.2);
    expect(moved.length / CLUSTERS).toBeLessThanOrEqual(0.5);
    // The newcomer reconciles what it got.
    await eventually(
      'the newcomer writing in each of its clusters',
      () => {
        const w = writersSince(joinedAt);
        return moved.every((n) => w.get(n)?.has('shard-d') === true) ? true : undefined;
      },
      { timeoutMs: 10_000, context: () => tails(live(), 15) },
    );
    console.info(`join: ${moved.length}/${CLUSTERS} clusters moved, all to the newcomer`);
  });

  it('a replica stopped with SIGTERM hands its clusters over well before its Lease would expire', async () => {
    const leaving = replica('shard-a');
    const before = expectedOwners(['shard-a', 'shard-b', 'shard-d']);
    const handed = tenants.names.filter((n) => before.get(n) === 'shard-a');
    const termAt = leaving.signal('SIGTERM');
    // It stops its clusters and deletes its membership Lease; peers see that on their next poll,
    // then one acknowledgement round: about three retry periods, well under a lease duration. Every
    // handed cluster is engaged by a survivor within that of the signal, or the wait fails.
    const bound = Math.min(3 * TIMING.retryPeriodMs + SLACK_MS, TIMING.leaseDurationMs - 1);
    const survivors = () => [replica('shard-b'), replica('shard-d')];
    const engagedTimes = await eventually('every handed cluster engaged by a survivor', () => {
      const times = handed.map((n) => Math.min(...survivors().map((r) => engagedAt(r, n, termAt) ?? Number.POSITIVE_INFINITY)));
      return times.every(Number.isFinite) && times;
    }, { timeoutMs: termAt + bound - Date.now(), context: () => tails(live(), 15) });
    expect(await leaving.exited).toBe(0);
    await settledOn(['shard-b', 'shard-d'], 15_000);
    const slowest = Math.max(...engagedTimes) - termAt;
    console.info(`SIGTERM: ${handed.length} clusters handed over in ≤ ${slowest} ms`);
  });

  it('never had two replicas reconcile the same cluster at once (server writes and engagement logs)', async () => {
    const last = (await churn?.stop()) ?? 0;
    expect(last).toBeGreaterThan(0);
    // The outputs of the last inputs are the last writes: once the record holds them, it holds all.
    await eventually('the outputs of the last inputs', () => tenants.names.every((n) => roundsSince(0).get(n)?.has(String(last)) === true), { timeoutMs: 15_000, context: () => tails(live(), 15) });
    expect(outputs?.errors()).toEqual([]);
    const all = [...replicas.values()].flatMap((r) => engagements(r));
    expect(new Set(all.map((e) => e.cluster)).size).toBe(CLUSTERS);
    // By the logs (one machine, one clock): no two replicas had a cluster engaged at once.
    expect(overlaps(all)).toEqual([]);
    // On the server: every write sent inside its writer's engagement, in engagement order.
    const writes = (outputs?.events() ?? []).filter((e) => e.type !== 'LISTED' && tenants.names.includes(e.object.metadata.namespace ?? ''));
    expect(writes.length).toBeGreaterThan(CLUSTERS);
    const stamp = {
      clusterOf: (o: ConfigMap) => o.metadata.namespace ?? '',
      writerOf: (o: ConfigMap) => o.metadata.annotations?.[WRITTEN_BY],
      writtenAtOf: (o: ConfigMap) => Number(o.metadata.annotations?.[WRITTEN_AT]),
    };
    expect(auditWrites(writes, all, stamp)).toEqual([]);
    // And at every change of writer, the new owner sent its first write after the old one's last.
    const changes = writerChanges();
    expect(changes.outOfOrder).toEqual([]);
    // At least the moves of the kill, the join and the leave (start-up adds its own).
    const phases = [['shard-a', 'shard-b', 'shard-c'], ['shard-a', 'shard-b'], ['shard-a', 'shard-b', 'shard-d'], ['shard-b', 'shard-d']].map(expectedOwners);
    const moves = phases.slice(1).reduce((sum, now, i) => sum + tenants.names.filter((n) => now.get(n) !== phases[i]?.get(n)).length, 0);
    expect(changes.count).toBeGreaterThanOrEqual(moves);
    console.info(`audit: ${writes.length} writes, ${changes.count} changes of writer, ${all.length} engagement intervals: no overlap, no write outside its engagement`);
  });
});
