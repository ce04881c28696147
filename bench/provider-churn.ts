// What one Namespace change costs a provider with N clusters engaged: the watch folded by object,
// the desired set and the engine, fed N listed Namespaces and then `BENCH_CHANGES` label changes of
// one Namespace each. The per-object path (objectChanges → desiredPerObject → engageChanges, what
// the namespaces and kubeconfig-secrets providers use) against the whole-set path (snapshots →
// a desired set per change → engageCandidates, which cluster-api and cluster-profiles still use).
// Run: npm run bench:provider-churn   (BENCH_CLUSTERS=100,2000, BENCH_CHANGES=2000)
import { asyncScheduler, map, Subject } from 'rxjs';
import { clusterName } from '../src/core/cluster.js';
import type { Namespace } from '../src/core/object.js';
import { E } from '../src/internal/fp.js';
import type { Candidate } from '../src/providers/internal/candidates.js';
import { desiredPerObject } from '../src/providers/internal/desired-per-object.js';
import { engageCandidates, engageChanges } from '../src/providers/internal/engage.js';
import type { EngageConfig } from '../src/providers/internal/engage.js';
import { objectChanges, snapshots } from '../src/providers/internal/objects.js';
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

/** µs per change after the listing, for one path. */
function run(n: number, path: 'per-object' | 'whole-set'): number {
  const watch = new Subject<WatchEvent<Namespace>>();
  const out = path === 'per-object'
    ? watch.pipe(objectChanges(), desiredPerObject(candidateOf), engageChanges(cfg, say))
    : watch.pipe(snapshots(), map((all) => new Map([...all.values()].map((o) => [candidateOf(o).name, candidateOf(o)]))), engageCandidates(cfg, say));
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
