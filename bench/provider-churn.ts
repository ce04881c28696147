// What one Namespace change costs a provider with N clusters engaged: the watch folded by object,
// the desired set and the engine, fed N listed Namespaces and then `BENCH_CHANGES` label changes of
// one Namespace each. The per-object path (objectChanges → desiredPerObject → engageChanges, what
// every watching provider uses) against the whole-set path they used before (a new snapshot →
// a desired set per change → engageCandidates).
// Run: npm run bench:provider-churn   (BENCH_CLUSTERS=100,2000, BENCH_CHANGES=2000)
import type { OperatorFunction } from 'rxjs';
import { asyncScheduler, map, scan, Subject } from 'rxjs';
import { clusterName } from '../src/core/cluster.js';
import type { Namespace } from '../src/core/object.js';
import { E } from '../src/internal/fp.js';
import type { Candidate } from '../src/providers/internal/candidates.js';
import { desiredPerObject } from '../src/providers/internal/desired-per-object.js';
import { engageCandidates, engageChanges } from '../src/providers/internal/engage.js';
import type { EngageConfig } from '../src/providers/internal/engage.js';
import type { ObjectChange } from '../src/providers/internal/objects.js';
import { objectChanges } from '../src/providers/internal/objects.js';
import type { WatchEvent } from '../src/streams/events.js';
import { fakeCluster } from '../src/testing/fleet.js';

const CHANGES = Number(process.env.BENCH_CHANGES ?? 2000);
const cfg: EngageConfig = { provider: 'bench', scheduler: asyncScheduler, probe: undefined, probeTimeoutMs: 1000, retryIntervalMs: 1000, removedReason: 'gone' };
const say = (): void => undefined;
const ns = (i: number, v: number): Namespace => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: `ns-${i}`, resourceVersion: String(v), labels: { v: String(v) } } });
const made = new WeakMap<Namespace, Candidate>();
const candidateOf = (o: Namespace): Candidate => {
  let c = made.get(o);
  if (c === undefined) {
    const name = o.metadata.name ?? '';
    made.set(o, (c = { name: clusterName(name), fingerprint: name, metaFingerprint: o.metadata.labels?.v ?? '', build: () => E.right(fakeCluster(name)) }));
  }
  return c;
};

/** The path the providers left: a new snapshot of every object per change (O(objects) per change). */
const wholeSets = (): OperatorFunction<ObjectChange<Namespace>, ReadonlyMap<string, Namespace>> =>
  scan((all: ReadonlyMap<string, Namespace>, c: ObjectChange<Namespace>): ReadonlyMap<string, Namespace> => {
    if (c.type === 'listed') return c.all;
    const next = new Map(all);
    if (c.type === 'set') next.set(c.id, c.object);
    else next.delete(c.id);
    return next;
  }, new Map<string, Namespace>());

/** µs per change after the listing, for one path. */
function run(n: number, path: 'per-object' | 'whole-set'): number {
  const watch = new Subject<WatchEvent<Namespace>>();
  const out = path === 'per-object'
    ? watch.pipe(objectChanges(), desiredPerObject(candidateOf), engageChanges(cfg, say))
    : watch.pipe(objectChanges(), wholeSets(), map((all) => new Map([...all.values()].map((o) => [candidateOf(o).name, candidateOf(o)]))), engageCandidates(cfg, say));
  let events = 0;
  const sub = out.subscribe(() => (events += 1));
  watch.next({ type: 'initStarted' });
  for (let i = 0; i < n; i += 1) watch.next({ type: 'initApply', object: ns(i, 1) });
  watch.next({ type: 'initDone' });
  const start = process.hrtime.bigint();
  for (let k = 0; k < CHANGES; k += 1) watch.next({ type: 'applied', object: ns(k % n, k + 2) });
  const us = Number(process.hrtime.bigint() - start) / 1000 / CHANGES;
  sub.unsubscribe();
  // Each change re-engages its cluster: a disengaged and an engaged event.
  if (events !== n + 2 * CHANGES) throw new Error(`${path} at ${n}: ${events} events, expected ${n + 2 * CHANGES}`);
  return us;
}

const sizes = (process.env.BENCH_CLUSTERS ?? '100,2000').split(',').map(Number);
console.log('| clusters | per-object µs per change | whole-set µs per change | ratio |');
console.log('|---:|---:|---:|---:|');
for (const n of sizes) {
  run(n, 'per-object');
  run(n, 'whole-set'); // warm both
  const a = run(n, 'per-object');
  const b = run(n, 'whole-set');
  console.log(`| ${n} | ${a.toFixed(1)} | ${b.toFixed(1)} | ${(b / a).toFixed(1)}× |`);
}
