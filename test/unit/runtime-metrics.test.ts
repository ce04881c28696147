// The controller metrics under churn and at fleet scale: a departed cluster leaves no series behind,
// the per-cluster reconcile-duration histogram is opt-in, and the queue gauges count each key once.
import type { Observable } from 'rxjs';
import { NEVER, Subject, VirtualTimeScheduler, filter, interval, map, of, takeUntil, takeWhile, timer } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { kubeError } from '../../src/client/index.js';
import type { ClusterName, ReconcileInput } from '../../src/index.js';
import { clusterName, configMaps, done, error, objectKey } from '../../src/index.js';
import { enqueue, reconcile } from '../../src/operators/index.js';
import type { ControllerMetrics, ControllerMetricsOptions } from '../../src/runtime/metrics.js';
import { controllerMetrics } from '../../src/runtime/metrics.js';
import type { OutcomeResult } from '../../src/operators/types.js';
import type { WatchHealth } from '../../src/streams/index.js';
import { watchSignals } from '../../src/streams/index.js';
import { E } from '../../src/fp/index.js';

const outcome = (m: ControllerMetrics, cluster: ClusterName, result: OutcomeResult, cause?: unknown): void => {
  m.outcome({ key: objectKey(cluster, 'default', 'web'), cluster, result, attempt: 1, startedAt: 0, durationMs: 12, error: cause, retryAfterMs: undefined });
};

// Everything a cluster writes while engaged: watch health (with relists and interruptions), each kind
// of outcome, writes that succeed and fail, and requests of every kind of result.
function busyCluster(m: ControllerMetrics, cluster: ClusterName): void {
  m.watchHealth({ cluster, resource: 'configmaps', state: 'connected', synced: true, relists: 1, reconnects: 2, interruptions: 1 }, undefined);
  m.watchHealth({ cluster, resource: 'secrets', state: 'backingOff', synced: false, relists: 0, reconnects: 1, interruptions: 1 }, undefined);
  outcome(m, cluster, 'done');
  outcome(m, cluster, 'error', kubeError('Conflict', cluster, 'the object has been modified'));
  outcome(m, cluster, 'terminal', new Error('bad spec'));
  m.write(cluster, 'apply', 'ok');
  m.write(cluster, 'delete', 'NotFound');
  m.request(cluster, 'watch', '2xx');
  m.request(cluster, 'apply', '2xx');
  m.request(cluster, 'get', '4xx');
  m.request(cluster, 'list', 'ClusterUnreachable');
}

/** The series of a /metrics text: every sample line without its value. */
const seriesOf = (text: string): string[] =>
  text
    .split('\n')
    .filter((l) => l !== '' && !l.startsWith('#'))
    .map((l) => l.slice(0, l.lastIndexOf(' ')))
    .sort();

/** The value of the one sample whose series is exactly `series`. */
const valueOf = (text: string, series: string): number => {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  if (line === undefined) throw new Error(`no series ${series} in:\n${text}`);
  return Number(line.slice(series.length + 1));
};

describe('controllerMetrics under churn', () => {
  for (const options of [{}, { perClusterHistograms: true }] satisfies ControllerMetricsOptions[]) {
    it(`leaves /metrics as it was after 1,000 clusters came and went (${JSON.stringify(options)})`, async () => {
      const m = controllerMetrics('churn', undefined, options);
      const stayer = clusterName('stayer');
      busyCluster(m, stayer);
      // run() reports the reconciles a departing cluster had running after the keeper forgot it.
      outcome(m, clusterName('left-earlier'), 'dropped');
      m.engaged(1);
      const baseline = await m.registry.metrics();

      for (let i = 0; i < 1000; i++) {
        const cluster = clusterName(`workspace-${i}`);
        m.engaged(2);
        busyCluster(m, cluster);
        m.forget(cluster, ['configmaps', 'secrets']);
        outcome(m, cluster, 'dropped');
        m.engaged(1);
      }

      const after = await m.registry.metrics();
      expect(seriesOf(after)).toEqual(seriesOf(baseline));
      expect(after).toContain('cluster="stayer"'); // only the departed clusters went
      // Fleet-wide series keep counting departed clusters' reconciles (their counts gain a few
      // digits: the dropped-result histogram and the work-duration histogram, ~16 lines each);
      // every per-cluster line is as it was. Before the fix, each cluster left ~1.8 KB behind.
      const changed = after.split('\n').filter((l) => !baseline.split('\n').includes(l));
      expect(changed.filter((l) => l.includes('cluster='))).toEqual([]);
      expect(after.length - baseline.length).toBeLessThan(512);
    });
  }
});

describe('controllerMetrics cardinality', () => {
  it('labels the reconcile-duration histogram by controller and result only, and by cluster too when asked', async () => {
    const east = clusterName('east');
    const fleetWide = controllerMetrics('lean');
    const perCluster = controllerMetrics('detailed', undefined, { perClusterHistograms: true });
    for (const m of [fleetWide, perCluster]) outcome(m, east, 'done');
    const lean = (await fleetWide.registry.metrics()).split('\n').filter((l) => l.startsWith('rxfleet_reconcile_duration_seconds'));
    const detailed = (await perCluster.registry.metrics()).split('\n').filter((l) => l.startsWith('rxfleet_reconcile_duration_seconds'));
    // prom-client orders default labels after its own on _count and _sum: compare label sets.
    const countLabels = (lines: string[]) => lines.find((l) => l.startsWith('rxfleet_reconcile_duration_seconds_count'))?.match(/\w+="[^"]*"/g)?.sort();
    expect(countLabels(lean)).toEqual(['controller="lean"', 'result="done"']);
    expect(lean.filter((l) => l.includes('cluster='))).toEqual([]);
    expect(countLabels(detailed)).toEqual(['cluster="east"', 'controller="detailed"', 'result="done"']);
    expect(detailed.filter((l) => !l.startsWith('#') && !l.includes('cluster="east"'))).toEqual([]);
    // Counters stay per cluster either way.
    expect(await fleetWide.registry.metrics()).toContain('rxfleet_reconcile_total{cluster="east",result="done",controller="lean"} 1');
  });

  it('keeps /metrics under 1 MB at 2,000 clusters, with the requests each one really sends', async () => {
    const m = controllerMetrics('fleet-controller');
    for (let i = 0; i < 2000; i++) {
      const cluster = clusterName(`cluster-${String(i).padStart(4, '0')}`);
      outcome(m, cluster, 'done');
      m.watchHealth({ cluster, resource: 'apps/v1/deployments', state: 'connected', synced: true, relists: 0, reconnects: 0, interruptions: 0 }, undefined);
      m.write(cluster, 'apply', 'ok');
      // What the transport counts for such a cluster: its watch's list and watch, the apply.
      m.request(cluster, 'list', '2xx');
      m.request(cluster, 'watch', '2xx');
      m.request(cluster, 'apply', '2xx');
    }
    m.engaged(2000);
    const text = await m.registry.metrics();
    // 4.7 MB and 40,005 series when the histogram was labelled by cluster.
    expect(text.length).toBeLessThan(1_000_000);
    expect(seriesOf(text).length).toBeLessThan(10_000);
  });

  it('keeps /metrics under 1 MB at 2,000 clusters after the server renewed every watch at its timeoutSeconds', async () => {
    const m = controllerMetrics('fleet-controller');
    const scheduler = new VirtualTimeScheduler();
    const last = new Map<ClusterName, WatchHealth>();
    for (let i = 0; i < 2000; i++) {
      const cluster = clusterName(`cluster-${String(i).padStart(4, '0')}`);
      outcome(m, cluster, 'done');
      // The server ends each watch at the timeoutSeconds it asked for (jittered per request, 5 to
      // 10 minutes): a routine renewal, as every healthy watch has after its first minutes.
      feed(m, renewedOnce(cluster, scheduler, (i % 100) / 100, (timeoutSeconds) => serverWatch(scheduler, timeoutSeconds * 1_000)), last);
      m.write(cluster, 'apply', 'ok');
      // What the transport counts for such a cluster: its watch's list and watches, the apply.
      m.request(cluster, 'list', '2xx');
      m.request(cluster, 'watch', '2xx');
      m.request(cluster, 'apply', '2xx');
    }
    m.engaged(2000);
    scheduler.flush();
    expect([...last.values()].filter((h) => h.state === 'connected' && h.synced && h.reconnects === 1), 'watches renewed and open again').toHaveLength(2000);
    const text = await m.registry.metrics();
    // Before interruptions replaced reconnects: 1.07 MB and 10,064 series.
    expect(text.length).toBeLessThan(1_000_000);
    expect(seriesOf(text).length).toBeLessThan(10_000);
    // The four series of a healthy cluster with one watch (docs/guide.md): synced, healthy, reconciles, requests.
    expect(seriesOf(text).filter((l) => l.includes('cluster="cluster-0000"'))).toHaveLength(4);
  });

  it('counts an interrupted watch in rxfleet_watch_interruptions_total, and a renewed one nowhere', async () => {
    const m = controllerMetrics('fleet-controller');
    const scheduler = new VirtualTimeScheduler();
    const last = new Map<ClusterName, WatchHealth>();
    // A proxy's idle timeout ends the watch cleanly after a minute, long before its timeoutSeconds.
    feed(m, renewedOnce(clusterName('cut'), scheduler, 0.5, () => serverWatch(scheduler, 90_000)), last);
    feed(m, renewedOnce(clusterName('renewed'), scheduler, 0.5, (timeoutSeconds) => serverWatch(scheduler, timeoutSeconds * 1_000)), last);
    scheduler.flush();
    expect([...last.values()].map((h) => h.reconnects)).toEqual([1, 1]);
    const text = await m.registry.metrics();
    expect(valueOf(text, 'rxfleet_watch_interruptions_total{cluster="cut",resource="configmaps",controller="fleet-controller"}')).toBe(1);
    expect(text).not.toContain('rxfleet_watch_interruptions_total{cluster="renewed"');
  });
});

const bookmark = JSON.stringify({ type: 'BOOKMARK', object: { kind: 'ConfigMap', apiVersion: 'v1', metadata: { resourceVersion: '1' } } });

/** A quiet watch as a server serves it: a bookmark every minute, ended cleanly after `endsAfterMs`. */
const serverWatch = (scheduler: VirtualTimeScheduler, endsAfterMs: number): Observable<string> =>
  interval(60_000, scheduler).pipe(
    map(() => bookmark),
    takeUntil(timer(endsAfterMs, scheduler)),
  );

/** Records every health snapshot in the metrics with the one before it, as run() does, and keeps the last. */
function feed(m: ControllerMetrics, health: Observable<WatchHealth>, last: Map<ClusterName, WatchHealth>): void {
  health.subscribe((h) => {
    m.watchHealth(h, last.get(h.cluster));
    last.set(h.cluster, h);
  });
}

/**
 * The health of a configmaps watch, in `scheduler`'s virtual time, that lists, opens a watch ending
 * as `first` says (given the timeoutSeconds it asked for, drawn with `random`), and opens the next:
 * it ends with the health reported as that next watch opens.
 */
function renewedOnce(cluster: ClusterName, scheduler: VirtualTimeScheduler, random: number, first: (timeoutSeconds: number) => Observable<string>): Observable<WatchHealth> {
  let watches = 0;
  const source = {
    list: () => of(E.right({ metadata: { resourceVersion: '1' }, items: [] })),
    watch: (o: { timeoutSeconds?: number }) => (watches++ === 0 ? first(o.timeoutSeconds ?? 0) : NEVER),
  };
  return watchSignals(source, { cluster, resource: configMaps, streamingList: false, scheduler, random: () => random }).pipe(
    filter((s) => s.type === 'health'),
    map((s) => s.health),
    takeWhile((h) => h.reconnects === 0, true),
  );
}

describe('controllerMetrics queue depth', () => {
  it('counts every key the queue holds exactly once', async () => {
    const m = controllerMetrics('queue');
    const scheduler = new VirtualTimeScheduler();
    const input = new Subject<ReconcileInput>();
    const east = clusterName('east');
    const key = (name: string) => enqueue(objectKey(east, 'default', name), configMaps);
    const outcomes = input
      .pipe(
        reconcile((req) => (req.key.name === 'flaky' ? error(new Error('flaky')) : req.key.name === 'slow' ? NEVER : done()), {
          concurrency: 1,
          scheduler,
          onDepth: (d) => {
            m.depth(d);
          },
        }),
      )
      .subscribe();
    // flaky fails and waits for its backoff (virtual time never advances), slow runs forever,
    // a and b are ready behind it; repeats collapse into the keys already held.
    for (const name of ['flaky', 'slow', 'a', 'b', 'slow', 'a']) input.next(key(name));
    const text = await m.registry.metrics();
    outcomes.unsubscribe();

    const state = (s: string) => valueOf(text, `rxfleet_workqueue_depth{state="${s}",controller="queue"}`);
    expect({ ready: state('ready'), running: state('running'), waiting: state('waiting') }).toEqual({ ready: 2, running: 1, waiting: 1 });
    expect(valueOf(text, 'rxfleet_workqueue_keys{controller="queue"}')).toBe(4);
    // Summing the gauge over `state` gives the keys held, not twice as many.
    const sum = text.split('\n').filter((l) => l.startsWith('rxfleet_workqueue_depth{')).reduce((n, l) => n + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
    expect(sum).toBe(4);
  });
});
