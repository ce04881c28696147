// A noisy cluster flooding events next to a quiet one, through the runtime's whole path (watch,
// informer, fair work queue, reconcile). Both clusters are in-process (their client's list and
// watch are fed by the bench), so the figure is rxfleet's own and not a server's: the quiet
// cluster's latency, from its event entering the watch to its reconcile finishing, measured first
// alone and then while the noisy cluster floods, for each flood rate. To say where the time goes,
// each quiet sample is split at the queue's entry (a `tap` in the controller's `filter`) and at
// the reconciler's start, and the event loop's delay is recorded in each phase.
// Run: npm run bench:noisy  (node --import ./bench/register.ts bench/noisy-neighbour.ts)
// Environment: BENCH_FLOOD_BATCHES (default 10,100: events per FLOOD_EVERY_MS), BENCH_SAMPLES (200),
// BENCH_PER_CLUSTER (the queue's perClusterConcurrency; default: reconcile's, concurrency - 1).
import { defaultPerCluster } from '../src/operators/internal/engine-settings.js';
import type { PerformanceEntry } from 'node:perf_hooks';
import { monitorEventLoopDelay, performance, PerformanceObserver } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { pino } from 'pino';
import { Subject, tap } from 'rxjs';
import { E } from '../src/fp/index.js';
import type { ConfigMap, ObjectList } from '../src/index.js';
import { configMaps, controller, done, run } from '../src/index.js';
import { staticProvider } from '../src/streams/index.js';
import { fakeCluster } from '../src/testing/index.js';
import { eventually } from '../test/support/wait.js';

const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 200);
const QUIET_EVERY_MS = 15;
const WORK_MS = 10;
const CONCURRENCY = 4;
const PER_CLUSTER = process.env.BENCH_PER_CLUSTER === undefined ? undefined : Number(process.env.BENCH_PER_CLUSTER);
// The flood: BATCH events every FLOOD_EVERY_MS over NOISY_KEYS keys (100 per 5 ms: 20,000 events/s).
const BATCHES = (process.env.BENCH_FLOOD_BATCHES ?? '10,100').split(',').map(Number);
const FLOOD_EVERY_MS = 5;
const NOISY_KEYS = 500;

/** A cluster whose list is empty and whose watch lines are pushed by the bench. */
function feedCluster(name: string): { cluster: ReturnType<typeof fakeCluster>; lines: Subject<string> } {
  const lines = new Subject<string>();
  const empty: ObjectList<ConfigMap> = { metadata: { resourceVersion: '1' }, items: [] };
  const cluster = fakeCluster(name, undefined, {
    list: () => Promise.resolve(E.right(empty)) as never,
    listAll: () => Promise.resolve(E.right(empty)) as never,
    watch: () => lines.asObservable(),
  });
  return { cluster, lines };
}

let rv = 1;
const line = (name: string, seq: number): string =>
  JSON.stringify({ type: 'MODIFIED', object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default', resourceVersion: String(++rv) }, data: { seq: String(seq) } } });

/** The q-quantile (nearest rank) of `xs`. */
const quantile = (xs: readonly number[], q: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(s.length * q) - 1))] ?? Number.NaN;
};

/** One quiet event's times: sent into the watch, seen entering the queue, reconcile started, finished. */
interface Sample {
  readonly sent: number;
  queued?: number;
  started?: number;
  finished?: number;
}

/** What one phase (alone or under the flood) measured. */
interface Phase {
  readonly total: readonly number[];
  readonly toQueue: readonly number[];
  readonly queueWait: readonly number[];
  readonly work: readonly number[];
  readonly loopP99: number;
  readonly loopMax: number;
  /** Event-loop utilisation over the phase (0–1): near 1, every timer is late. */
  readonly elu: number;
  /** Garbage collection over the phase: total ms, longest pause ms. */
  readonly gcMs: number;
  readonly gcMaxMs: number;
}

interface Row {
  readonly batch: number;
  readonly floodPerSec: number;
  readonly noisyPerSec: number;
  /** CPU per flood event, in µs: building its JSON line (the bench's part) and pushing it through watch, informer and queue (rxfleet's, synchronous). */
  readonly buildUs: number;
  readonly ingestUs: number;
  /** Share of the measure's wall time spent pushing flood events through rxfleet's ingestion. */
  readonly ingestShare: number;
  readonly alone: Phase;
  readonly crowded: Phase;
}

async function measureRate(batch: number): Promise<Row> {
  const quiet = feedCluster('quiet');
  const noisy = feedCluster('noisy');
  const samples = new Map<number, Sample>();
  let noisyReconciles = 0;
  const seqOf = (o: ConfigMap | undefined): number => Number(o?.data?.seq ?? -1);
  const c = controller<ConfigMap>({
    name: 'noisy-neighbour',
    provider: staticProvider([quiet.cluster, noisy.cluster]),
    resource: configMaps,
    select: { namespace: 'default' },
    watchOptions: { streamingList: false },
    queue: { concurrency: CONCURRENCY, ...(PER_CLUSTER === undefined ? {} : { perClusterConcurrency: PER_CLUSTER }) },
    // Only a timestamp: when the quiet event reaches the work queue (after watch and informer).
    filter: tap((ev) => {
      if (ev.type === 'applied' && ev.key.cluster === 'quiet') {
        const s = samples.get(seqOf(ev.object));
        if (s !== undefined) s.queued ??= performance.now();
      }
    }),
    reconcile: async (req) => {
      const s = req.cluster === 'quiet' ? samples.get(seqOf(req.object)) : undefined;
      if (s !== undefined) s.started = performance.now();
      await sleep(WORK_MS);
      if (s !== undefined) s.finished = performance.now();
      else noisyReconciles++;
      return done();
    },
  });
  const handle = await run(c, { logger: pino({ level: 'silent' }), signals: false, http: false });
  const loop = monitorEventLoopDelay({ resolution: 1 });
  const gcs: PerformanceEntry[] = [];
  const gcObserver = new PerformanceObserver((list) => gcs.push(...list.getEntries()));
  gcObserver.observe({ entryTypes: ['gc'] });
  let flood: NodeJS.Timeout | undefined;
  try {
    await eventually('both watches open', () => quiet.lines.observed && noisy.lines.observed, { timeoutMs: 10_000, intervalMs: 5 });
    let seq = 0;
    const measure = async (): Promise<Phase> => {
      samples.clear();
      loop.reset();
      loop.enable();
      gcs.length = 0;
      const elu0 = performance.eventLoopUtilization();
      for (let i = 0; i < SAMPLES; i++) {
        const s = seq++;
        samples.set(s, { sent: performance.now() });
        quiet.lines.next(line(`q-${s % 10}`, s));
        await sleep(QUIET_EVERY_MS);
      }
      const all = [...samples.values()];
      await eventually('every quiet reconcile', () => all.every((s) => s.finished !== undefined), { timeoutMs: 10_000, intervalMs: 5 });
      loop.disable();
      const elu = performance.eventLoopUtilization(elu0).utilization;
      const ok = all.filter((s): s is Required<Sample> => s.queued !== undefined && s.started !== undefined && s.finished !== undefined);
      return {
        total: ok.map((s) => s.finished - s.sent),
        toQueue: ok.map((s) => s.queued - s.sent),
        queueWait: ok.map((s) => s.started - s.queued),
        work: ok.map((s) => s.finished - s.started),
        loopP99: loop.percentile(99) / 1e6,
        loopMax: loop.max / 1e6,
        elu,
        gcMs: gcs.reduce((a, g) => a + g.duration, 0),
        gcMaxMs: gcs.reduce((a, g) => Math.max(a, g.duration), 0),
      };
    };
    const alone = await measure();
    let n = 0;
    let [buildMs, ingestMs] = [0, 0];
    flood = setInterval(() => {
      // Built first, then pushed, to tell the bench's cost (stringify) from rxfleet's (the push runs
      // watch decoding, informer and queue synchronously).
      const t0 = performance.now();
      const batchLines: string[] = [];
      for (let i = 0; i < batch; i++, n++) batchLines.push(line(`n-${n % NOISY_KEYS}`, n));
      const t1 = performance.now();
      for (const l of batchLines) noisy.lines.next(l);
      buildMs += t1 - t0;
      ingestMs += performance.now() - t1;
    }, FLOOD_EVERY_MS);
    // The flood is on and the queue busy before measuring.
    await eventually('the noisy cluster reconciling', () => noisyReconciles > 100, { timeoutMs: 10_000, intervalMs: 5 });
    const [events0, reconciles0, t0] = [n, noisyReconciles, performance.now()];
    [buildMs, ingestMs] = [0, 0];
    const crowded = await measure();
    const secs = (performance.now() - t0) / 1000;
    const noisyPerSec = (noisyReconciles - reconciles0) / secs;
    // The noisy cluster really kept the workers busy meanwhile, or the figure means nothing.
    if (noisyReconciles - reconciles0 <= SAMPLES) throw new Error(`noisy cluster reconciled only ${noisyReconciles - reconciles0} times during the measure`);
    const events = n - events0;
    return { batch, floodPerSec: events / secs, noisyPerSec, buildUs: (1000 * buildMs) / events, ingestUs: (1000 * ingestMs) / events, ingestShare: ingestMs / (1000 * secs), alone, crowded };
  } finally {
    clearInterval(flood);
    loop.disable();
    gcObserver.disconnect();
    await handle.stop({ deadlineMs: 0 });
  }
}

const ms = (x: number): string => x.toFixed(1);
const pair = (xs: readonly number[]): string => `${ms(quantile(xs, 0.5))} / ${ms(quantile(xs, 0.99))}`;
const k = (x: number): string => (x >= 1000 ? `${(x / 1000).toFixed(1)}k` : x.toFixed(0));

console.log(
  `noisy-neighbour benchmark: ${SAMPLES} quiet events every ${QUIET_EVERY_MS} ms, reconcile ${WORK_MS} ms (a timer), concurrency ${CONCURRENCY} ` +
    `(per cluster ${PER_CLUSTER ?? `default, ${defaultPerCluster(CONCURRENCY)}`}), ` +
    `flood over ${NOISY_KEYS} keys every ${FLOOD_EVERY_MS} ms, node ${process.version}`,
);
const rows: Row[] = [];
for (const batch of BATCHES) {
  const r = await measureRate(batch);
  rows.push(r);
  console.log(`  batch ${batch}: done (${k(r.floodPerSec)} events/s, ${k(r.noisyPerSec)} noisy reconciles/s)`);
}

console.log('\nQuiet cluster latency, event into the watch → reconcile finished (ms):\n');
console.log('| flood events/s (nominal → sent) | noisy reconciles/s | quiet p50 / p99 alone | quiet p50 / p99 under flood | p99 ratio | event-loop delay p99 alone → flood (max under flood) |');
console.log('| --- | ---: | ---: | ---: | ---: | ---: |');
for (const r of rows) {
  const ratio = quantile(r.crowded.total, 0.99) / quantile(r.alone.total, 0.99);
  const nominal = (r.batch * 1000) / FLOOD_EVERY_MS;
  console.log(
    `| ${k(nominal)} → ${k(r.floodPerSec)} | ${k(r.noisyPerSec)} | ${pair(r.alone.total)} | ${pair(r.crowded.total)} | ×${ratio.toFixed(2)} | ` +
      `${ms(r.alone.loopP99)} → ${ms(r.crowded.loopP99)} (${ms(r.crowded.loopMax)}) |`,
  );
}

console.log('\nThe event loop under the flood:\n');
console.log('| flood events/s | event-loop utilisation alone → flood | flood ingest CPU per event (rxfleet) | line building per event (bench) | loop time in ingest | GC ms alone → flood (longest pause) |');
console.log('| --- | ---: | ---: | ---: | ---: | ---: |');
for (const r of rows) {
  console.log(
    `| ${k((r.batch * 1000) / FLOOD_EVERY_MS)} | ${r.alone.elu.toFixed(2)} → ${r.crowded.elu.toFixed(2)} | ${r.ingestUs.toFixed(1)} µs | ${r.buildUs.toFixed(1)} µs | ` +
      `${(100 * r.ingestShare).toFixed(0)}% | ${ms(r.alone.gcMs)} → ${ms(r.crowded.gcMs)} (${ms(r.crowded.gcMaxMs)}) |`,
  );
}

console.log('\nWhere the quiet latency goes, p50 / p99 of each segment (ms; p99s of segments do not add up to the total p99):\n');
console.log('| flood events/s | phase | watch → queue | queue wait (fair queue, for a worker) | reconcile (10 ms timer) | total |');
console.log('| --- | --- | ---: | ---: | ---: | ---: |');
for (const r of rows) {
  for (const [name, p] of [['alone', r.alone], ['flood', r.crowded]] as const) {
    console.log(`| ${k((r.batch * 1000) / FLOOD_EVERY_MS)} | ${name} | ${pair(p.toQueue)} | ${pair(p.queueWait)} | ${pair(p.work)} | ${pair(p.total)} |`);
  }
}
