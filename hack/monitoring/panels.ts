// The panels of deploy/monitoring/dashboard.json, by row: what each shows, as PromQL on the series a
// controller serves on /metrics (src/runtime/metrics.ts, queue-metrics.ts, process-metrics.ts,
// ha/replica-runtime.ts). test/integration/monitoring-series.test.ts checks every metric and label
// named here against a running controller's /metrics, and that every rxfleet metric it serves is named
// here or by an alert. `$controller` and `$cluster` are the
// dashboard's variables (regexes, `.*` for All).

/** One query of a panel: PromQL and its legend (`{{ label }}`, with spaces: see dashboard.ts). */
export interface Query {
  readonly expr: string;
  readonly legend?: string;
}

/** A panel: a stat (one number) or a time series, `w` of 24 columns wide. */
export interface Panel {
  readonly title: string;
  readonly description: string;
  readonly type: 'stat' | 'timeseries';
  readonly unit: string;
  readonly w: number;
  readonly queries: readonly Query[];
}

/** A row of panels under a title. */
export interface Row {
  readonly title: string;
  readonly panels: readonly Panel[];
}

const c = 'controller=~"$controller"';
const cc = `${c},cluster=~"$cluster"`;
const rate = (series: string): string => `rate(${series}[$__rate_interval])`;
const p = (q: number, series: string, by: string): string => `histogram_quantile(${q}, sum by (${by}) (${rate(series)}))`;
const stat = (title: string, description: string, unit: string, expr: string): Panel => ({ title, description, type: 'stat', unit, w: 4, queries: [{ expr }] });
const series = (title: string, description: string, unit: string, queries: readonly Query[], w = 12): Panel => ({ title, description, type: 'timeseries', unit, w, queries });

/** Clusters whose watches fail (or have not synced), as /readyz counts them: 0 when none. */
const clustersWhere = (metric: string): string => `count(min by (controller, cluster) (${metric}{${c}}) == 0) or vector(0)`;

/**
 * The dashboard's rows, top to bottom.
 *
 * @example
 * ```ts
 * for (const r of rows) console.log(r.title, r.panels.length);
 * ```
 */
export const rows: readonly Row[] = [
  {
    title: 'Overview',
    panels: [
      stat('Clusters engaged', 'Clusters engaged, every replica together (a standby engages none).', 'none', `sum(rxfleet_engaged_clusters{${c}})`),
      stat('Clusters unhealthy', 'Clusters with a watch failing since its last good list or event (/readyz: unhealthy).', 'none', clustersWhere('rxfleet_watch_healthy')),
      stat('Clusters not synced', 'Clusters with a watch that has not delivered its first full list.', 'none', clustersWhere('rxfleet_watch_synced')),
      stat('Reconciles / s', 'Finished reconciles per second, every result.', 'ops', `sum(${rate(`rxfleet_reconcile_total{${c}}`)})`),
      stat('Reconcile error ratio', 'Failed reconciles over reconciles (dropped ones left out).', 'percentunit', `sum(${rate(`rxfleet_reconcile_errors_total{${c}}`)}) / sum(${rate(`rxfleet_reconcile_total{${c},result!="dropped"}`)})`),
      stat('Replicas leading', 'Replicas leading (leader election) or with a confirmed share (sharding). Empty for a single replica.', 'none', `sum(rxfleet_replica_leading{${c}})`),
    ],
  },
  {
    title: 'Reconciles',
    panels: [
      series('Reconcile rate by cluster and result', 'Finished reconciles per second. `dropped` (no cluster): the cluster left, or the write was fenced.', 'ops', [
        { expr: `sum by (cluster, result) (${rate(`rxfleet_reconcile_total{${cc}}`)})`, legend: '{{ cluster }} {{ result }}' },
      ]),
      series('Reconcile errors by cluster and reason', 'Failed reconciles per second by the cluster that failed and the error class (KubeError tag, or the Error name).', 'ops', [
        { expr: `sum by (cluster, result, reason) (${rate(`rxfleet_reconcile_errors_total{${cc}}`)})`, legend: '{{ cluster }} {{ reason }} ({{ result }})' },
      ]),
      series('Reconcile duration', 'Reconcile durations by result, 50th and 99th percentile.', 's', [
        { expr: p(0.5, `rxfleet_reconcile_duration_seconds_bucket{${c}}`, 'le, result'), legend: 'p50 {{ result }}' },
        { expr: p(0.99, `rxfleet_reconcile_duration_seconds_bucket{${c}}`, 'le, result'), legend: 'p99 {{ result }}' },
      ]),
      series('Writes by verb and result, and writes not sent', "The controller's write requests per second, every cluster (by cluster: \"Requests by cluster\"); a result other than ok is the error tag (Conflict, Forbidden, ...). Unsent: applies the cache proved would change nothing, so nothing was sent.", 'reqps', [
        { expr: `sum by (verb, result) (${rate(`rxfleet_write_requests_total{${c}}`)})`, legend: '{{ verb }} {{ result }}' },
        { expr: `sum by (verb) (${rate(`rxfleet_writes_unsent_total{${c}}`)})`, legend: '{{ verb }} unsent' },
      ]),
    ],
  },
  {
    title: 'Work queue',
    panels: [
      series('Queue depth by state, and distinct keys', 'Keys held by the queue: ready (waiting for a worker), running, waiting (debounce, backoff or requeue delay); and the distinct keys held.', 'none', [
        { expr: `sum by (state) (rxfleet_workqueue_depth{${c}})`, legend: '{{ state }}' },
        { expr: `sum(rxfleet_workqueue_keys{${c}})`, legend: 'distinct keys' },
      ]),
      series('Queue latency and work duration', 'Time a ready key waits before its reconcile starts, and how long the reconciles take (work), 50th and 99th percentile.', 's', [
        { expr: p(0.5, `rxfleet_workqueue_queue_duration_seconds_bucket{${c}}`, 'le'), legend: 'p50' },
        { expr: p(0.99, `rxfleet_workqueue_queue_duration_seconds_bucket{${c}}`, 'le'), legend: 'p99' },
        { expr: p(0.5, `rxfleet_workqueue_work_duration_seconds_bucket{${c}}`, 'le'), legend: 'work p50' },
        { expr: p(0.99, `rxfleet_workqueue_work_duration_seconds_bucket{${c}}`, 'le'), legend: 'work p99' },
      ]),
      series('Queue adds and retries', 'Keys queued per second, and failed reconciles scheduled again after their backoff.', 'ops', [
        { expr: `sum(${rate(`rxfleet_workqueue_adds_total{${c}}`)})`, legend: 'adds' },
        { expr: `sum(${rate(`rxfleet_workqueue_retries_total{${c}}`)})`, legend: 'retries' },
      ], 8),
      series('Workers busy', 'Reconciles running, against the concurrency allowed.', 'none', [
        { expr: `sum(rxfleet_active_workers{${c}})`, legend: 'running' },
        { expr: `sum(rxfleet_max_concurrent_reconciles{${c}})`, legend: 'allowed' },
      ], 8),
      series('Work in progress', 'The longest running reconcile, and all the work in progress: a steady rise means stuck reconciles.', 's', [
        { expr: `max(rxfleet_workqueue_longest_running_processor_seconds{${c}})`, legend: 'longest running' },
        { expr: `sum(rxfleet_workqueue_unfinished_work_seconds{${c}})`, legend: 'unfinished' },
      ], 8),
    ],
  },
  {
    title: 'Clusters and watches',
    panels: [
      series('Clusters', 'Clusters engaged, unhealthy (a watch failing) and not synced, over time.', 'none', [
        { expr: `sum(rxfleet_engaged_clusters{${c}})`, legend: 'engaged' },
        { expr: clustersWhere('rxfleet_watch_healthy'), legend: 'unhealthy' },
        { expr: clustersWhere('rxfleet_watch_synced'), legend: 'not synced' },
      ], 8),
      series('Failing watches by cluster', 'Watches failing since their last good list or event, by cluster and resource.', 'none', [
        { expr: `count by (cluster, resource) (rxfleet_watch_healthy{${cc}} == 0)`, legend: '{{ cluster }} {{ resource }}' },
      ], 8),
      series('Provider reports', 'Discovery reports per type: engaged, disengaged, skipped (a bad candidate), source_failing (a management watch failing), ...', 'none', [
        { expr: `sum by (provider, type) (increase(rxfleet_provider_reports_total{${c}}[$__rate_interval]))`, legend: '{{ provider }} {{ type }}' },
      ], 8),
      series('Watch interruptions', 'Open watches cut, failed or ended before their timeoutSeconds, per hour; routine renewals (every 5 to 10 minutes) are not counted, so a healthy watch has none, nor are attempts that never opened (an unreachable cluster: its failed requests are in Requests by cluster).', 'none', [
        { expr: `3600 * sum by (cluster, resource) (${rate(`rxfleet_watch_interruptions_total{${cc}}`)})`, legend: '{{ cluster }} {{ resource }}' },
      ]),
      series('Watch relists', 'Full lists after a 410 Gone, per hour: each one is a LIST of everything watched.', 'none', [
        { expr: `3600 * sum by (cluster, resource) (${rate(`rxfleet_watch_relists_total{${cc}}`)})`, legend: '{{ cluster }} {{ resource }}' },
      ]),
      series('Requests by verb and result', 'Every request sent, per second, every cluster, counted where it is sent (reads, watches and writes of watches, sinks, reconcilers, providers and Leases); result: the HTTP status class, or the error tag of a request no answer came to.', 'reqps', [
        { expr: `sum by (verb, result) (${rate(`rxfleet_requests_total{${c}}`)})`, legend: '{{ verb }} {{ result }}' },
      ]),
      series('Requests by cluster', 'Requests per second to the 10 busiest clusters (and to the clients of providers: a management cluster, a kcp endpoint), and the requests that failed by cluster and result (any but 2xx).', 'reqps', [
        { expr: `topk(10, sum by (cluster) (${rate(`rxfleet_cluster_requests_total{${cc}}`)}))`, legend: '{{ cluster }}' },
        { expr: `sum by (cluster, result) (${rate(`rxfleet_cluster_requests_total{${cc},result!="2xx"}`)})`, legend: '{{ cluster }} {{ result }}' },
      ]),
      series('Keys denied (401/403) by cluster', 'Keys waiting to retry a request the cluster refused with 401 or 403; the cluster is unhealthy on /readyz while any wait.', 'none', [
        { expr: `sum by (cluster) (rxfleet_reconcile_denied_keys{${cc}})`, legend: '{{ cluster }}' },
      ]),
      series('Client-side rate limiting by cluster', "Requests that waited for their cluster's client-side rate limit by result (sent, or timeout: given up unsent), seconds waited per second, and 429 Retry-After pauses.", 'none', [
        { expr: `sum by (cluster, result) (${rate(`rxfleet_client_throttled_requests_total{${cc}}`)})`, legend: '{{ cluster }} {{ result }}' },
        { expr: `sum by (cluster) (${rate(`rxfleet_client_throttled_seconds_total{${cc}}`)})`, legend: '{{ cluster }} seconds waited / s' },
        { expr: `sum by (cluster) (increase(rxfleet_client_rate_limit_pauses_total{${cc}}[$__rate_interval]))`, legend: '{{ cluster }} 429 pauses' },
      ]),
    ],
  },
  {
    title: 'Replicas: leader election and sharding',
    panels: [
      series('Leading', '1 while a replica leads (leader election) or holds a confirmed share (sharding).', 'none', [
        { expr: `rxfleet_replica_leading{${c}}`, legend: '{{ instance }}' },
      ], 8),
      series('Clusters owned, and kept warm', 'Clusters each replica runs; with replicas.warmCaches, the clusters whose watches it keeps open to take them over (kept), and those of them synced.', 'none', [
        { expr: `rxfleet_replica_owned_clusters{${c}}`, legend: '{{ instance }}' },
        { expr: `rxfleet_replica_warm_clusters{${c}}`, legend: '{{ instance }} warm {{ state }}' },
      ], 8),
      series('Members seen', 'Live members of the replica set as each replica sees them (sharding; 0 under leader election). Replicas should agree.', 'none', [
        { expr: `rxfleet_replica_members{${c}}`, legend: '{{ instance }}' },
      ], 8),
      series('State changes', 'Replica state changes by new state (standby, leading, sharing, fenced).', 'none', [
        { expr: `sum by (instance, state) (increase(rxfleet_replica_transitions_total{${c}}[$__rate_interval]))`, legend: '{{ instance }} {{ state }}' },
      ]),
      series('Handovers', 'Clusters taken over (in) or given up (out) on ownership changes.', 'none', [
        { expr: `sum by (instance, direction) (increase(rxfleet_replica_handovers_total{${c}}[$__rate_interval]))`, legend: '{{ instance }} {{ direction }}' },
      ]),
      series('Lease renew latency', "From sending each renew of a replica's Lease to reading its answer, event-loop lag included (p99, p50). Near the renew deadline (default 10 s) the replica is about to be fenced.", 's', [
        { expr: p(0.99, `rxfleet_replica_lease_renew_seconds_bucket{${c}}`, 'instance, le'), legend: '{{ instance }} p99' },
        { expr: p(0.5, `rxfleet_replica_lease_renew_seconds_bucket{${c}}`, 'instance, le'), legend: '{{ instance }} p50' },
      ]),
    ],
  },
  {
    title: 'Process',
    panels: [
      series('Memory', 'Resident memory, V8 heap used and total, and the heap limit V8 crashes at (sized from the container limit).', 'bytes', [
        { expr: `process_resident_memory_bytes{${c}}`, legend: 'rss {{ instance }}' },
        { expr: `nodejs_heap_size_used_bytes{${c}}`, legend: 'heap used {{ instance }}' },
        { expr: `nodejs_heap_size_total_bytes{${c}}`, legend: 'heap total {{ instance }}' },
        { expr: `rxfleet_heap_size_limit_bytes{${c}}`, legend: 'heap limit {{ instance }}' },
      ]),
      series('Event-loop delay', 'How late the event loop runs, per scrape interval (about 10 ms at rest: the monitor resolution).', 's', [
        { expr: `nodejs_eventloop_lag_p99_seconds{${c}}`, legend: 'p99 {{ instance }}' },
        { expr: `nodejs_eventloop_lag_max_seconds{${c}}`, legend: 'max {{ instance }}' },
      ]),
      series('CPU', 'CPU seconds per second (1 = one core).', 'none', [{ expr: rate(`process_cpu_seconds_total{${c}}`), legend: '{{ instance }}' }]),
      series('Garbage collection', 'Share of time spent in GC, by kind.', 'percentunit', [
        { expr: `sum by (instance, kind) (${rate(`nodejs_gc_duration_seconds_sum{${c}}`)})`, legend: '{{ instance }} {{ kind }}' },
      ]),
    ],
  },
];
