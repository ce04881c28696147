// Which cluster may take a worker: the per-cluster cap (one noisy cluster never holds every
// worker) and the per-cluster gate (a rate-limited cluster waits in its lane, not in a worker).
import { tap } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { ClusterName, ConfigMap, ReconcileInput } from '../../src/index.js';
import { ConfigError, configMaps, done } from '../../src/index.js';
import type { Outcome } from '../../src/operators/index.js';
import { reconcile } from '../../src/operators/index.js';
import { keyedEvents, recorder, takes, toLabels } from '../../src/testing/index.js';
import { testScheduler } from '../support/marbles.js';

const ev = keyedEvents(configMaps);

/** `n` applied events of `cluster`, keyed by one letter each, from `first`. */
function burst(cluster: string, first: string, n: number): Record<string, ReconcileInput<ConfigMap>> {
  const out: Record<string, ReconcileInput<ConfigMap>> = {};
  for (let i = 0; i < n; i++) out[String.fromCharCode(first.charCodeAt(0) + i)] = ev.applied(cluster, `default/${cluster}-${i}`);
  return out;
}

/** Most runs of one cluster overlapping at any instant. */
function maxInFlight(calls: readonly { readonly key: { readonly cluster: string }; readonly startedAt: number; readonly endedAt: number | undefined }[], cluster: string): number {
  const mine = calls.filter((c) => c.key.cluster === cluster);
  return Math.max(0, ...mine.map((c) => mine.filter((o) => o.startedAt <= c.startedAt && (o.endedAt ?? Infinity) > c.startedAt).length));
}

describe('reconcile admission per cluster', () => {
  it('should keep a worker free of a noisy cluster by default, for a quiet key to start at once', () => {
    const rec = recorder<ConfigMap>(takes(10));
    testScheduler().run(({ hot }) => {
      // The group takes 8 frames: the quiet event comes at 8, while noisy keys fill 3 workers.
      const input = hot<ReconcileInput<ConfigMap>>('(abcdef) q', { ...burst('noisy', 'a', 6), q: ev.applied('quiet', 'default/q') });
      input.pipe(reconcile(rec.reconciler, { concurrency: 4 })).subscribe();
    });
    const starts = (cluster: string) => rec.calls.filter((c) => c.key.cluster === cluster).map((c) => c.startedAt);
    // noisy takes its cap, every worker but one (3 of 4), at 0 and 10; quiet starts the moment its
    // event arrives, on the one left free.
    expect(starts('noisy')).toEqual([0, 0, 0, 10, 10, 10]);
    expect(starts('quiet')).toEqual([8]);
    expect(maxInFlight(rec.calls, 'noisy')).toBe(3);
  });

  it('should give one cluster every worker when the cap is the concurrency, and refuse a bad cap', () => {
    const rec = recorder<ConfigMap>(takes(10));
    testScheduler().run(({ hot, expectObservable }) => {
      const input = hot<ReconcileInput<ConfigMap>>('(abcd)', burst('only', 'a', 4));
      expectObservable(input.pipe(reconcile(rec.reconciler, { concurrency: 4, perClusterConcurrency: 4 }), toLabels())).toBe('10ms (abcd)', {
        a: 'done only/default/only-0',
        b: 'done only/default/only-1',
        c: 'done only/default/only-2',
        d: 'done only/default/only-3',
      });
    });
    expect(maxInFlight(rec.calls, 'only')).toBe(4);
    expect(() => reconcile(() => done(), { perClusterConcurrency: 0 })).toThrow(ConfigError);
    expect(() => reconcile(() => done(), { perClusterConcurrency: 1.5 })).toThrow(ConfigError);
  });

  it('should leave a gated cluster out of the rotation while the others run, then let it proceed', () => {
    const ts = testScheduler();
    const rec = recorder<ConfigMap>(takes(10));
    const asked: [string, number][] = [];
    // Cluster a may not start anything before 1 s; b never waits.
    const clusterGate = (cluster: ClusterName): number => {
      asked.push([cluster, ts.now()]);
      return cluster === 'a' ? Math.max(0, 1000 - ts.now()) : 0;
    };
    const outcomes: [number, string][] = [];
    ts.run(({ hot }) => {
      const input = hot<ReconcileInput<ConfigMap>>('(abcdefghijklmnopqrst)', { ...burst('a', 'a', 10), ...burst('b', 'k', 10) });
      input
        .pipe(
          reconcile(rec.reconciler, { concurrency: 10, perClusterConcurrency: 10, clusterGate }),
          tap((o: Outcome) => outcomes.push([ts.now(), `${o.result} ${o.cluster}`])),
        )
        .subscribe();
    });
    // Every key of b ran at once, taking all 10 workers; a's 10 ready keys took none until 1 s.
    expect(rec.calls.filter((c) => c.key.cluster === 'b').map((c) => c.startedAt)).toEqual(Array(10).fill(0));
    expect(rec.calls.filter((c) => c.key.cluster === 'a').map((c) => c.startedAt)).toEqual(Array(10).fill(1000));
    expect(outcomes.filter(([at]) => at === 10)).toEqual(Array(10).fill([10, 'done b']));
    expect(outcomes.filter(([at]) => at === 1010)).toEqual(Array(10).fill([1010, 'done a']));
    // Asked once when a's lane first came up, once when its wait ended, then once per start: no busy loop.
    expect(asked.filter(([c]) => c === 'a').map(([, at]) => at)).toEqual([0, 1000, ...Array<number>(9).fill(1000)]);
    expect(asked.filter(([c]) => c === 'b')).toHaveLength(10);
  });

  it('should forget a gated cluster that leaves, and ask a gate that answers forever again after 60 s', () => {
    const ts = testScheduler();
    const rec = recorder<ConfigMap>(takes(10));
    const asked: [string, number][] = [];
    const clusterGate = (cluster: ClusterName): number => {
      asked.push([cluster, ts.now()]);
      return Infinity;
    };
    ts.run(({ hot }) => {
      const input = hot<ReconcileInput<ConfigMap>>('(ab) 99ms x', { a: ev.applied('gone', 'default/a'), b: ev.applied('stuck', 'default/b'), x: ev.removed('gone') });
      // The gate never opens: the queue would ask it for ever, so stop watching at 130 s.
      const sub = input.pipe(reconcile(rec.reconciler, { clusterGate })).subscribe();
      ts.schedule(() => {
        sub.unsubscribe();
      }, 130_000);
    });
    expect(rec.calls).toEqual([]);
    expect(asked).toEqual([
      ['gone', 0],
      ['stuck', 0],
      ['stuck', 60_000],
      ['stuck', 120_000],
    ]);
  });
});
