// Prometheus metrics of one controller, on a registry of its own (never prom-client's global one),
// so tests and several controllers in one process never clash. Every per-cluster series carries a
// `cluster` label and goes when its cluster leaves; every series carries `controller`. Cardinality
// is what an operator can afford at thousands of clusters (about 1 MB of /metrics at 2,000): four
// series for a healthy cluster with one watch at any age (its reconciles, its watch synced and
// healthy, its requests), more only once something fails (interruptions, relists, failed requests,
// errors, denied keys, throttling); no label crossed with `cluster` but a bounded few
// (`result`, `resource`, `reason`); the reconcile-duration histogram (16 series per label set)
// per cluster only when asked for.
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { ClusterName } from '../core/cluster.js';
import type { QueueObserver } from '../operators/queue-observer.js';
import type { ProviderReport } from '../streams/provider-report.js';
import type { WatchHealth } from '../streams/watch-health.js';
import type { Outcome, QueueDepth } from '../operators/types.js';
import { ClusterSeries } from './cluster-series.js';
import { errorClassifier } from './error-class.js';
import { failingCluster } from './failing-cluster.js';
import { fleetSeries, idleFleetSeries } from './fleet-series.js';
import { queueMetrics } from './queue-metrics.js';
import type { Verb, WriteVerb } from '../core/verb.js';
import { unsentResult } from './unsent-result.js';
import { writeRequestsCounter } from './request-series.js';

/**
 * Options of {@link controllerMetrics} (and `RunOptions.metrics`).
 *
 * @example
 * ```ts
 * const m = controllerMetrics('fanout-status', undefined, { perClusterHistograms: true });
 * ```
 */
export interface ControllerMetricsOptions {
  /**
   * Labels `rxfleet_reconcile_duration_seconds` and `rxfleet_workqueue_queue_duration_seconds` by
   * `cluster` too. Default `false`: the reconcile histogram is labelled by `controller` and `result` only, because 16 series per cluster and result make
   * `/metrics` grow by about 1.9 KB per cluster (4.7 MB instead of 0.85 MB at 2,000 clusters).
   * Turn it on for small fleets where per-cluster latency matters more than the scrape's size.
   */
  readonly perClusterHistograms?: boolean;
  /**
   * Serve prom-client's default process and runtime metrics (`process_*`, `nodejs_*`: CPU, RSS,
   * heap, event-loop lag, GC) beside the controller's. Default `true` in `run`/`main`; a registry
   * shared by several controllers gets them once. Read by `run`, not by `controllerMetrics`.
   */
  readonly processMetrics?: boolean;
}

/**
 * The metrics of one running controller and the calls that feed them. `registry.metrics()` is what
 * `/metrics` serves. Every series labelled by `cluster` is removed when that cluster leaves.
 *
 * Series (all with `controller`):
 * - `rxfleet_reconcile_total{cluster,result}`, and `{result="dropped"}` without `cluster` (a
 *   dropped reconcile's cluster has left the fleet, or is leaving this replica: its write was
 *   fenced; neither is counted in `rxfleet_reconcile_errors_total`)
 * - `rxfleet_reconcile_duration_seconds{result}`, or `{cluster,result}` with
 *   `perClusterHistograms` (see `ControllerMetricsOptions`)
 * - `rxfleet_reconcile_errors_total{cluster,result,reason}` (`result` is `error` or `terminal`,
 *   `reason` the error's class: a `KubeError` or `WriteError` tag such as `Conflict`, else the
 *   Error's name for the first 16 names, else `Other`; see `errorClassifier`)
 * - `rxfleet_workqueue_depth{state}` (`ready`, `running`, `waiting`): each key held is in exactly
 *   one state, so the sum over `state` is the number of keys held; the queue is shared by the
 *   fleet, so it has no cluster label
 * - `rxfleet_workqueue_keys`: distinct keys held by the queue (the same sum, as one series)
 * - controller-runtime's workqueue and worker metrics, by `controller` only (see `queueMetrics`):
 *   `rxfleet_workqueue_adds_total`, `rxfleet_workqueue_retries_total`,
 *   `rxfleet_workqueue_queue_duration_seconds` (ready → start; by `cluster` too with
 *   `perClusterHistograms`), `rxfleet_workqueue_work_duration_seconds`,
 *   `rxfleet_workqueue_unfinished_work_seconds`, `rxfleet_workqueue_longest_running_processor_seconds`
 *   (both computed at scrape time), `rxfleet_active_workers`, `rxfleet_max_concurrent_reconciles`
 * - `rxfleet_watch_relists_total`, `rxfleet_watch_interruptions_total` (open watches that failed
 *   or ended before their `timeoutSeconds`: never a routine renewal, so a healthy watch has no
 *   such series at any age; nor an attempt that never opened, counted in `rxfleet_requests_total`,
 *   so an unreachable cluster has none either), `rxfleet_watch_synced`, `rxfleet_watch_healthy` (0 while the watch
 *   fails, from a failure until a list or event comes through: what makes its cluster `unhealthy`
 *   on /readyz), each `{cluster,resource}`
 * - `rxfleet_engaged_clusters`
 * - `rxfleet_requests_total{verb,result}` and `rxfleet_cluster_requests_total{cluster,result}`:
 *   every request the run sent, counted by the transport (reads, watches and writes of its
 *   watches, sinks, reconcilers, providers and Leases), by verb for the fleet as a whole and by
 *   cluster (one series for a cluster whose requests all succeed): `cluster` is never crossed with
 *   `verb`, which would make 3 series or more per cluster (list, watch, apply) and /metrics about
 *   1.4 MB at 2,000 clusters. `verb`: get, list, watch, create, update, patch, apply, delete;
 *   `result`: the HTTP status class (`2xx`, `4xx`…) or the error tag of a request no answer came
 *   to. `cluster` is the client's: a provider's own clients (its management cluster, a kcp
 *   endpoint's wildcard URL, forgotten when the endpoint goes) have series of their own, and a
 *   cluster that borrows another's client (a namespace) counts under the lender's name
 * - `rxfleet_write_requests_total{verb,result}`: the writes this controller's sinks sent
 *   (`verb`: create, update, apply, patch, delete; `result`: `ok` or the error's tag), by
 *   controller where `rxfleet_requests_total` cannot tell controllers apart; not by cluster (its
 *   requests are in `rxfleet_cluster_requests_total`, its refused writes in
 *   `rxfleet_reconcile_errors_total` and `rxfleet_reconcile_denied_keys`)
 * - `rxfleet_writes_unsent_total{verb}`: writes not sent because the cache proved they would
 *   change nothing (an `apply` whose fields this controller already owns with those values)
 * - `rxfleet_reconcile_denied_keys{cluster}`: keys waiting to retry a request the server refused
 *   in that cluster (401/403), on the queue's slow `authBackoff`; the cluster is `unhealthy` on
 *   /readyz meanwhile. Present only while above 0 (one series per such cluster)
 *
 * @example
 * ```ts
 * const m = controllerMetrics('baseline');
 * m.engaged(2);
 * console.log(await m.registry.metrics());
 * ```
 */
export interface ControllerMetrics {
  /** The registry holding every series of this controller. */
  readonly registry: Registry;
  /** Counts a finished reconcile. */
  outcome(o: Outcome): void;
  /** Sets the queue depth gauges. */
  depth(d: QueueDepth): void;
  /** The work queue's hooks: pass as `ReconcileOptions.observer` to feed the workqueue metrics. */
  readonly queue: QueueObserver;
  /** Records a watch's health; the relist and interruption counters advance by the growth since `previous`. */
  watchHealth(h: WatchHealth, previous: WatchHealth | undefined): void;
  /** Sets the engaged-clusters gauge. */
  engaged(count: number): void;
  /** Counts one request a transport sent (a `RequestRecorder`: `run` puts it in effect for all it starts). */
  request(cluster: ClusterName, verb: Verb, result: string): void;
  /**
   * Counts one write request of this controller's sinks and its result (`ok` or an error tag), by
   * verb (`cluster` is not a label of it); the result `unsent` counts a write the cache proved
   * needless, in `rxfleet_writes_unsent_total`.
   */
  write(cluster: ClusterName, verb: WriteVerb, result: string): void;
  /** Sets how many keys wait to retry a request `cluster` refused (401/403); 0 removes the series. */
  denied(cluster: ClusterName, keys: number): void;
  /**
   * Removes every series of a cluster that left: counters, gauges and histograms written with its
   * `cluster` label (should it come back, its counters restart from 0, which `rate()` reads as a
   * counter reset). `resources` is ignored: every series written is tracked, whatever the resource.
   */
  forget(cluster: ClusterName, resources?: readonly string[]): void;
  /** Counts a provider report by provider and type. */
  report(r: ProviderReport): void;
}

/**
 * Creates the metrics of one controller on a new registry (or the one given).
 *
 * @example
 * ```ts
 * const m = controllerMetrics('fanout-status');
 * m.write(clusterName('east'), 'apply', 'ok');
 * ```
 * @param controller - the controller's name, the `controller` label of every series.
 * @param registry - a registry to use instead of a fresh one (to serve several controllers at once).
 * @param options - cardinality choices: see `ControllerMetricsOptions`.
 * @returns the metrics.
 */
export function controllerMetrics(controller: string, registry: Registry = new Registry(), options: ControllerMetricsOptions = {}): ControllerMetrics {
  return scopedMetrics(controller, registry, options, 'all');
}

/**
 * Which series a metrics object keeps: `all` (one controller's run), `fleet` (the series of the
 * run's shared fleet: watches, engaged clusters, provider reports) or `reconcile` (one controller's
 * queue, reconciles and writes, beside others in a run of several controllers).
 *
 * @example
 * ```ts
 * const scope: MetricsScope = 'reconcile';
 * ```
 */
export type MetricsScope = 'all' | 'fleet' | 'reconcile';

/**
 * {@link controllerMetrics} keeping only the series of one scope; the other scope's calls do
 * nothing. A run of several controllers keeps one `fleet` object and one `reconcile` object per
 * controller, each on its own registry, so no series is written twice and none is misattributed.
 *
 * @example
 * ```ts
 * const shared = scopedMetrics('agent', new Registry(), {}, 'fleet');
 * ```
 * @param controller - the `controller` label of every series.
 * @param registry - where the series go.
 * @param options - cardinality choices.
 * @param scope - which series.
 * @returns the metrics.
 */
export function scopedMetrics(controller: string, registry: Registry, options: ControllerMetricsOptions, scope: MetricsScope): ControllerMetrics {
  registry.setDefaultLabels({ controller });
  const registers = [registry];
  const series = new ClusterSeries();
  const work = scope === 'fleet' ? idleReconcileSeries : reconcileSeries(registers, options.perClusterHistograms === true, series);
  const shared = scope === 'reconcile' ? idleFleetSeries : fleetSeries(registers, series);
  return {
    registry,
    ...work,
    ...shared,
    forget(cluster) {
      series.forget(cluster);
    },
  };
}

type ReconcileSeries = Pick<ControllerMetrics, 'outcome' | 'depth' | 'queue' | 'write' | 'denied'>;
const nothing = (): void => undefined;
const idleReconcileSeries: ReconcileSeries = { outcome: nothing, depth: nothing, write: nothing, denied: nothing, queue: {} };

function reconcileSeries(registers: Registry[], perCluster: boolean, series: ClusterSeries): ReconcileSeries {
  const reasonOf = errorClassifier();
  const reconciles = new Counter({ name: 'rxfleet_reconcile_total', help: 'Finished reconciles by cluster and result.', labelNames: ['cluster', 'result'], registers });
  const durations = new Histogram({
    name: 'rxfleet_reconcile_duration_seconds',
    help: perCluster ? 'Reconcile durations by cluster and result.' : 'Reconcile durations by result.',
    labelNames: perCluster ? ['cluster', 'result'] : ['result'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers,
  });
  const errors = new Counter({ name: 'rxfleet_reconcile_errors_total', help: 'Failed reconciles by cluster, result and error tag.', labelNames: ['cluster', 'result', 'reason'], registers });
  // The queue reports its depth after every change (several times per reconciled object): the
  // latest report is kept, and the gauges read it when /metrics is scraped.
  let latest: QueueDepth | undefined;
  new Gauge({
    name: 'rxfleet_workqueue_depth',
    help: 'Keys held by the work queue, by state (each key in one state).',
    labelNames: ['state'],
    registers,
    collect() {
      if (latest === undefined) return;
      this.set({ state: 'ready' }, latest.ready);
      this.set({ state: 'running' }, latest.running);
      this.set({ state: 'waiting' }, latest.waiting);
    },
  });
  new Gauge({
    name: 'rxfleet_workqueue_keys',
    help: 'Distinct keys held by the work queue.',
    registers,
    collect() {
      if (latest !== undefined) this.set(latest.keys);
    },
  });
  const writes = writeRequestsCounter(registers);
  const unsent = new Counter({ name: 'rxfleet_writes_unsent_total', help: 'Writes not sent because the cache proved they would change nothing, by verb.', labelNames: ['verb'], registers });
  const denied = new Gauge({ name: 'rxfleet_reconcile_denied_keys', help: 'Keys waiting to retry a request the cluster refused (401/403); the cluster is unhealthy on /readyz meanwhile.', labelNames: ['cluster'], registers });
  const queue = queueMetrics(registers, perCluster, series);
  return {
    queue: queue.observer,
    outcome(o) {
      queue.worked(o.durationMs);
      if (o.result === 'dropped') {
        // Its cluster has left, or is leaving (a fenced write), and the keeper may have forgotten it
        // already: a per-cluster series written now would never be removed, so dropped reconciles
        // are counted fleet-wide.
        reconciles.inc({ result: o.result });
        durations.observe({ result: o.result }, o.durationMs / 1000);
        return;
      }
      const labels = { cluster: o.cluster, result: o.result };
      reconciles.inc(labels);
      series.note(reconciles, 'reconciles', labels);
      if (perCluster) {
        durations.observe(labels, o.durationMs / 1000);
        series.note(durations, 'durations', labels);
      } else durations.observe({ result: o.result }, o.durationMs / 1000);
      if (o.result === 'error' || o.result === 'terminal') {
        // Labelled with the cluster that failed: for a fan-out, the member, not the hub.
        const withReason = { cluster: failingCluster(o), result: o.result, reason: reasonOf(o.error) };
        errors.inc(withReason);
        series.note(errors, 'errors', withReason);
      }
    },
    depth(d) {
      // `keys` is the total of the states, not a state of its own: under `state` it was counted
      // twice by any sum over the gauge.
      latest = d;
      queue.workers(d.running);
    },
    // By controller, not by cluster: a series per cluster each would cost ~100 B per cluster of
    // /metrics for what rxfleet_cluster_requests_total and the reconcile series already say.
    write(_cluster, verb, result) {
      // Not a request: counted apart, so a sum of the requests stays one.
      if (result === unsentResult) unsent.inc({ verb });
      else writes.inc({ verb, result });
    },
    denied(cluster, count) {
      if (count === 0) {
        denied.remove({ cluster });
        return;
      }
      denied.set({ cluster }, count);
      series.note(denied, 'denied', { cluster });
    },
  };
}
