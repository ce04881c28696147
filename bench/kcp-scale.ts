// kcp scale benchmark: one APIExport provider serving N consumer workspaces × M objects each in a
// private kcp. Measures, per workspace, the time from creating its APIBinding to its engagement
// and to the first reconcile of one of its objects (median, p95), the time for the whole fleet to
// be reconciled, and heap per engaged workspace (its M cached objects included). The controller is
// the common path: createFleet(apiExportProvider(...)) and fleetWatch over shared informers, each
// workspace's informer a view of the endpoint's one wildcard watch.
// Run: npm run bench:kcp  (node --expose-gc --import ./bench/register.ts bench/kcp-scale.ts)
import { randomBytes } from 'node:crypto';
import type { ClusterName, KubeObject, ObjectKey } from '../src/index.js';
import { done } from '../src/index.js';
import { reconcile } from '../src/operators/index.js';
import { apiExportProvider } from '../src/providers/kcp/index.js';
import { createFleet, createInformers, fleetWatch } from '../src/streams/index.js';
import { createIn, setupApiExport } from '../test/support/kcp-apiexport.js';
import { createKcpWorkspace } from '../test/support/kcp.js';
import { startKcp } from '../test/support/kcp.js';
import { pool } from '../test/support/pool.js';
import { waitFor } from './support.js';

const N = Number(process.env.BENCH_WORKSPACES ?? 100);
const M = Number(process.env.BENCH_OBJECTS ?? 50);
const SETUP_CONCURRENCY = Number(process.env.BENCH_SETUP_CONCURRENCY ?? 4);
const gc = (globalThis as { gc?: () => void }).gc;

function heap(): number {
  gc?.();
  gc?.();
  return process.memoryUsage().heapUsed;
}

function quantile(xs: readonly number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? NaN;
}

const kcp = await startKcp();
try {
  const fx = await setupApiExport(kcp.adminKubeconfigPath, { consumers: 0 });
  const boundAt = new Map<string, number>();
  const engagedAt = new Map<string, number>();
  const firstReconcileAt = new Map<string, number>();
  const reconciledKeys = new Set<string>();

  const fleet = createFleet(apiExportProvider({ kubeconfig: () => ({ yaml: fx.providerKubeconfig() }) }, fx.exportName));
  const informers = createInformers();
  const lookup = (key: ObjectKey): KubeObject | undefined => {
    const c = fleet.get(key.cluster);
    return c === undefined ? undefined : informers.informer(c, fx.widgets).store.get(key);
  };
  // Workspaces (logical names) are created in the bench before their bindings: ask for logical names
  // only to map engagement times back to their binding times.
  const heapBefore = heap();
  const provSub = fleet.engagements.subscribe(({ cluster }) => {
    engagedAt.set(cluster.name, performance.now());
  });
  const recSub = fleetWatch(fleet, fx.widgets, { informers })
    .pipe(
      reconcile(
        (req) => {
          const c: ClusterName = req.cluster;
          if (!firstReconcileAt.has(c)) firstReconcileAt.set(c, performance.now());
          reconciledKeys.add(`${c}/${req.key.name}`);
          return done();
        },
        { lookup, fleet, concurrency: 10 },
      ),
    )
    .subscribe();

  const setupStart = performance.now();
  const indexes = Array.from({ length: N }, (_, i) => i);
  const suffix = randomBytes(3).toString('hex');
  await pool(indexes, SETUP_CONCURRENCY, async (i) => {
    const ws = await createKcpWorkspace(kcp.adminKubeconfigPath, `scale-${suffix}-${i}`);
    boundAt.set(ws.logicalCluster, performance.now());
    await fx.bind(ws);
    const kc = fx.workspaceKubeConfig(ws);
    await pool(
      Array.from({ length: M }, (_, j) => j),
      4,
      async (j) => {
        await createIn(kc, `/apis/${fx.group}/v1/namespaces/default/widgets`, { apiVersion: `${fx.group}/v1`, kind: 'Widget', metadata: { name: `w-${j}`, namespace: 'default' }, spec: { size: j } });
      },
    );
  });
  const setupSeconds = (performance.now() - setupStart) / 1000;
  await waitFor('every object reconciled', () => reconciledKeys.size >= N * M, { timeoutMs: 600_000, intervalMs: 50 });
  const allReconciledSeconds = (performance.now() - setupStart) / 1000;
  const heapAfter = heap();

  const toEngage: number[] = [];
  const toFirst: number[] = [];
  for (const [logical, t0] of boundAt) {
    const e = engagedAt.get(logical);
    const f = firstReconcileAt.get(logical);
    if (e !== undefined) toEngage.push(e - t0);
    if (f !== undefined) toFirst.push(f - t0);
  }
  const perWs = (heapAfter - heapBefore) / N;
  console.log(
    JSON.stringify(
      {
        workspaces: N,
        objectsPerWorkspace: M,
        setupSeconds: Number(setupSeconds.toFixed(1)),
        allReconciledSeconds: Number(allReconciledSeconds.toFixed(1)),
        bindingToEngagedMs: { median: Math.round(quantile(toEngage, 0.5)), p95: Math.round(quantile(toEngage, 0.95)), n: toEngage.length },
        bindingToFirstReconcileMs: { median: Math.round(quantile(toFirst, 0.5)), p95: Math.round(quantile(toFirst, 0.95)), n: toFirst.length },
        heapPerEngagedWorkspaceKiB: Number((perWs / 1024).toFixed(1)),
        heapPerCachedObjectKiB: Number((perWs / M / 1024).toFixed(2)),
        engaged: fleet.clusters().length,
      },
      null,
      2,
    ),
  );
  recSub.unsubscribe();
  provSub.unsubscribe();
} finally {
  await kcp.stop();
}
