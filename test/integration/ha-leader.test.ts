// Leader election across OS processes, as a Deployment runs it: two replicas of examples/ha on the
// shared kube-apiserver, killed, terminated and frozen with real signals. Short timings (lease 4 s,
// renew deadline 3 s, retry 0.5 s) keep it quick; the bounds asserted are derived from them.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClusterClient } from '../../src/client/index.js';
import { E } from '../../src/fp/index.js';
import type { ConfigMap } from '../../src/index.js';
import { configMaps } from '../../src/index.js';
import { sharedKubeApiserver } from '../support/context.js';
import type { LeaseObject, ServerRecord } from '../support/replica-audit.js';
import { lastRenew, leaseResource, linesSince, recordOnServer } from '../support/replica-audit.js';
import type { ReplicaBuild } from '../support/replica-build.js';
import { buildReplicaExample } from '../support/replica-build.js';
import type { LogLine, ReplicaProcess } from '../support/replica-process.js';
import { startReplica, stateOf, states, stopAll, tails, waitForLog } from '../support/replica-process.js';
import type { Tenants } from '../support/replica-tenants.js';
import { churnInputs, createTenants, putInputs, randomGroup } from '../support/replica-tenants.js';
import { clientFrom } from './runtime-support.js';
import { eventually } from '../support/wait.js';

const TIMING = { leaseDurationMs: 4_000, renewDeadlineMs: 3_000, retryPeriodMs: 500 };
// Beyond what the protocol allows: process scheduling on a 2-core machine that also runs the
// control planes, an HTTP round trip or two, and writing the log line.
const SLACK_MS = 1_000;
const WRITTEN_BY = 'rxfleet.io/written-by';

let build: ReplicaBuild | undefined;
let client: ClusterClient;
const started: ReplicaProcess[] = [];
const records: { stop(): void }[] = [];

beforeAll(async () => {
  client = clientFrom('server', sharedKubeApiserver().kubeconfigYaml('admin'));
  build = await buildReplicaExample();
});
afterAll(async () => {
  await stopAll(started);
  for (const r of records) r.stop();
  build?.remove();
});

interface Pair {
  readonly a: ReplicaProcess;
  readonly b: ReplicaProcess;
  readonly tenants: Tenants;
  /** Every change of the Lease namespace's Leases, from before the replicas started. */
  readonly leases: ServerRecord<LeaseObject>;
}

const isState = (type: string) => (l: LogLine) => stateOf(l)?.type === type;
const holderOf = (l: LeaseObject | undefined): string => l?.spec?.holderIdentity ?? '';

function keep<T extends { stop(): void }>(r: T): T {
  records.push(r);
  return r;
}

/** Two replicas in leader mode over two tenant namespaces with one input each, and a Lease record. */
async function pair(reconcileDelayMs = 0): Promise<Pair> {
  const built = build;
  if (built === undefined) throw new Error('examples/ha was not built');
  const leaseNamespace = await sharedKubeApiserver().createNamespace('ha-lease');
  const tenants = await createTenants(client, 2, randomGroup('lead'));
  await putInputs(client, tenants.names, 'settings', 0);
  const leases = keep(recordOnServer(client, leaseResource, { namespace: leaseNamespace }));
  await leases.ready;
  const suffix = randomBytes(3).toString('hex');
  const [a, b] = ['a', 'b'].map((n) =>
    startReplica(built, {
      identity: `${n}-${suffix}`,
      mode: 'leader',
      kubeconfigPath: sharedKubeApiserver().kubeconfigPath('admin'),
      leaseNamespace,
      leaseName: 'ha-copy',
      tenantSelector: tenants.selector,
      timing: TIMING,
      reconcileDelayMs,
    }),
  ) as [ReplicaProcess, ReplicaProcess];
  started.push(a, b);
  return { a, b, tenants, leases };
}

/** Waits until exactly one replica leads, by the Lease on the server and by both replicas' logs. */
async function leaderOf(p: Pair): Promise<{ leader: ReplicaProcess; standby: ReplicaProcess }> {
  return eventually(
    'one leader (Lease holder on the server, leading in its logs, standby in the other\'s)',
    () => {
      const holder = p.leases.events().at(-1)?.object;
      const [leader, standby] = holder === undefined ? [] : holderOf(holder) === p.a.identity ? [p.a, p.b] : holderOf(holder) === p.b.identity ? [p.b, p.a] : [];
      if (leader === undefined || standby === undefined) return undefined;
      return states(leader).at(-1)?.type === 'leading' && states(standby).at(-1)?.type === 'standby' ? { leader, standby } : undefined;
    },
    { timeoutMs: 20_000, context: () => tails([p.a, p.b]) },
  );
}

async function writerOf(ns: string, name: string): Promise<string | undefined> {
  const got = await client.get<ConfigMap>(configMaps, name, { namespace: ns });
  return E.isRight(got) ? got.right.metadata.annotations?.[WRITTEN_BY] : undefined;
}

async function allWrittenBy(t: Tenants, identity: string, rs: readonly ReplicaProcess[]): Promise<void> {
  await eventually(`every output written by ${identity}`, async () => ((await Promise.all(t.names.map((ns) => writerOf(ns, 'settings-out')))).every((w) => w === identity) ? true : undefined), { timeoutMs: 15_000, context: () => tails(rs) });
}

describe('leader election across processes (examples/ha, lease 4 s, renew 3 s, retry 0.5 s)', () => {
  it('has exactly one leader; after kill -9 of it the other leads within leaseDuration + retryPeriod', async () => {
    const p = await pair();
    const { leader, standby } = await leaderOf(p);
    await allWrittenBy(p.tenants, leader.identity, [leader, standby]);
    // The standby engaged nothing: it never reconciled, so it never wrote.
    expect(standby.lines().filter((l) => l.msg === 'cluster engaged')).toEqual([]);

    const killedAt = leader.signal('SIGKILL');
    expect(await leader.exited).toBe('SIGKILL');
    // Within its bound of the kill, or the wait fails: the leader's last renew was at most one
    // retry period before the kill; the standby sees a record expire leaseDuration after it saw it
    // change (client-go's observed time), and tries every retry period.
    const bound = TIMING.leaseDurationMs + TIMING.retryPeriodMs + SLACK_MS;
    const leading = await waitForLog(standby, 'leading after the kill', isState('leading'), killedAt + bound - Date.now());
    const takeOverMs = leading.time - killedAt;
    // Not before the dead leader's Lease could have expired, by the Lease's own stamps: the
    // standby acquired it at least a lease duration after the leader's last renew. Taking over
    // earlier would risk two leaders.
    const takeOver = await eventually('the Lease held by the new leader', () => p.leases.events().find((e) => holderOf(e.object) === standby.identity), { timeoutMs: 5_000 });
    expect(Date.parse(takeOver.object.spec?.acquireTime ?? '')).toBeGreaterThanOrEqual(lastRenew(p.leases.events(), leader.identity, takeOver.rv) + TIMING.leaseDurationMs);
    expect(holderOf(p.leases.events().at(-1)?.object)).toBe(standby.identity);

    // The new leader reconciles: a change is copied by it.
    await putInputs(client, p.tenants.names, 'settings', 1);
    await allWrittenBy(p.tenants, standby.identity, [standby]);
    expect(p.leases.errors()).toEqual([]);
    console.info(`kill -9 take-over: ${takeOverMs} ms (bound ${TIMING.leaseDurationMs + TIMING.retryPeriodMs + SLACK_MS} ms)`);
  });

  it('on SIGTERM the leader releases its Lease: the other leads well under the lease duration', async () => {
    const p = await pair();
    const { leader, standby } = await leaderOf(p);
    await allWrittenBy(p.tenants, leader.identity, [leader, standby]);

    const termAt = leader.signal('SIGTERM');
    // The released Lease is free at once; the standby sees it on its next try (one retry period):
    // within that of the signal, or the wait fails.
    const leading = await waitForLog(standby, 'leading after SIGTERM', isState('leading'), termAt + TIMING.retryPeriodMs + SLACK_MS - Date.now());
    const handOverMs = leading.time - termAt;
    expect(await leader.exited).toBe(0);
    // On the server: the leader's record, then an empty holder (the release), then the new leader.
    const holders = p.leases.events().map((e) => holderOf(e.object)).filter((h, i, all) => i === 0 || all[i - 1] !== h);
    const released = holders.indexOf(leader.identity);
    expect(holders.slice(released, released + 3)).toEqual([leader.identity, '', standby.identity]);
    console.info(`SIGTERM hand-over: ${handOverMs} ms`);
  });

  it('a leader frozen with SIGSTOP past its Lease writes nothing after the take-over once continued', async () => {
    // Reconciles wait 300 ms before writing and inputs change every 100 ms: the freeze lands with
    // reconciles in flight, which try to write the moment the process is continued.
    const p = await pair(300);
    const outputs = keep(recordOnServer<ConfigMap>(client, configMaps, { labelSelector: 'rxfleet.io/ha-role=output' }));
    await outputs.ready;
    const { leader, standby } = await leaderOf(p);
    const mine = (ns: string | undefined): boolean => ns !== undefined && p.tenants.names.includes(ns);
    const writesBy = (id: string) => outputs.events().filter((e) => e.type !== 'LISTED' && mine(e.object.metadata.namespace) && e.object.metadata.annotations?.[WRITTEN_BY] === id);

    const churn = churnInputs(client, p.tenants.names, 'settings', 100);
    await eventually('the leader writing', () => (writesBy(leader.identity).length >= 5 ? true : undefined), { timeoutMs: 15_000, context: () => tails([leader]) });

    await leader.pause();
    await waitForLog(standby, 'leading while the leader is frozen', isState('leading'), TIMING.leaseDurationMs + TIMING.retryPeriodMs + SLACK_MS + 10_000);
    const takeOver = await eventually('the Lease update that made the standby holder', () => p.leases.events().find((e) => holderOf(e.object) === standby.identity), { timeoutMs: 5_000 });
    // Not before the frozen leader's Lease could have expired (the Lease's own stamps).
    expect(Date.parse(takeOver.object.spec?.acquireTime ?? '')).toBeGreaterThanOrEqual(lastRenew(p.leases.events(), leader.identity, takeOver.rv) + TIMING.leaseDurationMs);
    await eventually('the new leader writing', () => (writesBy(standby.identity).length >= 3 ? true : undefined), { timeoutMs: 10_000, context: () => tails([standby]) });

    const continuedAt = leader.signal('SIGCONT');
    // The continued replica must find out it lost the Lease: fenced state or refused writes.
    const fenced = (l: LogLine) => isState('fenced')(l) || JSON.stringify(l).includes('Fenced');
    await waitForLog(leader, 'fenced after SIGCONT', (l) => l.time >= continuedAt && fenced(l), 5_000);
    // Inputs keep changing until the continued replica has given up every cluster: until then its
    // reconciles run (and must be refused); after it nothing of it runs that could write.
    await eventually('the continued replica to give up its clusters', () => linesSince(leader, continuedAt, (l) => l.msg === 'cluster disengaged').length >= p.tenants.names.length, {
      timeoutMs: 10_000,
      context: () => tails([leader]),
    });
    const last = await churn.stop();
    expect(last).toBeGreaterThan(0);
    // The sentinel: the new leader's outputs of the last inputs. Every write of the old one was sent
    // before it gave up its clusters, so the record holds it once these are in.
    await eventually('the outputs of the last inputs, by the new leader', () => p.tenants.names.every((ns) => writesBy(standby.identity).some((e) => e.object.metadata.namespace === ns && e.object.data?.n === String(last))), {
      timeoutMs: 15_000,
      context: () => tails([standby]),
    });

    expect(outputs.errors()).toEqual([]);
    expect(p.leases.errors()).toEqual([]);
    // resourceVersions order every write on this etcd-backed server (see replica-audit.ts).
    const late = writesBy(leader.identity).filter((e) => e.rv > takeOver.rv);
    expect(late.map((e) => `${e.object.metadata.namespace ?? ''}/${e.object.metadata.name ?? ''} rv ${e.rv} > take-over rv ${takeOver.rv}`)).toEqual([]);
    expect(writesBy(standby.identity).some((e) => e.rv > takeOver.rv)).toBe(true);
    // What the frozen replica logged once continued (evidence for the report, asserted non-empty).
    const afterCont = linesSince(leader, continuedAt, (l) => fenced(l) || stateOf(l) !== undefined);
    expect(afterCont.length).toBeGreaterThan(0);
    console.info(`SIGSTOP: ${writesBy(leader.identity).length} writes by the frozen leader, all before take-over rv ${takeOver.rv}; after SIGCONT it logged: ${afterCont.map((l) => `${l.msg}${typeof l.error === 'string' ? ` (${l.error})` : ''}`).join('; ')}`);
  });
});
