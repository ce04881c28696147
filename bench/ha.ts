// HA benchmark: examples/ha as separate processes over BENCH_CLUSTERS (default 300) namespace-
// clusters of a private kube-apiserver, at the runtime's default Lease timings (15 s / 10 s / 2 s).
// Namespaces, not kcp workspaces: kcp creates workspaces at ~2.3 s each on this machine (see
// "kcp scale"), 10+ minutes of set-up for 300, and sharding is the same filter on the fleet for
// every provider. Measures, for sharding across 3 replicas: start to full ownership and to every
// cluster reconciled; the fraction moved when one leaves (SIGTERM) and when one joins; the time
// for a SIGKILLed member's clusters to be running elsewhere. For leader election: the take-over
// after kill -9, then the warm take-over: BENCH_OBJECTS (default 10) inputs per cluster, the
// standby cold and then warm (replicas.warmCaches), from Lease acquired to the first reconcile of
// every cluster, and the standby's memory (bench/ha-takeover.ts). BENCH_HA_PARTS=takeover runs
// only that; BENCH_HA_UNSTAMPED=0 leaves out its unstamped runs (outputs watched, converged ones not
// written again: examples/ha STAMP_OUTPUTS=0). Ownership is read from the replicas' engage/disengage logs (same clock).
// Run: npm run bench:ha  (node --import ./bench/register.ts bench/ha.ts)
import { loadavg } from 'node:os';
import { configMaps } from '../src/index.js';
import { createClusterClient } from '../src/client/index.js';
import { clusterName, isLeft } from '../src/index.js';
import { startKubeApiserver } from '../test/support/kube-apiserver.js';
import { engagements, ownersNow, recordOnServer } from '../test/support/replica-audit.js';
import { buildReplicaExample } from '../test/support/replica-build.js';
import type { ReplicaProcess, ReplicaSpec } from '../test/support/replica-process.js';
import { startReplica, states, stopAll, tails } from '../test/support/replica-process.js';
import { createTenants, putInputs } from '../test/support/replica-tenants.js';
import { eventually } from '../test/support/wait.js';
import type { Takeover } from './ha-takeover.js';
import { takeover } from './ha-takeover.js';

const N = Number(process.env.BENCH_CLUSTERS ?? 300);
const OBJECTS = Number(process.env.BENCH_OBJECTS ?? 10);
const ONLY_TAKEOVER = process.env.BENCH_HA_PARTS === 'takeover';
const load = (): string => loadavg().map((x) => x.toFixed(1)).join(' ');
const TIMEOUT_MS = 180_000;
const s = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
const pct = (n: number): string => `${n}/${N} (${((100 * n) / N).toFixed(1)}%)`;

const kas = await startKubeApiserver();
const build = await buildReplicaExample();
const started: ReplicaProcess[] = [];
try {
  const made = createClusterClient(clusterName('bench'), { file: kas.kubeconfigPath('admin') });
  if (isLeft(made)) throw new Error(made.left.message);
  const client = made.right;
  const setupAt = Date.now();
  const tenants = await createTenants(client, N, 'bench');
  await putInputs(client, tenants.names, 'settings', 0);
  const setupMs = Date.now() - setupAt;
  const outputs = recordOnServer(client, configMaps, { labelSelector: 'rxfleet.io/ha-role=output' });
  await outputs.ready;

  const launch = (spec: Omit<ReplicaSpec, 'kubeconfigPath' | 'tenantSelector'>): ReplicaProcess => {
    const r = startReplica(build, { ...spec, kubeconfigPath: kas.kubeconfigPath('admin'), tenantSelector: tenants.selector });
    started.push(r);
    return r;
  };
  const live = (): ReplicaProcess[] => started.filter((r) => r.exitedAt() === undefined);

  /** Waits until `rs` are the live members, confirmed, each cluster engaged exactly once; returns the owners. */
  const settled = (rs: readonly ReplicaProcess[]): Promise<Map<string, string>> => {
    const members = rs.map((r) => r.identity).sort().join();
    return eventually(
      `${members} settled`,
      () => {
        const agreed = rs.every((r) => {
          const st = states(r).at(-1);
          return st?.type === 'sharing' && st.confirmed !== false && [...(st.members ?? [])].sort().join() === members;
        });
        const owners = ownersNow(rs);
        const once = owners.size === N && [...owners.values()].every((o) => o.length === 1);
        return agreed && once ? new Map([...owners].map(([c, [o]]) => [c, o ?? ''])) : undefined;
      },
      { timeoutMs: TIMEOUT_MS, context: () => tails(rs, 10), intervalMs: 200 },
    );
  };
  const moved = (a: ReadonlyMap<string, string>, b: ReadonlyMap<string, string>): string[] => tenants.names.filter((n) => a.get(n) !== b.get(n));
  /** When the last of `clusters` was engaged by one of `rs` at or after `since` (log time). */
  const lastEngaged = (rs: readonly ReplicaProcess[], clusters: readonly string[], since: number): number =>
    Math.max(...clusters.map((c) => Math.min(...rs.flatMap((r) => engagements(r).filter((e) => e.cluster === c && e.from >= since).map((e) => e.from)))));

  if (!ONLY_TAKEOVER) {
    // Sharding: three replicas from cold.
    const shard = { mode: 'shard', leaseNamespace: await kas.createNamespace('bench-shard'), leaseName: 'ha-copy' } as const;
    const startAt = Date.now();
    const [a, b, c] = ['a', 'b', 'c'].map((id) => launch({ ...shard, identity: `shard-${id}` })) as [ReplicaProcess, ReplicaProcess, ReplicaProcess];
    const three = await settled([a, b, c]);
    const ownedMs = lastEngaged([a, b, c], tenants.names, startAt) - startAt;
    const writerOf = new Map<string, string>();
    await eventually('every cluster reconciled', () => {
      for (const e of outputs.events()) writerOf.set(e.object.metadata.namespace ?? '', e.object.metadata.annotations?.['rxfleet.io/written-by'] ?? '');
      return tenants.names.every((n) => writerOf.get(n) === three.get(n)) ? true : undefined;
    }, { timeoutMs: TIMEOUT_MS, intervalMs: 200 });
    const reconciledMs = Date.now() - startAt;

    // Leave: SIGTERM c (it stops its clusters and deletes its membership Lease).
    const leaveAt = c.signal('SIGTERM');
    await c.exited;
    const two = await settled([a, b]);
    const left = moved(three, two);
    const leaveMs = lastEngaged([a, b], left, leaveAt) - leaveAt;

    // Join: a new replica d.
    const joinAt = Date.now();
    const d = launch({ ...shard, identity: 'shard-d' });
    const rejoined = await settled([a, b, d]);
    const joined = moved(two, rejoined);
    const joinMs = lastEngaged([d], joined, joinAt) - joinAt;
    const onlyToNewcomer = joined.every((n) => rejoined.get(n) === d.identity);

    // kill -9 d: its clusters wait for its Lease to expire.
    const killAt = d.signal('SIGKILL');
    await d.exited;
    const after = await settled([a, b]);
    const orphaned = moved(rejoined, after);
    const killMs = lastEngaged([a, b], orphaned, killAt) - killAt;
    await stopAll(live());

    // Leader election: two replicas, kill -9 the leader.
    const lead = { mode: 'leader', leaseNamespace: await kas.createNamespace('bench-lead'), leaseName: 'ha-copy' } as const;
    const pair = [launch({ ...lead, identity: 'lead-a' }), launch({ ...lead, identity: 'lead-b' })];
    const leader = await eventually('a leader', () => pair.find((r) => states(r).at(-1)?.type === 'leading'), { timeoutMs: TIMEOUT_MS, context: () => tails(pair, 10), intervalMs: 100 });
    const standby = pair.find((r) => r !== leader) ?? leader;
    await eventually('the leader running every cluster', () => (ownersNow([leader]).size === N ? true : undefined), { timeoutMs: TIMEOUT_MS, context: () => tails([leader], 10), intervalMs: 200 });
    const leaderKillAt = leader.signal('SIGKILL');
    const leading = await eventually('the standby leading', () => states(standby).find((st) => st.type === 'leading'), { timeoutMs: TIMEOUT_MS, context: () => tails([standby], 10), intervalMs: 100 });
    await eventually('the new leader running every cluster', () => (ownersNow([standby]).size === N ? true : undefined), { timeoutMs: TIMEOUT_MS, context: () => tails([standby], 10), intervalMs: 200 });
    const allAgainMs = lastEngaged([standby], tenants.names, leaderKillAt) - leaderKillAt;
    console.log(`\nHA, ${N} namespace-clusters on one kube-apiserver, default timings (lease 15 s, renew 10 s, retry 2 s); set-up ${s(setupMs)}\n`);
    console.log('| measure | value |');
    console.log('| --- | ---: |');
    console.log(`| sharding, 3 replicas from cold: every cluster owned (engaged once) | ${s(ownedMs)} |`);
    console.log(`| sharding, 3 replicas from cold: every cluster reconciled by its owner | ${s(reconciledMs)} |`);
    console.log(`| leave (SIGTERM, 3 → 2): clusters moved | ${pct(left.length)} |`);
    console.log(`| leave (SIGTERM): last moved cluster running elsewhere | ${s(leaveMs)} |`);
    console.log(`| join (2 → 3): clusters moved${onlyToNewcomer ? ', all to the newcomer' : ' (NOT all to the newcomer)'} | ${pct(joined.length)} |`);
    console.log(`| join: last moved cluster running on the newcomer (process start included) | ${s(joinMs)} |`);
    console.log(`| kill -9 (3 → 2): the dead member's ${orphaned.length} clusters running elsewhere | ${s(killMs)} |`);
    console.log(`| leader election, kill -9: standby leading | ${s(leading.time - leaderKillAt)} |`);
    console.log(`| leader election, kill -9: every cluster running on the new leader | ${s(allAgainMs)} |`);
  }

  // Warm take-over: OBJECTS inputs per cluster, leader election, the standby cold then warm.
  for (let i = 1; i < OBJECTS; i++) await putInputs(client, tenants.names, `in-${i}`, 0);
  const setup = { launch, leaseNamespace: (name: string) => kas.createNamespace(name), names: tenants.names, perCluster: OBJECTS, outputs, timeoutMs: TIMEOUT_MS };
  // Stamped outputs (every take-over reconcile writes), then unstamped ones (BENCH_HA_UNSTAMPED=0 skips them).
  const stampings = process.env.BENCH_HA_UNSTAMPED === '0' ? [true] : [true, false];
  const mib = (b: number): string => `${(b / 2 ** 20).toFixed(1)} MiB`;
  const ms = (v: number): string => `${Math.round(v)} ms`;
  for (const stamped of stampings) {
    const loadAt = load();
    const cold = await takeover(setup, 'cold', stamped);
    const warm = await takeover(setup, 'warm', stamped);
    console.log(`\nWarm take-over, leader election, ${N} namespace-clusters × ${OBJECTS} objects, ${stamped ? 'stamped outputs (every reconcile writes)' : 'unstamped outputs, watched (a converged output is not written)'}, kill -9 of the leader; load average ${loadAt} before, ${load()} after\n`);
    console.log('| measure | cold standby | warm standby | warm ÷ cold |');
    console.log('| --- | ---: | ---: | ---: |');
    const row = (what: string, f: (t: Takeover) => number, show: (v: number) => string): void => {
      console.log(`| ${what} | ${show(f(cold))} | ${show(f(warm))} | ${f(cold) === 0 ? '—' : `${(f(warm) / f(cold)).toFixed(2)}×`} |`);
    };
    row('kill -9 → standby holds the Lease', (t) => t.leaseMs, s);
    row('Lease held → every cluster\'s watch synced (polled every 50 ms)', (t) => t.syncedMs, ms);
    row('Lease held → first reconcile of every cluster', (t) => t.firstOfEveryClusterMs, ms);
    row('Lease held → every object reconciled', (t) => t.everyObjectMs, ms);
    row('outputs changed on the server after the Lease was held', (t) => t.writes, String);
    row('write requests the new leader sent (its metrics)', (t) => t.sent, String);
    row('applies it left unsent (its metrics)', (t) => t.unsent, String);
    row('standby RSS before the take-over', (t) => t.standbyRss, mib);
    row('standby heap used before the take-over', (t) => t.standbyHeap, mib);
    console.log(`\nwarm clusters synced on the standby: ${warm.warmSynced}/${N}; memory price of warmth per cluster: RSS ${((warm.standbyRss - cold.standbyRss) / N / 1024).toFixed(1)} KiB, heap ${((warm.standbyHeap - cold.standbyHeap) / N / 1024).toFixed(1)} KiB`);
  }
  outputs.stop();
} finally {
  await stopAll(started);
  build.remove();
  await kas.stop();
}
