// controller-runtime's workqueue and worker metrics for one controller's `reconcile` queue, fed by
// the queue's observer hooks. Counters move per event; the running-work gauges are computed from
// the queue's probe when /metrics is scraped. Labelled by `controller` only (a registry default
// label), except the queue-latency histogram, by `cluster` too when per-cluster histograms are on.
import type { Registry } from 'prom-client';
import { Counter, Gauge, Histogram } from 'prom-client';
import type { QueueObserver, QueueProbe } from '../operators/queue-observer.js';
import type { ClusterSeries } from './cluster-series.js';

/** Latency buckets, in seconds: from 1 ms (a free worker) to 5 min (a long backlog). */
const latencyBuckets = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];

/**
 * The workqueue metrics and what feeds them.
 *
 * @example
 * ```ts
 * const q = queueMetrics([registry], false, new ClusterSeries());
 * reconcile(fn, { observer: q.observer });
 * ```
 */
export interface QueueMetrics {
  /** Hooks to hand to `reconcile` as `observer`. */
  readonly observer: QueueObserver;
  /** Records a finished reconcile's duration (controller-runtime's work duration). */
  worked(durationMs: number): void;
  /** Notes the busy workers (the gauge reads it when scraped). */
  workers(running: number): void;
}

/**
 * Creates the workqueue metrics on `registers`:
 * - `rxfleet_workqueue_adds_total`: keys queued (changes not collapsed into pending work, and
 *   retries and requeues when their time comes)
 * - `rxfleet_workqueue_retries_total`: failed reconciles scheduled again after their backoff
 * - `rxfleet_workqueue_queue_duration_seconds`: ready → start latency (by `cluster` too with
 *   `perClusterHistograms`)
 * - `rxfleet_workqueue_work_duration_seconds`: reconcile durations, all results together
 * - `rxfleet_workqueue_unfinished_work_seconds`: seconds of work in progress not yet observed by
 *   the work duration; growing steadily means stuck reconciles
 * - `rxfleet_workqueue_longest_running_processor_seconds`: how long the longest running
 *   reconcile has been running
 * - `rxfleet_active_workers`, `rxfleet_max_concurrent_reconciles`: busy and configured workers
 *
 * @example
 * ```ts
 * const q = queueMetrics([registry], false, new ClusterSeries());
 * q.observer.added?.(clusterName('east'));
 * ```
 * @param registers - the registries to register on.
 * @param perCluster - label the queue-latency histogram by cluster too.
 * @param series - where per-cluster series are noted, to be removed when their cluster leaves.
 * @returns the metrics.
 */
export function queueMetrics(registers: Registry[], perCluster: boolean, series: ClusterSeries): QueueMetrics {
  // Usually one: a queue per controller run; several only if the pipeline is subscribed again.
  const probes = new Set<QueueProbe>();
  const sum = (f: (p: QueueProbe) => number): number => [...probes].reduce((n, p) => n + f(p), 0);
  const adds = new Counter({ name: 'rxfleet_workqueue_adds_total', help: 'Keys queued: changes not collapsed into pending work, and retries and requeues when due.', registers });
  const retries = new Counter({ name: 'rxfleet_workqueue_retries_total', help: 'Failed reconciles scheduled to run again after their backoff.', registers });
  const queued = new Histogram({
    name: 'rxfleet_workqueue_queue_duration_seconds',
    help: perCluster ? 'Time a key waited ready in the queue before its reconcile started, by cluster.' : 'Time a key waited ready in the queue before its reconcile started.',
    labelNames: perCluster ? ['cluster'] : [],
    buckets: latencyBuckets,
    registers,
  });
  const work = new Histogram({ name: 'rxfleet_workqueue_work_duration_seconds', help: 'Reconcile durations, every result together.', buckets: latencyBuckets, registers });
  new Gauge({
    name: 'rxfleet_workqueue_unfinished_work_seconds',
    help: 'Seconds of work in progress not yet observed by work_duration; a steady rise means stuck reconciles.',
    registers,
    collect() {
      this.set(sum((p) => p.running().unfinishedMs) / 1000);
    },
  });
  new Gauge({
    name: 'rxfleet_workqueue_longest_running_processor_seconds',
    help: 'How long the longest running reconcile has been running.',
    registers,
    collect() {
      this.set(Math.max(0, ...[...probes].map((p) => p.running().longestMs)) / 1000);
    },
  });
  // Set at every queue change, read when scraped.
  let running = 0;
  new Gauge({
    name: 'rxfleet_active_workers',
    help: 'Reconciles running now.',
    registers,
    collect() {
      this.set(running);
    },
  });
  new Gauge({
    name: 'rxfleet_max_concurrent_reconciles',
    help: 'Reconciles allowed at once (the queue’s concurrency).',
    registers,
    collect() {
      this.set(sum((p) => p.concurrency));
    },
  });

  return {
    observer: {
      added: () => {
        adds.inc();
      },
      retried: () => {
        retries.inc();
      },
      started: (cluster, queuedMs) => {
        if (!perCluster) {
          queued.observe(queuedMs / 1000);
          return;
        }
        queued.observe({ cluster }, queuedMs / 1000);
        series.note(queued, 'queued', { cluster });
      },
      attach: (probe) => {
        probes.add(probe);
      },
      detach: (probe) => {
        probes.delete(probe);
      },
    },
    worked(durationMs) {
      work.observe(durationMs / 1000);
    },
    workers(n) {
      running = n;
    },
  };
}
