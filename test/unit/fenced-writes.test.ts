// A write the replica's fence refused is not the reconcile's failure: the queue reports the key
// `dropped` (not retried: its cluster is leaving this replica, and the next owner reconciles it),
// the log says once per 30 s that the replica lost its lease and the write was refused, at info,
// and no error series counts it.
import type { Logger } from 'pino';
import { tap } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { KubeError } from '../../src/core/errors.js';
import type { ConfigMap, ReconcileInput } from '../../src/index.js';
import { E } from '../../src/fp/index.js';
import { actionOf, clusterName, configMaps, error, objectKey } from '../../src/index.js';
import type { Outcome } from '../../src/operators/index.js';
import { reconcile } from '../../src/operators/index.js';
import { writeFence } from '../../src/runtime/ha/fence.js';
import { createLogLimiter } from '../../src/runtime/log-limiter.js';
import { controllerMetrics } from '../../src/runtime/metrics.js';
import { logOutcome } from '../../src/runtime/run-parts.js';
import { keyedEvents, toLabels } from '../../src/testing/index.js';
import { testScheduler } from '../support/marbles.js';
import { capturedLogger } from './log-capture.js';

const east = clusterName('east');
const west = clusterName('west');
const ev = keyedEvents(configMaps);

/** The fence of a replica whose lease is not valid, or that does not run `east` (but runs the rest). */
const refused = (why: 'lease' | 'cluster', cluster = east): KubeError => {
  const fence = writeFence({ leaseValid: () => why !== 'lease', runs: (c) => c !== east, identity: 'web-0-1a2b3c' });
  const e = fence.check(cluster);
  if (e === undefined) throw new Error('the fence let the write through');
  return e;
};

const capture = (): { log: Logger; lines: () => Record<string, unknown>[] } => {
  const { log, lines } = capturedLogger();
  return { log, lines: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>) };
};

const dropped = (cluster: typeof east, e: KubeError): Outcome => ({ key: objectKey(cluster, 'default', 'x'), cluster, result: 'dropped', attempt: 1, startedAt: 0, durationMs: 1, error: e, retryAfterMs: undefined });

describe('a fenced write', () => {
  it('ends its reconcile dropped, not retried, whether the reconciler called it terminal or not', () => {
    let runs = 0;
    const outcomes: Outcome[] = [];
    testScheduler().run(({ hot, expectObservable }) => {
      const input = hot<ReconcileInput<ConfigMap>>('a b', { a: ev.applied('east', 'default/a'), b: ev.applied('east', 'default/b') });
      const out = input.pipe(
        reconcile<ConfigMap>((req) => {
          runs += 1;
          // The sinks' way (a Left read by actionOf: terminal for a non-retryable tag), and a reconciler's own.
          return req.key.name === 'a' ? actionOf(E.left(refused('lease'))) : error(refused('lease'));
        }),
      );
      expectObservable(out.pipe(tap((o) => outcomes.push(o)), toLabels()), '^ 1s !').toBe('a b', { a: 'dropped east/default/a', b: 'dropped east/default/b' });
    });
    expect(runs).toBe(2); // one run per key: no retry
    expect(outcomes.map((o) => [o.result, (o.error as KubeError).type, o.retryAfterMs])).toEqual([
      ['dropped', 'Fenced', undefined],
      ['dropped', 'Fenced', undefined],
    ]);
  });

  it('is logged at info once per 30 s for all clusters, saying the lease was lost and the write refused, never as a terminal failure', () => {
    const { log, lines } = capture();
    let t = 0;
    const limiter = createLogLimiter({ now: () => t });
    for (const [at, cluster] of [[0, east], [0, west], [1_000, east], [20_000, west]] as const) {
      t = at;
      logOutcome(log, dropped(cluster, refused('lease', cluster)), limiter);
    }
    expect(lines()).toHaveLength(1);
    expect(lines()[0]).toMatchObject({ level: 30, cluster: 'east', result: 'dropped', msg: expect.stringMatching(/^write refused: this replica lost its lease; the reconcile is dropped here/) as string });
    expect(String(lines()[0]?.reason)).toContain('replica web-0-1a2b3c may not write: it has not renewed its lease');
    t = 31_000;
    logOutcome(log, dropped(west, refused('lease', west)), limiter);
    expect(lines()[1]).toMatchObject({ level: 30, repeated: 3 });
    // A cluster handed over says so; a failure still logs as one.
    logOutcome(log, dropped(east, refused('cluster')), limiter);
    expect(lines()[2]?.msg).toMatch(/^write refused: this cluster moved to another replica;/);
    expect(lines().filter((l) => l.level !== 30)).toEqual([]);
    expect(lines().some((l) => String(l.msg).includes('terminal'))).toBe(false);
  });

  it('counts as a dropped reconcile, never as a reconcile error', async () => {
    const m = controllerMetrics('fenced');
    testScheduler().run(({ hot, expectObservable }) => {
      const input = hot<ReconcileInput<ConfigMap>>('a', { a: ev.applied('east', 'default/a') });
      const out = input.pipe(reconcile<ConfigMap>(() => actionOf(E.left(refused('lease')))), tap((o) => { m.outcome(o); }));
      expectObservable(out.pipe(toLabels()), '^ 1s !').toBe('a', { a: 'dropped east/default/a' });
    });
    const text = await m.registry.metrics();
    expect(text).toContain('rxfleet_reconcile_total{result="dropped",controller="fenced"} 1');
    expect(text.split('\n').filter((l) => l.startsWith('rxfleet_reconcile_errors_total'))).toEqual([]);
  });
});
