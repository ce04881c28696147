// kcp scale past this machine's kcp: the controller of bench:kcp (bench/kcp-controller.ts, one
// APIExport provider, a no-op reconcile of every Widget) against kcp-sim (bench/kcp-sim), which
// serves the export's virtual workspace for N workspaces × M Widgets from memory. Cold start: the
// N workspaces are bound before the controller starts. The sim runs in this process, each
// controller in its own.
// - BENCH_REPLICAS=1 (default): one controller (createFleet + fleetWatch, as bench:kcp). Start →
//   all engaged, → all N×M reconciled; RSS and heap per workspace; event-loop delay.
// - BENCH_REPLICAS=R > 1: R controllers as separate OS processes, each run() with replicas:
//   { type: 'sharding' }, their Leases in a private kube-apiserver (Lease timings: the runtime's
//   defaults). Done when every replica is `sharing R confirmed`, the engaged workspaces add up to N
//   with none twice, and each replica reconciled every Widget of its workspaces.
// BENCH_CPU_PROF=<dir> writes each controller's --cpu-prof profile there. BENCH_MEMORY_LIMIT_MIB runs
// each controller in a memory cgroup of that many MiB, as a pod's limit does (Node then sizes V8's
// heap, young generation included, from the limit: bench/peer/memory-limit.ts). Output: one JSON document.
// Run: npm run bench:kcp-sim  (BENCH_WORKSPACES=10000 BENCH_OBJECTS=10 BENCH_REPLICAS=1 by default)
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from '../test/support/wait.js';
import type { ControllerProcess, Snapshot } from './kcp-measure.js';
import { load, mem, memOf, now, quantile, startController } from './kcp-measure.js';
import { startKcpSim } from './kcp-sim/server.js';
import { bindSimWorkspaces, setupSimExport } from './kcp-sim/workspaces.js';
import type { Contender } from './peer/measure-run.js';
import type { MemoryLimit } from './peer/memory-limit.js';
import { memoryLimit } from './peer/memory-limit.js';

const N = Number(process.env.BENCH_WORKSPACES ?? 10_000);
const M = Number(process.env.BENCH_OBJECTS ?? 10);
const R = Number(process.env.BENCH_REPLICAS ?? 1);
const TIMEOUT_MS = Number(process.env.BENCH_TIMEOUT_S ?? 600) * 1000;
const profDir = process.env.BENCH_CPU_PROF ?? '';
const limitMiB = Number(process.env.BENCH_MEMORY_LIMIT_MIB ?? 0);
const s1 = (ms: number): number => Number((ms / 1000).toFixed(1));

const loadStart = load();
const sim = await startKcpSim();
const dir = mkdtempSync(join(tmpdir(), 'kcp-sim-bench-'));
const started: ControllerProcess[] = [];
let kas: { stop(): Promise<unknown>; kubeconfigPath(user: 'admin'): string } | undefined;
const limit: MemoryLimit | undefined = limitMiB > 0 ? memoryLimit(limitMiB, `rxfleet-kcp-sim-${process.pid}`) : undefined;
const wrap = (c: Contender): Contender => (limit === undefined ? c : limit.wrap(c));
try {
  const fx = setupSimExport(sim);
  const setupAt = now();
  bindSimWorkspaces(sim, fx, 0, N, M);
  const setupMs = now() - setupAt;
  const simAfterSetup = mem();
  const providerKubeconfig = join(dir, 'provider.kubeconfig');
  writeFileSync(providerKubeconfig, fx.providerKubeconfig());
  const env = { ...process.env, KCP_PROVIDER_KUBECONFIG: providerKubeconfig, KCP_EXPORT: fx.exportName, KCP_GROUP: fx.group, KCP_PORT: String(sim.port), BENCH_OBJECTS: String(M), LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn' };
  const flags = profDir === '' ? [] : ['--cpu-prof', `--cpu-prof-dir=${profDir}`];
  const timings = (c: ControllerProcess, d: Snapshot): Record<string, unknown> => {
    const firsts = [...c.firstAt.values()].map((t) => t - d.startedAt);
    return {
      startToAllEngagedS: s1(Math.max(...c.engagedAt.values()) - d.startedAt),
      startToFirstReconcileMs: { median: quantile(firsts, 0.5), p95: quantile(firsts, 0.95), max: quantile(firsts, 1) },
    };
  };

  let result: Record<string, unknown>;
  if (R === 1) {
    const c = startController({ ...env, KCP_EXPECT: String(N) }, flags, wrap);
    started.push(c);
    const timeout = setTimeout(() => {
      void c.stop(0);
    }, TIMEOUT_MS);
    const d = await c.done;
    clearTimeout(timeout);
    result = { mode: 'one process (createFleet + fleetWatch)', ...timings(c, d), startToAllReconciledS: s1(d.at - d.startedAt), ...memOf(d, N) };
  } else {
    const { startKubeApiserver } = await import('../test/support/kube-apiserver.js');
    kas = await startKubeApiserver();
    const home = kas.kubeconfigPath('admin');
    const cs = Array.from({ length: R }, (_, i) => startController({ ...env, KCP_REPLICA: `bench-r${i}`, KCP_HOME_KUBECONFIG: home }, flags, wrap));
    started.push(...cs);
    const startedAt = Math.min(...(await Promise.all(cs.map((c) => c.ready))));
    const settled = await eventually(
      `${R} replicas share the ${N} workspaces and reconciled every Widget`,
      () => {
        const ps = cs.map((c) => c.progress());
        const owners = new Set(cs.flatMap((c) => [...c.engagedAt.keys()]));
        const ok = ps.every((p) => p?.state === `sharing ${R} confirmed` && p.reconciled === p.engaged * M) && ps.reduce((a, p) => a + (p?.engaged ?? 0), 0) === N && owners.size === N;
        return ok ? Math.max(...ps.map((p) => p?.at ?? 0)) : undefined;
      },
      { timeoutMs: TIMEOUT_MS, intervalMs: 100, context: () => `replicas now: ${JSON.stringify(cs.map((c) => c.progress()))}; load ${load()}` },
    );
    for (const c of cs) c.snapshot();
    const ds = await Promise.all(cs.map((c) => c.done));
    result = {
      mode: `${R} sharding replicas (run(), separate processes, Leases in a kube-apiserver)`,
      startToAllSharedAndReconciledS: s1(settled - startedAt),
      replicas: ds.map((d, i) => {
        const c = cs[i] ?? cs[0];
        return { ...(c === undefined ? {} : timings(c, d)), ...memOf(d, d.engaged), fencings: d.fencings ?? 0, rssPerWorkspaceOfFleetKiB: Number((((d.after.rss - d.before.rss) * 1024) / N).toFixed(1)) };
      }),
    };
  }
  console.log(
    JSON.stringify(
      {
        workspaces: N,
        objectsPerWorkspace: M,
        replicas: R,
        memoryLimitMiB: limit?.mib ?? 'none',
        simSetupS: s1(setupMs),
        simRssAfterSetupMiB: simAfterSetup.rss,
        simRequests: Object.fromEntries([...sim.requests].sort()),
        ...result,
        node: process.version,
        load: { start: loadStart, end: load() },
      },
      null,
      2,
    ),
  );
} finally {
  await Promise.all(started.map((c) => c.stop()));
  limit?.remove();
  await sim.close();
  await kas?.stop();
  rmSync(dir, { recursive: true, force: true });
}
