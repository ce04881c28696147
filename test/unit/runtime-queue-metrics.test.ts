// controller-runtime's workqueue metrics, read from the registry after a scripted run of the real
// work queue in virtual time: adds, retries, ready → start latency, work duration, and the running
// work computed when /metrics is scraped.
import { pino } from 'pino';
import { map, NEVER, of, Subject, timer, VirtualAction, VirtualTimeScheduler } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { kubeError } from '../../src/client/index.js';
import { E } from '../../src/fp/index.js';
import type { ConfigMap, KubeObject, ObjectList, ReconcileInput } from '../../src/index.js';
import { clusterName, configMaps, controller, done, error, objectKey, run } from '../../src/index.js';
import { enqueue, reconcile } from '../../src/operators/index.js';
import { maxErrorClasses } from '../../src/runtime/error-class.js';
import { controllerMetrics } from '../../src/runtime/metrics.js';
import type { ListerWatcher } from '../../src/streams/index.js';
import { staticProvider } from '../../src/streams/index.js';
import { fakeCluster } from '../../src/testing/index.js';
import { eventually } from '../support/wait.js';

/** The value of the one sample whose series is exactly `series`. */
const valueOf = (text: string, series: string): number => {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  if (line === undefined) throw new Error(`no series ${series} in:\n${text}`);
  return Number(line.slice(series.length + 1));
};

const east = clusterName('east');
const key = (name: string) => enqueue(objectKey(east, 'default', name), configMaps);

describe('workqueue metrics', () => {
  it('should count adds and retries, time the queue and the work, and read running work when scraped', async () => {
    const m = controllerMetrics('queue');
    const scheduler = new VirtualTimeScheduler(VirtualAction, 30);
    const input = new Subject<ReconcileInput>();
    let flakyRuns = 0;
    const sub = input
      .pipe(
        reconcile(
          (req) => {
            if (req.key.name === 'flaky') return ++flakyRuns === 1 ? error(new Error('flaky')) : done();
            if (req.key.name === 'slow') return timer(50, scheduler).pipe(map(() => done()));
            return done();
          },
          { concurrency: 1, scheduler, observer: m.queue, onDepth: (d) => { m.depth(d); } },
        ),
      )
      .subscribe((o) => {
        m.outcome(o);
      });
    // At 0: flaky fails (retry in 5 ms), slow starts and runs 50 ms, a and b wait behind it; the
    // repeats of a and slow collapse into work already pending (no add).
    for (const name of ['flaky', 'slow', 'a', 'b', 'a', 'slow']) input.next(key(name));
    scheduler.schedule(() => undefined, 30);
    scheduler.flush(); // to 30 ms: flaky's retry came due at 5 and waits behind a and b

    const during = await m.registry.metrics();
    const metric = (name: string) => valueOf(during, `${name}{controller="queue"}`);
    // flaky, slow, a, b, slow again (changed while running), and flaky's retry when due.
    expect(metric('rxfleet_workqueue_adds_total')).toBe(6);
    expect(metric('rxfleet_workqueue_retries_total')).toBe(1);
    expect(metric('rxfleet_workqueue_unfinished_work_seconds')).toBeCloseTo(0.03);
    expect(metric('rxfleet_workqueue_longest_running_processor_seconds')).toBeCloseTo(0.03);
    expect(metric('rxfleet_active_workers')).toBe(1);
    expect(metric('rxfleet_max_concurrent_reconciles')).toBe(1);
    expect(metric('rxfleet_workqueue_queue_duration_seconds_count')).toBe(2);

    scheduler.maxFrames = Infinity;
    scheduler.flush();
    const after = await m.registry.metrics();
    const end = (name: string) => valueOf(after, `${name}{controller="queue"}`);
    // Starts: flaky and slow at 0 (no wait), then at 50 a (waited 50 ms), b (50), flaky (45, ready
    // since its retry came due at 5), and slow's rerun (0: ready when its first run ended).
    expect(end('rxfleet_workqueue_queue_duration_seconds_count')).toBe(6);
    expect(end('rxfleet_workqueue_queue_duration_seconds_sum')).toBeCloseTo(0.145);
    expect(valueOf(after, 'rxfleet_workqueue_queue_duration_seconds_bucket{le="0.001",controller="queue"}')).toBe(3);
    expect(end('rxfleet_workqueue_adds_total')).toBe(6);
    // slow ran 50 ms twice; every other run took no virtual time.
    expect(end('rxfleet_workqueue_work_duration_seconds_count')).toBe(6);
    expect(end('rxfleet_workqueue_work_duration_seconds_sum')).toBeCloseTo(0.1);
    expect(end('rxfleet_workqueue_unfinished_work_seconds')).toBe(0);
    expect(end('rxfleet_workqueue_longest_running_processor_seconds')).toBe(0);
    expect(end('rxfleet_active_workers')).toBe(0);
    expect(end('rxfleet_workqueue_retries_total')).toBe(1);

    sub.unsubscribe();
    // The stopped queue's probe is gone: no configured workers left to report.
    expect(valueOf(await m.registry.metrics(), 'rxfleet_max_concurrent_reconciles{controller="queue"}')).toBe(0);
  });

  it('should label the queue latency by cluster only when asked, and remove it when the cluster leaves', async () => {
    const lean = controllerMetrics('lean');
    const detailed = controllerMetrics('detailed', undefined, { perClusterHistograms: true });
    for (const m of [lean, detailed]) {
      m.queue.started?.(east, 20);
      m.queue.started?.(clusterName('west'), 10);
    }
    const leanText = await lean.registry.metrics();
    expect(leanText.split('\n').filter((l) => l.startsWith('rxfleet_workqueue') && l.includes('cluster='))).toEqual([]);
    expect(valueOf(leanText, 'rxfleet_workqueue_queue_duration_seconds_count{controller="lean"}')).toBe(2);
    // prom-client puts default labels before or after its own depending on the line: match label sets.
    const count = (text: string, cluster: string) =>
      text.split('\n').find((l) => l.startsWith('rxfleet_workqueue_queue_duration_seconds_count{') && l.includes(`cluster="${cluster}"`))?.split(' ')[1];
    expect(count(await detailed.registry.metrics(), 'east')).toBe('1');
    detailed.forget(east);
    const left = await detailed.registry.metrics();
    expect(left).not.toContain('cluster="east"');
    expect(count(left, 'west')).toBe('1');
  });

  it('should label reconcile errors by a bounded set of classes', async () => {
    const m = controllerMetrics('errors');
    const fail = (cause: unknown) => {
      m.outcome({ key: objectKey(east, 'default', 'web'), cluster: east, result: 'error', attempt: 1, startedAt: 0, durationMs: 1, error: cause, retryAfterMs: 5 });
    };
    fail(kubeError('Conflict', east, 'the object has been modified'));
    fail(new TypeError('x'));
    fail('a string');
    fail({ type: 'made-up-tag-42' });
    // Reconcilers that make a new class name per failure must not make a series per failure.
    for (let i = 0; i < 50; i++) {
      const e = new Error(`failure ${i}`);
      e.name = `Generated${i}`;
      fail(e);
    }
    const text = await m.registry.metrics();
    const reasons = new Set(text.split('\n').filter((l) => l.startsWith('rxfleet_reconcile_errors_total{')).map((l) => /reason="([^"]*)"/.exec(l)?.[1]));
    expect([...reasons].filter((r) => r !== undefined && !r.startsWith('Generated')).sort()).toEqual(['Conflict', 'Other', 'TypeError', 'object', 'string']);
    expect(reasons.size).toBe(maxErrorClasses + 4);
    expect(valueOf(text, 'rxfleet_reconcile_errors_total{cluster="east",result="error",reason="Other",controller="errors"}')).toBe(50 - (maxErrorClasses - 1));
  });

  it('should be fed by run(): a controller serves the workqueue metrics of its queue', async () => {
    const items = ['a', 'b', 'c'].map((name): ConfigMap => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default', uid: `u-${name}`, resourceVersion: '1' } }));
    const source = <T extends KubeObject>(): ListerWatcher<T> => ({
      list: () => of(E.right({ metadata: { resourceVersion: '1' }, items } as unknown as ObjectList<T>)),
      watch: () => NEVER,
    });
    const c = controller<ConfigMap>({
      name: 'wired',
      provider: staticProvider([fakeCluster('east')]),
      resource: configMaps,
      reconcile: () => done(),
      queue: { concurrency: 6 },
      watchOptions: { streamingList: false, listerWatcherFor: source },
    });
    const handle = await run(c, { logger: pino({ level: 'silent' }), signals: false, http: false });
    try {
      // The three listed objects are reconciled soon after the start.
      const text = await eventually('three reconciles counted', async () => {
        const now = await handle.metrics.registry.metrics();
        return valueOf(now, 'rxfleet_workqueue_work_duration_seconds_count{controller="wired"}') >= 3 && now;
      }, { timeoutMs: 5_000 });
      expect(valueOf(text, 'rxfleet_workqueue_adds_total{controller="wired"}')).toBe(3);
      expect(valueOf(text, 'rxfleet_workqueue_queue_duration_seconds_count{controller="wired"}')).toBe(3);
      expect(valueOf(text, 'rxfleet_max_concurrent_reconciles{controller="wired"}')).toBe(6);
    } finally {
      await handle.stop({ deadlineMs: 0 });
    }
  });
});
