// rxfleet_write_requests_total: one family wherever writes are sent from, the controllers' sinks
// (each controller's metrics, fed by instrument.ts) and a program's own clients outside any
// controller (`requestMetrics`, served beside a run's series through `RunOptions.metricsFrom`).
import { Counter, Registry } from 'prom-client';
import type { ClusterName } from '../core/cluster.js';
import type { WriteVerb } from '../core/verb.js';
import type { WriteRecorder } from './instrument.js';

/** The write-request family on these registers (internal: metrics.ts and `requestMetrics`). */
export function writeRequestsCounter(registers: Registry[]): Counter<'cluster' | 'verb' | 'result'> {
  return new Counter({ name: 'rxfleet_write_requests_total', help: 'Write requests by cluster, verb and result.', labelNames: ['cluster', 'verb', 'result'], registers });
}

/**
 * The request series of a program's own clients (those outside its controllers): its write
 * requests counted in `rxfleet_write_requests_total{cluster,verb,result}` under its own
 * `controller` label, on a registry that outlives any run. Serve it with a run's series through
 * `RunOptions.metricsFrom`; feed it with `instrumentedClient`.
 *
 * @example
 * ```ts
 * const requests = requestMetrics('rxfleet-sync-agent');
 * const client = instrumentedClient(serviceClient, requests.record);
 * await run(controllers, { metricsFrom: [requests.registry] });
 * ```
 */
export interface RequestMetrics {
  /** Where the series are (give it to each run's `metricsFrom`). */
  readonly registry: Registry;
  /** Counts one write request and its result (`ok` or the error's tag). */
  readonly record: WriteRecorder;
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
  const writes = writeRequestsCounter([registry]);
  return {
    registry,
    record: (cluster: ClusterName, verb: WriteVerb, result: string) => {
      writes.inc({ cluster, verb, result });
    },
  };
}
