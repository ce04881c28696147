// The take-over part of bench:ha: leader election, two replicas of examples/ha, kill -9 of the
// leader, measured from the moment the standby holds the Lease (its `replica leading` log line) to
// the first reconcile of every cluster it took over and to every input reconciled. Stamped outputs
// (the example's default): each reconcile writes, and its start is the `written-at` it stamped (the
// reconcile sends its write at once). Unstamped (STAMP_OUTPUTS=0, outputs watched): a take-over over
// converged outputs writes nothing, and the new leader's debug `reconciled` lines tell when each
// reconcile started (log time minus durationMs). Run cold (WARM_CACHES=0) and warm (WARM_CACHES=N)
// in the same run; the standby's RSS and heap are read from its /metrics just before the kill.
import type { ConfigMap } from '../src/index.js';
import { ownersNow } from '../test/support/replica-audit.js';
import type { ServerRecord } from '../test/support/replica-audit.js';
import type { ReplicaProcess, ReplicaSpec } from '../test/support/replica-process.js';
import { metricOf, states, stopAll, tails } from '../test/support/replica-process.js';
import { eventually } from '../test/support/wait.js';

/** What one take-over measured. */
export interface Takeover {
  readonly mode: 'cold' | 'warm';
  readonly stamped: boolean;
  /** Outputs the server saw change after the Lease was held (a no-op apply changes none). */
  readonly writes: number;
  /** Write requests the new leader sent, and applies it left unsent (its /metrics, after every input was reconciled). */
  readonly sent: number;
  readonly unsent: number;
  /** Kill -9 of the leader to the standby holding the Lease. */
  readonly leaseMs: number;
  /** Lease held to every cluster's watch synced (its listing delivered), as the standby's /metrics first showed it (polled every 50 ms). */
  readonly syncedMs: number;
  /** Lease held to the first reconcile of the last of the clusters. */
  readonly firstOfEveryClusterMs: number;
  /** Lease held to every input reconciled. */
  readonly everyObjectMs: number;
  /** The standby's RSS and heap used just before the kill (bytes). */
  readonly standbyRss: number;
  readonly standbyHeap: number;
  /** The standby's warm clusters (synced), from its gauge. */
  readonly warmSynced: number;
}

/** Where the replicas run and what they reconcile. */
export interface TakeoverSetup {
  readonly launch: (spec: Omit<ReplicaSpec, 'kubeconfigPath' | 'tenantSelector'>) => ReplicaProcess;
  readonly leaseNamespace: (name: string) => Promise<string>;
  readonly names: readonly string[];
  /** Inputs per cluster. */
  readonly perCluster: number;
  readonly outputs: ServerRecord<ConfigMap>;
  readonly timeoutMs: number;
}

/** How many clusters' watches the replica's /metrics shows synced (`rxfleet_watch_synced … 1`). */
async function syncedClusters(r: ReplicaProcess): Promise<number> {
  const url = r.lines().find((l) => l.msg === 'controller running' && typeof l.url === 'string')?.url;
  if (typeof url !== 'string') return 0;
  const text = await (await fetch(`${url}/metrics`)).text();
  return text.split('\n').filter((l) => l.startsWith('rxfleet_watch_synced{') && l.endsWith(' 1')).length;
}

/** The sum of every series of a counter in the replica's /metrics. */
async function metricSum(r: ReplicaProcess, name: string): Promise<number> {
  const url = r.lines().find((l) => l.msg === 'controller running' && typeof l.url === 'string')?.url;
  if (typeof url !== 'string') return Number.NaN;
  const text = await (await fetch(`${url}/metrics`)).text();
  return text.split('\n').filter((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `)).reduce((n, l) => n + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
}

/** Per cluster, per input, when the new leader first started reconciling it (ms), from its log lines. */
function reconcileStarts(r: ReplicaProcess, since: number): Map<string, Map<string, number>> {
  const out = new Map<string, Map<string, number>>();
  for (const l of r.lines()) {
    if (l.msg !== 'reconciled' || typeof l.cluster !== 'string' || typeof l.key !== 'string' || typeof l.durationMs !== 'number') continue;
    const at = l.time - l.durationMs;
    if (at < since) continue;
    const per = out.get(l.cluster) ?? new Map<string, number>();
    out.set(l.cluster, per.set(l.key, Math.min(per.get(l.key) ?? at, at)));
  }
  return out;
}

/**
 * One take-over, cold or warm, with stamped outputs (every reconcile writes) or unstamped ones.
 *
 * @example
 * const cold = await takeover(setup, 'cold', true);
 */
export async function takeover(setup: TakeoverSetup, mode: 'cold' | 'warm', stamped: boolean): Promise<Takeover> {
  const n = setup.names.length;
  const tag = `${mode}-${stamped ? 'stamped' : 'unstamped'}`;
  const lead = {
    mode: 'leader',
    leaseNamespace: await setup.leaseNamespace(`bench-${tag}`),
    leaseName: 'ha-copy',
    warmCaches: mode === 'warm' ? n : 0,
    stampOutputs: stamped,
    ...(stamped ? {} : { logLevel: 'debug' }),
  } as const;
  const leader = setup.launch({ ...lead, identity: `${tag}-leader` });
  await eventually(`${mode}: the first replica leading every cluster`, () => states(leader).some((s) => s.type === 'leading') && ownersNow([leader]).size === n, { timeoutMs: setup.timeoutMs, context: () => tails([leader], 10), intervalMs: 200 });
  if (!stamped) {
    // Every output as the unstamped leader writes it (no written-by), so a take-over has nothing to write.
    await eventually(`${tag}: every output unstamped`, () => {
      const latest = new Map<string, ConfigMap>();
      for (const e of setup.outputs.events()) latest.set(`${e.object.metadata.namespace ?? ''}/${e.object.metadata.name ?? ''}`, e.object);
      const unstamped = [...latest.values()].filter((o) => o.metadata.annotations?.['rxfleet.io/written-by'] === undefined).length;
      return unstamped >= n * setup.perCluster ? true : undefined;
    }, { timeoutMs: setup.timeoutMs, context: () => tails([leader], 10), intervalMs: 200 });
  }
  const standby = setup.launch({ ...lead, identity: `${tag}-standby` });
  try {
    // Warm: every cluster's watches listed on the standby. Cold: the standby up and waiting.
    const warmSynced = await eventually(
      `${mode}: the standby ready to take over`,
      async () => {
        if (states(standby).at(-1)?.type !== 'standby') return undefined;
        const synced = (await metricOf(standby, 'rxfleet_replica_warm_clusters', 'state="synced"')) ?? 0;
        return mode === 'cold' || synced === n ? { synced } : undefined;
      },
      { timeoutMs: setup.timeoutMs, context: () => tails([standby], 10), intervalMs: 500 },
    );
    const standbyRss = (await metricOf(standby, 'process_resident_memory_bytes')) ?? 0;
    const standbyHeap = (await metricOf(standby, 'nodejs_heap_size_used_bytes')) ?? 0;
    const killAt = leader.signal('SIGKILL');
    await leader.exited;
    const leading = await eventually(`${mode}: the standby leading`, () => states(standby).find((s) => s.type === 'leading'), { timeoutMs: setup.timeoutMs, context: () => tails([standby], 10), intervalMs: 50 });
    const syncedAt = await eventually(
      `${mode}: every cluster's watch synced on the new leader`,
      async () => ((await syncedClusters(standby)) >= n ? Date.now() : undefined),
      { timeoutMs: setup.timeoutMs, context: () => tails([standby], 10), intervalMs: 50 },
    );
    // Per cluster, per output, the first written-at the new leader stamped after it took over.
    const stamps = (): Map<string, Map<string, number>> => {
      const out = new Map<string, Map<string, number>>();
      for (const e of setup.outputs.events()) {
        const by = e.object.metadata.annotations?.['rxfleet.io/written-by'];
        const at = Number(e.object.metadata.annotations?.['rxfleet.io/written-at']);
        if (by !== standby.identity || !(at >= leading.time)) continue;
        const ns = e.object.metadata.namespace ?? '';
        const name = e.object.metadata.name ?? '';
        const per = out.get(ns) ?? new Map<string, number>();
        out.set(ns, per.set(name, Math.min(per.get(name) ?? at, at)));
      }
      return out;
    };
    const all = await eventually(`${mode}: every input reconciled by the new leader`, () => {
      const s = stamped ? stamps() : reconcileStarts(standby, leading.time);
      return setup.names.every((c) => (s.get(c)?.size ?? 0) >= setup.perCluster) ? s : undefined;
    }, { timeoutMs: setup.timeoutMs, context: () => tails([standby], 10), intervalMs: 200 });
    const writes = setup.outputs.events().filter((e) => e.type !== 'LISTED' && e.seenAt >= leading.time).length;
    const sent = await metricSum(standby, 'rxfleet_write_requests_total');
    const unsent = await metricSum(standby, 'rxfleet_writes_unsent_total');
    const times = (c: string): number[] => [...(all.get(c)?.values() ?? [])];
    const firsts = setup.names.map((c) => Math.min(...times(c)));
    const lasts = setup.names.map((c) => Math.max(...times(c)));
    return {
      mode,
      stamped,
      writes,
      sent,
      unsent,
      leaseMs: leading.time - killAt,
      syncedMs: syncedAt - leading.time,
      firstOfEveryClusterMs: Math.max(...firsts) - leading.time,
      everyObjectMs: Math.max(...lasts) - leading.time,
      standbyRss,
      standbyHeap,
      warmSynced: warmSynced.synced,
    };
  } finally {
    await stopAll([leader, standby]);
  }
}
