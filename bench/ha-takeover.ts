// The take-over part of bench:ha: leader election, two replicas of examples/ha, kill -9 of the
// leader, measured from the moment the standby holds the Lease (its `replica leading` log line) to
// the first reconcile of every cluster it took over (the earliest `written-at` it stamped on an
// output of that cluster: the reconcile sends its write at once) and to every input reconciled.
// Run once with the standby cold (WARM_CACHES=0) and once warm (WARM_CACHES=N), in the same run;
// the standby's RSS and heap are read from its /metrics just before the kill.
import type { ConfigMap } from '../src/index.js';
import { ownersNow } from '../test/support/replica-audit.js';
import type { ServerRecord } from '../test/support/replica-audit.js';
import type { ReplicaProcess, ReplicaSpec } from '../test/support/replica-process.js';
import { metricOf, states, stopAll, tails } from '../test/support/replica-process.js';
import { eventually } from '../test/support/wait.js';

/** What one take-over measured. */
export interface Takeover {
  readonly mode: 'cold' | 'warm';
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

/**
 * One take-over, cold or warm.
 *
 * @example
 * const cold = await takeover(setup, 'cold');
 */
export async function takeover(setup: TakeoverSetup, mode: 'cold' | 'warm'): Promise<Takeover> {
  const n = setup.names.length;
  const lead = { mode: 'leader', leaseNamespace: await setup.leaseNamespace(`bench-${mode}`), leaseName: 'ha-copy', warmCaches: mode === 'warm' ? n : 0 } as const;
  const leader = setup.launch({ ...lead, identity: `${mode}-leader` });
  await eventually(`${mode}: the first replica leading every cluster`, () => states(leader).some((s) => s.type === 'leading') && ownersNow([leader]).size === n, { timeoutMs: setup.timeoutMs, context: () => tails([leader], 10), intervalMs: 200 });
  const standby = setup.launch({ ...lead, identity: `${mode}-standby` });
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
      const s = stamps();
      return setup.names.every((c) => (s.get(c)?.size ?? 0) >= setup.perCluster) ? s : undefined;
    }, { timeoutMs: setup.timeoutMs, context: () => tails([standby], 10), intervalMs: 200 });
    const times = (c: string): number[] => [...(all.get(c)?.values() ?? [])];
    const firsts = setup.names.map((c) => Math.min(...times(c)));
    const lasts = setup.names.map((c) => Math.max(...times(c)));
    return {
      mode,
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
