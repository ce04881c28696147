// Watch ingestion benchmark: rxfleet's shared informer against @kubernetes/client-node's
// makeInformer, same private kube-apiserver, same objects, same run. Measures the initial sync
// (objects/s, median of alternated rounds, and the client's CPU per object), heap per cached object,
// and watch events/s for a burst of updates seen by both.
// Run: npm run bench:watch  (node --expose-gc --import ./bench/register.ts bench/watch.ts)
import { CoreV1Api, makeInformer } from '@kubernetes/client-node';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { loadavg } from 'node:os';
import type { Subscription } from 'rxjs';
import { firstValueFrom, filter } from 'rxjs';
import { createClusterClient } from '../src/client/index.js';
import { E } from '../src/fp/index.js';
import type { ConfigMap } from '../src/index.js';
import { clusterName, configMaps } from '../src/index.js';
import type { Informer } from '../src/streams/index.js';
import { createInformers } from '../src/streams/index.js';
import { startKubeApiserver } from '../test/support/kube-apiserver.js';
import { pool } from '../test/support/pool.js';
import { eventually } from '../test/support/wait.js';

// Polled on every event-loop turn: the timings must not be rounded up to a polling interval.
const tight = { timeoutMs: 120_000, intervalMs: 0 };

const N = Number(process.env.BENCH_OBJECTS ?? 3000);
const ROUNDS = Number(process.env.BENCH_SYNC_ROUNDS ?? 5);
const UPDATES = Number(process.env.BENCH_UPDATES ?? 2000);
const gc = (globalThis as { gc?: () => void }).gc;

/** One initial sync: wall time, and CPU time of this process (the client's share; the server's is not in it). */
interface Sync {
  readonly ms: number;
  readonly cpuMs: number;
}

// Starts a stopwatch; calling the result stops it.
function timed(): () => Sync {
  const t = performance.now();
  const c = process.cpuUsage();
  return () => {
    const cpu = process.cpuUsage(c);
    return { ms: performance.now() - t, cpuMs: (cpu.user + cpu.system) / 1000 };
  };
}

// The run with the median wall time (its CPU with it).
function median(runs: readonly Sync[]): Sync {
  const sorted = [...runs].sort((a, b) => a.ms - b.ms);
  const mid = sorted[Math.floor(sorted.length / 2)];
  if (mid === undefined) throw new Error('no runs');
  return mid;
}

function heap(): number {
  gc?.();
  gc?.();
  return process.memoryUsage().heapUsed;
}

const kas = await startKubeApiserver();
try {
  const made = createClusterClient(clusterName('bench'), { yaml: kas.kubeconfigYaml('admin') });
  if (E.isLeft(made)) throw new Error(made.left.message);
  const client = made.right;
  const namespace = await kas.createNamespace('bench');
  const pad = 'x'.repeat(900); // ~1 KB objects
  const names = Array.from({ length: N }, (_, i) => `cm-${i}`);
  await pool(names, 32, async (name) => {
    const r = await client.create(configMaps, { metadata: { name, namespace }, data: { v: '0', pad } });
    if (E.isLeft(r)) throw new Error(r.left.message);
  });

  // --- initial sync, one client at a time, alternated over rounds (the machine is shared: the
  // median counts); the last round's informers stay for the burst ---
  const kc = kas.kubeConfig('admin');
  const core = kc.makeApiClient(CoreV1Api);
  const rxRuns: Sync[] = [];
  const plainRuns: Sync[] = [];
  let inf: Informer<ConfigMap> | undefined;
  let sub: Subscription | undefined;
  let plain: ReturnType<typeof makeInformer<V1ConfigMap>> | undefined;
  let rxHeap = 0;
  let plainHeap = 0;
  for (let round = 0; round < ROUNDS; round++) {
    // The previous round's informers go first, so that neither heap figure counts them.
    sub?.unsubscribe();
    await plain?.stop();
    inf = undefined;
    plain = undefined;
    const h0 = heap();
    const rx = timed();
    inf = createInformers().informer({ name: client.cluster, client }, configMaps, { namespace });
    sub = inf.events.subscribe();
    await firstValueFrom(inf.health.pipe(filter((h) => h.synced)));
    rxRuns.push(rx());
    // Heap figures from the first round only, the first informer alone in the process: a stopped
    // informer's cache may be freed late, in the middle of a later measurement.
    if (round === 0) rxHeap = (heap() - h0) / N;

    const h1 = heap();
    const cn = timed();
    plain = makeInformer<V1ConfigMap>(kc, `/api/v1/namespaces/${namespace}/configmaps`, () => core.listNamespacedConfigMap({ namespace }));
    await plain.start();
    const started = plain;
    await eventually('client-node list', () => started.list().length === N, tight);
    plainRuns.push(cn());
    if (round === 0) plainHeap = (heap() - h1) / N;
  }
  if (inf === undefined || sub === undefined || plain === undefined) throw new Error('BENCH_SYNC_ROUNDS must be at least 1');
  const rxSync = median(rxRuns);
  const plainSync = median(plainRuns);
  let plainSeen = 0;
  plain.on('update', () => plainSeen++);

  // --- a burst of updates, both informers running; time until each has seen them all ---
  let rxSeen = 0;
  let rxDone = 0;
  let plainDone = 0;
  const start = performance.now();
  const counter = inf.events.subscribe((ev) => {
    if (ev.type === 'applied' && ++rxSeen === UPDATES) rxDone = performance.now();
  });
  plain.on('update', () => {
    if (plainSeen === UPDATES) plainDone = performance.now();
  });
  await pool(names.slice(0, UPDATES).map((n, i) => names[i % N] ?? n), 32, async (name) => {
    const r = await client.patch(configMaps, name, { data: { v: '1' } }, { type: 'merge', namespace });
    if (E.isLeft(r)) throw new Error(r.left.message);
  });
  await eventually('both informers to see every update', () => rxDone > 0 && plainDone > 0, tight);
  const rxRate = UPDATES / ((rxDone - start) / 1000);
  const plainRate = UPDATES / ((plainDone - start) / 1000);

  counter.unsubscribe();
  sub.unsubscribe();
  await plain.stop();
  client.close();

  const rate = (r: Sync): string => (N / (r.ms / 1000)).toFixed(0);
  const row = (name: string, runs: readonly Sync[], sync: Sync, perObj: number, events: number): string =>
    `| ${name} | ${rate(sync)} (${runs.map(rate).join(', ')}) | ${((sync.cpuMs * 1000) / N).toFixed(0)} | ${(perObj / 1024).toFixed(2)} | ${events.toFixed(0)} |`;
  console.log(`objects=${N} updates=${UPDATES} sync rounds=${ROUNDS} gc=${gc === undefined ? 'no (run with --expose-gc)' : 'yes'} load=${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  console.log('| informer | initial sync objects/s, median (each round) | client CPU µs per object (median run) | heap KiB per cached object | watch events/s (burst, end to end) |');
  console.log('|---|---|---|---|---|');
  console.log(row('rxfleet createInformers', rxRuns, rxSync, rxHeap, rxRate));
  console.log(row('client-node makeInformer', plainRuns, plainSync, plainHeap, plainRate));
  console.log(
    `ratios rxfleet/client-node: sync ${(plainSync.ms / rxSync.ms).toFixed(2)}x faster, client CPU ${(rxSync.cpuMs / plainSync.cpuMs).toFixed(2)}x, heap ${(rxHeap / plainHeap).toFixed(2)}x, events ${(rxRate / plainRate).toFixed(2)}x`,
  );
} finally {
  await kas.stop();
}
