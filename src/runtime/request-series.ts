// The request families: rxfleet_requests_total, what every transport sent (fed by the transport's
// recorder, src/client/request-count.ts), and rxfleet_write_requests_total, the writes each
// controller's sinks sent (fed by instrument.ts), which says which controller wrote. One
// definition each, for a run's metrics (metrics.ts, fleet-series.ts) and for a program's own
// clients outside any run (`requestMetrics`, served beside a run's series through
// `RunOptions.metricsFrom`).
import { Counter, Registry } from 'prom-client';
import type { RequestRecorder } from '../client/request-count.js';
import type { ClusterName } from '../core/cluster.js';
import type { Verb } from '../core/verb.js';

/** The request family on these registers (internal: fleet-series.ts and `requestMetrics`). */
export function requestsCounter(registers: Registry[]): Counter<'cluster' | 'verb' | 'result'> {
  return new Counter({ name: 'rxfleet_requests_total', help: 'Requests sent by cluster, verb and result (HTTP status class, or why no answer came).', labelNames: ['cluster', 'verb', 'result'], registers });
}

/** The write-request family on these registers (internal: metrics.ts). */
export function writeRequestsCounter(registers: Registry[]): Counter<'cluster' | 'verb' | 'result'> {
  return new Counter({ name: 'rxfleet_write_requests_total', help: 'Write requests of this controller by cluster, verb and result.', labelNames: ['cluster', 'verb', 'result'], registers });
}

/**
 * The request series of a program's own clients (those it uses outside any run, e.g. before its
 * first run starts): every request of a client made with `{ requests: record }`
 * (`TransportOptions.requests`) counted in `rxfleet_requests_total{cluster,verb,result}` under its
 * own `controller` label, on a registry that outlives any run. Serve it with a run's series
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
  const requests = requestsCounter([registry]);
  return {
    registry,
    record: (cluster: ClusterName, verb: Verb, result: string) => {
      requests.inc({ cluster, verb, result });
    },
  };
}
