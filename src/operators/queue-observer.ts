// What `reconcile`'s work queue tells a metrics collector, beyond the depth snapshot: the events a
// controller-runtime work queue counts (adds, retries, ready → start latency), and a probe into the
// reconciles running now, read when metrics are scraped rather than on every event.
import type { ClusterName } from '../core/cluster.js';

/**
 * The reconciles running at one instant, as a probe computes them on demand.
 *
 * @example
 * ```ts
 * const w: RunningWork = { count: 2, unfinishedMs: 1500, longestMs: 1200 };
 * ```
 */
export interface RunningWork {
  /** Reconciles running now. */
  readonly count: number;
  /** Summed time the running reconciles have been running, in ms (controller-runtime's unfinished work). */
  readonly unfinishedMs: number;
  /** How long the longest-running reconcile has been running, in ms; 0 when none runs. */
  readonly longestMs: number;
}

/**
 * A live view of one subscription's work queue, handed to {@link QueueObserver.attach}. Cheap to
 * hold; each call walks only the running reconciles (at most `concurrency`).
 *
 * @example
 * ```ts
 * const probe: QueueProbe = { concurrency: 10, perClusterConcurrency: 5, running: () => ({ count: 0, unfinishedMs: 0, longestMs: 0 }) };
 * ```
 */
export interface QueueProbe {
  /** The queue's `concurrency`. */
  readonly concurrency: number;
  /** The queue's per-cluster cap (`perClusterConcurrency`, at most `concurrency`). */
  readonly perClusterConcurrency: number;
  /** The reconciles running now, timed on the queue's scheduler. */
  running(): RunningWork;
}

/**
 * Hooks of {@link reconcile}'s work queue, for controller-runtime-style workqueue metrics. Every
 * hook is optional and called synchronously; keep them cheap (a counter increment), they run per
 * event and per start.
 *
 * @example
 * ```ts
 * let adds = 0;
 * const observer: QueueObserver = { added: () => adds++, started: (cluster: ClusterName, queuedMs: number) => latency.observe(queuedMs / 1000) };
 * reconcile(fn, { observer });
 * ```
 */
export interface QueueObserver {
  /**
   * A key was queued: a change that did not collapse into work already pending (client-go's
   * `adds`), or a retry or requeue whose time came.
   */
  readonly added?: (cluster: ClusterName) => void;
  /** A failed reconcile was scheduled to run again after its backoff (client-go's `retries`). */
  readonly retried?: (cluster: ClusterName) => void;
  /** A reconcile started after its key waited `queuedMs` ready in the queue (ready → start). */
  readonly started?: (cluster: ClusterName, queuedMs: number) => void;
  /** The queue started (one call per subscription); read `probe` when scraping. */
  readonly attach?: (probe: QueueProbe) => void;
  /** The queue with this probe stopped (completed, failed or unsubscribed). */
  readonly detach?: (probe: QueueProbe) => void;
}
