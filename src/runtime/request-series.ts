// The request families: what every transport sent (fed by the transport's recorder,
// src/client/request-count.ts), in two families whose labels never cross `cluster` with `verb`:
// rxfleet_requests_total{verb,result} for the fleet as a whole and
// rxfleet_cluster_requests_total{cluster,result} per cluster (one series for a healthy cluster,
// forgotten when it goes); and rxfleet_write_requests_total{verb,result}, the writes each
// controller's sinks sent (fed by instrument.ts), which says which controller wrote. One definition
// each, for a run's metrics (metrics.ts, fleet-series.ts) and for a program's own clients outside
// any run (`requestMetrics`, served beside a run's series through `RunOptions.metricsFrom`).
import { Counter, Registry } from 'prom-client';
import type { RequestRecorder } from '../client/request-count.js';
import type { ClusterName } from '../core/cluster.js';
import type { Verb } from '../core/verb.js';
import { ClusterSeries } from './cluster-series.js';

/** Counts requests into both request families (internal: fleet-series.ts and `requestMetrics`). */
export type RequestSeries = (cluster: ClusterName, verb: Verb, result: string) => void;

/**
 * The request families on these registers, their per-cluster series noted in `series` so that they
 * go with their cluster (internal: fleet-series.ts and `requestMetrics`).
 */
export function requestSeries(registers: Registry[], series: ClusterSeries): RequestSeries {
  const byVerb = new Counter({ name: 'rxfleet_requests_total', help: 'Requests sent, by verb and result (HTTP status class, or why no answer came); by cluster in rxfleet_cluster_requests_total.', labelNames: ['verb', 'result'], registers });
  const byCluster = new Counter({ name: 'rxfleet_cluster_requests_total', help: 'Requests sent, by cluster and result (HTTP status class, or why no answer came); by verb in rxfleet_requests_total.', labelNames: ['cluster', 'result'], registers });
  return (cluster, verb, result) => {
    byVerb.inc({ verb, result });
    const labels = { cluster, result };
    byCluster.inc(labels);
    series.note(byCluster, 'requests', labels);
  };
}

/** The write-request family on these registers (internal: metrics.ts). */
export function writeRequestsCounter(registers: Registry[]): Counter<'verb' | 'result'> {
  return new Counter({ name: 'rxfleet_write_requests_total', help: "Write requests of this controller's sinks by verb and result (by cluster: rxfleet_cluster_requests_total).", labelNames: ['verb', 'result'], registers });
}

/**
 * The request series of a program's own clients (those it uses outside any run, e.g. before its
 * first run starts): every request of a client made with `{ requests: record }`
 * (`TransportOptions.requests`), or sent inside `countingRequests(record, ...)`, counted in
 * `rxfleet_requests_total{verb,result}` and `rxfleet_cluster_requests_total{cluster,result}` under
 * its own `controller` label, on a registry that outlives any run. Serve it with a run's series
 * through `RunOptions.metricsFrom`. A client made without a recorder of its own is counted by the
 * run whose work sends its requests.
 *
 * @example
 * ```ts
 * const requests = requestMetrics('rxfleet-sync-agent');
 * const service = createClusterClient(clusterName('service'), { file: 'service.kubeconfig' }, { requests: requests.record });
 * await run(controllers, { metricsFrom: [requests.registry] });
 * ```
 */
export interface RequestMetrics {
  /** Where the series are (give it to each run's `metricsFrom`). */
  readonly registry: Registry;
  /** Counts one request and its result: give it to the clients' `TransportOptions.requests`. */
  readonly record: RequestRecorder;
}

/**
 * Creates the request series of a program's own clients (see {@link RequestMetrics}).
 *
 * @example
 * ```ts
 * const requests = requestMetrics('rxfleet-sync-agent');
 * ```
 * @param controller - their `controller` label: a name no controller of the run has.
 * @returns the registry and its recorder.
 */
export function requestMetrics(controller: string): RequestMetrics {
  const registry = new Registry();
  registry.setDefaultLabels({ controller });
  const series = new ClusterSeries();
  const requests = requestSeries([registry], series);
  const forget = (cluster: ClusterName): void => {
    series.forget(cluster);
  };
  const record = (cluster: ClusterName, verb: Verb, result: string): void => {
    requests(cluster, verb, result);
  };
  return { registry, record: Object.assign(record, { forget }) };
}
