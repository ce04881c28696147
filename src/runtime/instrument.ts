// Which controller wrote: the fleet a controller's sinks see hands out clients whose write calls
// report their result (rxfleet_write_requests_total, by controller). Every request on the wire,
// reads included, is counted once more where it is sent, by the transport
// (rxfleet_requests_total, src/client/request-count.ts), which cannot tell controllers apart.
import type { ObservableInput } from 'rxjs';
import { defer, tap } from 'rxjs';
import type { FleetView } from '../streams/cluster.js';
import type { ClusterName } from '../core/cluster.js';
import type { KubeError } from '../core/errors.js';
import type { WriteVerb } from '../core/verb.js';
import type { Either } from '../internal/fp.js';
import { E } from '../internal/fp.js';
import type { SinkCluster, SinkClusters, WriteClient } from '../sinks/context.js';

/**
 * Receives one write request's result: `ok`, or the error's tag.
 *
 * @example
 * ```ts
 * const record: WriteRecorder = (cluster: ClusterName, verb: WriteVerb, result: string) => metrics.write(cluster, verb, result);
 * ```
 */
export type WriteRecorder = (cluster: ClusterName, verb: WriteVerb, result: string) => void;

// A write's result as counted: `ok`, or the error's tag.
const resultOf = (r: Either<KubeError, unknown>): string => (E.isLeft(r) ? r.left.type : 'ok');

function counted<R>(cluster: ClusterName, verb: WriteVerb, record: WriteRecorder, call: () => ObservableInput<Either<KubeError, R>>) {
  return defer(call).pipe(
    tap((r) => {
      record(cluster, verb, resultOf(r));
    }),
  );
}

function instrumentClient(cluster: ClusterName, c: WriteClient, record: WriteRecorder): WriteClient {
  return {
    get: (r, name, opts) => c.get(r, name, opts),
    listAll: (r, opts) => c.listAll(r, opts),
    create: (r, obj, opts) => counted(cluster, 'create', record, () => c.create(r, obj, opts)),
    update: (r, obj, opts) => counted(cluster, 'update', record, () => c.update(r, obj, opts)),
    apply: (r, obj, opts) => counted(cluster, 'apply', record, () => c.apply(r, obj, opts)),
    patch: (r, name, p, opts) => counted(cluster, 'patch', record, () => c.patch(r, name, p, opts)),
    delete: (r, name, opts) => counted(cluster, 'delete', record, () => c.delete(r, name, opts)),
  };
}

/**
 * A {@link SinkClusters} over a fleet whose clients report every write request to `record`.
 *
 * @example
 * ```ts
 * const sinks = sinkContext({ clusters: instrumentedFleet(fleet, metrics.write), fieldManager: 'baseline' });
 * ```
 * @param fleet - the live fleet (read at each call, so it always reflects engagements), or any
 *   sink fleet (the in-memory fleet's, whose clients answer on the test's scheduler).
 * @param record - the write counter.
 * @returns the instrumented view.
 */
export function instrumentedFleet(fleet: FleetView | SinkClusters, record: WriteRecorder): SinkClusters {
  const wrap = (c: SinkCluster): SinkCluster => ({ name: c.name, client: instrumentClient(c.name, c.client, record) });
  return {
    get: (name) => {
      const c = fleet.get(name);
      return c === undefined ? undefined : wrap(c);
    },
    clusters: () => fleet.clusters().map(wrap),
  };
}
