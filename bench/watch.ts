// Watch ingestion benchmark: rxfleet's shared informer against @kubernetes/client-node's
// makeInformer, same private kube-apiserver, same objects, same run. Measures the initial sync
// (objects/s), heap per cached object, and watch events/s for a burst of updates seen by both.
// Run: npm run bench:watch  (node --expose-gc --import ./bench/register.ts bench/watch.ts)
import { CoreV1Api, makeInformer } from '@kubernetes/client-node';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { firstValueFrom, filter } from 'rxjs';
import { createClusterClient } from '../src/client/index.js';
import { E } from '../src/fp/index.js';
import { clusterName, configMaps } from '../src/index.js';
import { createInformers } from '../src/streams/index.js';
import { startKubeApiserver } from '../test/support/kube-apiserver.js';
import { pool } from '../test/support/pool.js';
import { waitFor } from './support.js';

// Polled on every event-loop turn: the timings must not be rounded up to a polling interval.
const tight = { timeoutMs: 120_000, intervalMs: 0 };

const N = Number(process.env.BENCH_OBJECTS ?? 3000);
const UPDATES = Number(process.env.BENCH_UPDATES ?? 2000);
const gc = (globalThis as { gc?: () => void }).gc;

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

  // --- initial sync, one client at a time, heap measured around each ---
  const h0 = heap();
  let t = performance.now();
  const informers = createInformers();
  const inf = informers.informer({ name: client.cluster, client }, configMaps, { namespace });
  const sub = inf.events.subscribe();
  await firstValueFrom(inf.health.pipe(filter((h) => h.synced)));
  const rxSync = performance.now() - t;
  const rxHeap = (heap() - h0) / N;

  const kc = kas.kubeConfig('admin');
  const core = kc.makeApiClient(CoreV1Api);
  const h1 = heap();
  t = performance.now();
  const plain = makeInformer<V1ConfigMap>(kc, `/api/v1/namespaces/${namespace}/configmaps`, () => core.listNamespacedConfigMap({ namespace }));
  let plainSeen = 0;
  plain.on('update', () => plainSeen++);
  await plain.start();
  await waitFor('client-node list', () => plain.list().length === N, tight);
  const plainSync = performance.now() - t;
  const plainHeap = (heap() - h1) / N;

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
  await waitFor('both informers to see every update', () => rxDone > 0 && plainDone > 0, tight);
  const rxRate = UPDATES / ((rxDone - start) / 1000);
  const plainRate = UPDATES / ((plainDone - start) / 1000);

  counter.unsubscribe();
  sub.unsubscribe();
  await plain.stop();
  client.close();

  const row = (name: string, sync: number, perObj: number, rate: number): string =>
    `| ${name} | ${(N / (sync / 1000)).toFixed(0)} | ${(perObj / 1024).toFixed(2)} | ${rate.toFixed(0)} |`;
  console.log(`objects=${N} updates=${UPDATES} gc=${gc === undefined ? 'no (run with --expose-gc)' : 'yes'}`);
  console.log('| informer | initial sync objects/s | heap KiB per cached object | watch events/s (burst, end to end) |');
  console.log('|---|---|---|---|');
  console.log(row('rxfleet createInformers', rxSync, rxHeap, rxRate));
  console.log(row('client-node makeInformer', plainSync, plainHeap, plainRate));
  console.log(`ratios rxfleet/client-node: sync ${(plainSync / rxSync).toFixed(2)}x faster, heap ${(rxHeap / plainHeap).toFixed(2)}x, events ${(rxRate / plainRate).toFixed(2)}x`);
} finally {
  await kas.stop();
}
