import fc from 'fast-check';
import { asyncScheduler, merge, NEVER, map, takeUntil, tap, timer } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { Action, ConfigMap, ReconcileInput } from '../../src/index.js';
import { configMaps, done, error, formatKey, terminal } from '../../src/index.js';
import type { QueueDepth, Reconciler } from '../../src/operators/index.js';
import { reconcile } from '../../src/operators/index.js';
import { keyedEvents } from '../../src/testing/index.js';
import { testScheduler } from '../support/marbles.js';

const ev = keyedEvents(configMaps);
const clusters = ['c0', 'c1', 'c2'];
const names = ['default/k0', 'default/k1', 'default/k2', 'k3'];

const scenario = fc.record({
  events: fc.array(
    fc.record({
      at: fc.nat({ max: 80 }),
      cluster: fc.nat({ max: clusters.length - 1 }),
      name: fc.nat({ max: names.length - 1 }),
      kind: fc.constantFrom('applied', 'applied', 'applied', 'deleted', 'enqueue', 'removed'),
    }),
    { maxLength: 40 },
  ),
  // Consumed in order by successive runs; once exhausted every run takes 3 frames and succeeds.
  runs: fc.array(fc.record({ frames: fc.nat({ max: 20 }), result: fc.constantFrom('done', 'error', 'error', 'terminal') }), { maxLength: 40 }),
  concurrency: fc.integer({ min: 1, max: 4 }),
  perCluster: fc.integer({ min: 1, max: 4 }),
  // Whether idle workers are lent to a cluster at its cap (the default) or the cap is hard.
  lend: fc.boolean(),
  // One cluster held back by its gate for a while (a per-cluster rate limit).
  gate: fc.option(fc.record({ cluster: fc.nat({ max: clusters.length - 1 }), from: fc.nat({ max: 80 }), length: fc.integer({ min: 1, max: 60 }) }), { nil: undefined }),
  debounce: fc.option(fc.record({ wait: fc.integer({ min: 1, max: 10 }), extra: fc.nat({ max: 20 }) }), { nil: undefined }),
});

describe('reconcile, under random interleavings', () => {
  it('should keep every per-key invariant of the work queue', () => {
    fc.assert(
      fc.property(scenario, (sc) => {
        let seq = 0;
        const lastEvent = new Map<string, number>();
        const lastRemoval = new Map<string, number>();
        const eventSeqs = new Map<string, number[]>();
        const retried = (a: Action) => a.type === 'error' && !a.terminal;
        interface Run {
          readonly start: number;
          readonly action: Action;
          completed: boolean;
        }
        const runsByKey = new Map<string, Run[]>();
        const inFlight = new Map<string, number>();
        let maxInFlight = 0;
        const clusterInFlight = new Map<string, number>();
        let maxClusterInFlight = 0;
        let running = 0;
        // Starts beyond a cluster's cap: with the cap hard, any; when lent, one that took the last idle worker.
        const overCap: string[] = [];
        const cap = Math.min(sc.perCluster, sc.concurrency);
        const gatedStarts: string[] = [];
        const gatedCluster = sc.gate === undefined ? undefined : clusters[sc.gate.cluster];
        const inGate = (cluster: string, at: number) => sc.gate !== undefined && cluster === gatedCluster && at >= sc.gate.from && at < sc.gate.from + sc.gate.length;
        let lastDepth: QueueDepth | undefined;
        let script = 0;

        const reconciler: Reconciler<ConfigMap> = (req) => {
          const id = formatKey(req.key);
          const step = sc.runs[script++] ?? { frames: 3, result: 'done' };
          const action = step.result === 'done' ? done() : step.result === 'error' ? error('boom') : terminal('bad');
          const run: Run = { start: ++seq, action, completed: false };
          runsByKey.set(id, [...(runsByKey.get(id) ?? []), run]);
          const n = (inFlight.get(id) ?? 0) + 1;
          inFlight.set(id, n);
          maxInFlight = Math.max(maxInFlight, n);
          const cn = (clusterInFlight.get(req.key.cluster) ?? 0) + 1;
          clusterInFlight.set(req.key.cluster, cn);
          maxClusterInFlight = Math.max(maxClusterInFlight, cn);
          running++;
          if (cn > cap && (!sc.lend || running > sc.concurrency - 1)) overCap.push(`${id} at ${asyncScheduler.now()}: ${cn} of its cluster, ${running} in all`);
          if (inGate(req.key.cluster, asyncScheduler.now())) gatedStarts.push(`${id} at ${asyncScheduler.now()}`);
          let settled = false;
          const settle = (completed: boolean) => {
            if (settled) return;
            settled = true;
            run.completed = completed;
            inFlight.set(id, (inFlight.get(id) ?? 1) - 1);
            clusterInFlight.set(req.key.cluster, (clusterInFlight.get(req.key.cluster) ?? 1) - 1);
            running--;
          };
          return timer(step.frames).pipe(
            map(() => action),
            tap({ complete: () => { settle(true); }, finalize: () => { settle(false); } }),
          );
        };

        testScheduler().run(() => {
          const inputs = sc.events.map((e) =>
            timer(e.at).pipe(
              map((): ReconcileInput<ConfigMap> => {
                const c = clusters[e.cluster] ?? 'c0';
                const n = names[e.name] ?? 'k3';
                if (e.kind === 'removed') return ev.removed(c);
                if (e.kind === 'deleted') return ev.deleted(c, n);
                if (e.kind === 'enqueue') return ev.enqueue(c, n);
                return ev.applied(c, n);
              }),
              tap((input) => {
                const s = ++seq;
                if (input.type === 'clusterRemoved') {
                  lastRemoval.set(input.cluster, s);
                } else {
                  const id = formatKey(input.key);
                  lastEvent.set(id, s);
                  eventSeqs.set(id, [...(eventSeqs.get(id) ?? []), s]);
                }
              }),
            ),
          );
          const debounce = sc.debounce === undefined ? undefined : { waitMs: sc.debounce.wait, maxWaitMs: sc.debounce.wait + sc.debounce.extra };
          merge(...inputs, NEVER)
            .pipe(
              reconcile(reconciler, {
                concurrency: sc.concurrency,
                perClusterConcurrency: sc.perCluster,
                lendIdleWorkers: sc.lend,
                clusterGate: (cluster) => (sc.gate !== undefined && inGate(cluster, asyncScheduler.now()) ? sc.gate.from + sc.gate.length - asyncScheduler.now() : 0),
                backoff: { initialMs: 1, maxMs: 20 },
                onDepth: (d) => (lastDepth = d),
                ...(debounce === undefined ? {} : { debounce }),
              }),
              takeUntil(timer(5_000)),
            )
            .subscribe();
        });

        // Never two runs of one key at once.
        expect(maxInFlight).toBeLessThanOrEqual(1);
        // Never more of one cluster at once than its cap (lent workers aside, and never the last idle
        // one), and nothing of a cluster while its gate is shut.
        expect(overCap).toEqual([]);
        if (!sc.lend) expect(maxClusterInFlight).toBeLessThanOrEqual(cap);
        expect(gatedStarts).toEqual([]);
        for (const [id, runs] of runsByKey) {
          const events = eventSeqs.get(id) ?? [];
          // Every run has a cause: an event since the previous start, or the previous run failed.
          // (Adds that collapse into one pending entry never yield two runs.)
          runs.forEach((run, i) => {
            const prev = runs[i - 1];
            const since = prev?.start ?? 0;
            const caused = events.some((s) => s > since && s < run.start) || (prev?.completed === true && retried(prev.action));
            expect(caused, `run ${i} of ${id} had no cause`).toBe(true);
          });
        }
        // Every key changed after its last run started, and not removed since, is reconciled again.
        for (const [id, last] of lastEvent) {
          const cluster = decodeURIComponent(/^cluster:\/\/([^/]+)\//.exec(id)?.[1] ?? '');
          if ((lastRemoval.get(cluster) ?? 0) > last) continue;
          const ok = (runsByKey.get(id) ?? []).some((r) => r.start > last && r.completed && !retried(r.action));
          expect(ok, `${id} changed at ${last} but was not reconciled afterwards`).toBe(true);
        }
        // Idle in the end: no state left for any key.
        if (lastDepth !== undefined) expect(lastDepth).toEqual({ keys: 0, ready: 0, running: 0, waiting: 0 });
      }),
      { numRuns: 300 },
    );
  });
});
