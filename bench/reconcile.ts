// Throughput and idle memory of `reconcile`, against the plain RxJS pipeline it replaces
// (groupBy + debounceTime + mergeMap). Run with `npm run bench:reconcile`; see bench/README.md.
import { groupBy, mergeMap, debounceTime, Subject } from 'rxjs';
import type { Observable } from 'rxjs';
import type { ConfigMap, ReconcileInput } from '../src/index.js';
import { clusterName, configMaps, done, formatKey, objectKey } from '../src/index.js';
import type { Outcome } from '../src/operators/index.js';
import { reconcile } from '../src/operators/index.js';

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run with --expose-gc (npm run bench:reconcile does)');
const collect = gc;

const EVENTS = Number(process.env.BENCH_EVENTS ?? 1_000_000);
const SIZES = (process.env.BENCH_KEYS ?? '1000,10000,100000').split(',').map(Number);
const CLUSTERS = 10;
const DEBOUNCE = 5;

function makeEvents(keys: number): ReconcileInput<ConfigMap>[] {
  const out: ReconcileInput<ConfigMap>[] = [];
  for (let i = 0; i < keys; i++) {
    const key = objectKey(clusterName(`c${i % CLUSTERS}`), 'default', `cm-${i}`);
    out.push({ type: 'applied', key, resource: configMaps, object: { metadata: { name: key.name, namespace: 'default' } } });
  }
  return out;
}

function heapMb(): number {
  collect();
  collect();
  return process.memoryUsage().heapUsed / 2 ** 20;
}

interface Result {
  readonly ingestPerSec: number;
  readonly endToEndPerSec: number;
  readonly outputs: number;
  readonly heapIdleDeltaMb: number;
}

// Pushes EVENTS events round-robin over the keys, synchronously, then waits until `expected`
// outputs arrived and the pipeline has been idle for a while; measures the heap while the
// subscription is still alive (a controller never unsubscribes).
async function run(name: string, events: readonly ReconcileInput<ConfigMap>[], build: (input: Observable<ReconcileInput<ConfigMap>>) => Observable<unknown>): Promise<Result> {
  const base = heapMb();
  const input = new Subject<ReconcileInput<ConfigMap>>();
  let outputs = 0;
  let resolveDone: () => void = () => undefined;
  const finished = new Promise<void>((r) => (resolveDone = r));
  const sub = build(input).subscribe(() => {
    if (++outputs === events.length) resolveDone();
  });
  const t0 = performance.now();
  for (let i = 0; i < EVENTS; i++) {
    const ev = events[i % events.length];
    if (ev !== undefined) input.next(ev);
  }
  const t1 = performance.now();
  await finished;
  const t2 = performance.now();
  await new Promise((r) => setTimeout(r, 50));
  const idle = heapMb();
  sub.unsubscribe();
  const r = { ingestPerSec: EVENTS / ((t1 - t0) / 1000), endToEndPerSec: EVENTS / ((t2 - t0) / 1000), outputs, heapIdleDeltaMb: idle - base };
  console.log(`  ${name.padEnd(34)} ingest ${fmt(r.ingestPerSec)} ev/s   end-to-end ${fmt(r.endToEndPerSec)} ev/s   heap after idle ${mb(r.heapIdleDeltaMb)}`);
  return r;
}

const mb = (d: number) => `${d >= 0 ? '+' : ''}${d.toFixed(1)} MB`;
const fmt = (n: number) => (n >= 1e6 ? `${(n / 1e6).toFixed(2)}M` : `${(n / 1e3).toFixed(0)}k`).padStart(7);

const ours = (input: Observable<ReconcileInput<ConfigMap>>): Observable<Outcome> =>
  input.pipe(reconcile(() => done(), { concurrency: 100, debounce: { waitMs: DEBOUNCE } }));
const oursNoDebounce = (input: Observable<ReconcileInput<ConfigMap>>): Observable<Outcome> =>
  input.pipe(reconcile(() => Promise.resolve(done()), { concurrency: 100 }));
const baseline = (input: Observable<ReconcileInput<ConfigMap>>): Observable<unknown> =>
  input.pipe(
    groupBy((ev) => (ev.type === 'clusterRemoved' ? '' : formatKey(ev.key))),
    mergeMap((g) => g.pipe(debounceTime(DEBOUNCE))),
    mergeMap(() => [done()], 100),
  );

console.log(`reconcile benchmark: ${EVENTS.toLocaleString()} events per run, ${CLUSTERS} clusters, debounce ${DEBOUNCE} ms, node ${process.version}`);
for (const keys of SIZES) {
  console.log(`\n${keys.toLocaleString()} keys`);
  const events = makeEvents(keys);
  const b = await run('groupBy+debounceTime+mergeMap', events, baseline);
  const o = await run('reconcile (debounce)', events, ours);
  // Without debounce, with an async no-op: adds collapse while a key is queued or in flight.
  const n = await run('reconcile (no debounce, async no-op)', events, (i) => oursNoDebounce(i));
  console.log(
    `  ratio reconcile/baseline: ingest ×${(o.ingestPerSec / b.ingestPerSec).toFixed(2)}, end-to-end ×${(o.endToEndPerSec / b.endToEndPerSec).toFixed(2)}; ` +
      `idle heap ${mb(o.heapIdleDeltaMb)} vs ${mb(b.heapIdleDeltaMb)} (no-debounce run ${mb(n.heapIdleDeltaMb)})`,
  );
}
