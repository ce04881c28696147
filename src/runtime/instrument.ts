// Counting writes per cluster without touching the sinks: the fleet the sinks see hands out
// clients whose write calls report their result; a program's own client is counted the same way
// (instrumentedClient). Reads pass through untouched: no request counter counts them.
import type { ObservableInput } from 'rxjs';
import { defer, tap } from 'rxjs';
import type { FleetView } from '../streams/cluster.js';
import type { ClusterClient } from '../client/client.js';
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

/**
 * A {@link ClusterClient} whose write requests report their result to `record` (reads, watches and
 * `raw` pass through untouched): the counting the sinks get (`instrumentedFleet`), for a client a program
 * uses outside its controllers (see `requestMetrics`).
 *
 * @example
 * ```ts
 * const client = instrumentedClient(serviceClient, requestMetrics('rxfleet-sync-agent').record);
 * ```
 * @param client - the client to count.
 * @param record - the write counter.
 * @returns the same client, counted; closing it closes `client`.
 */
export function instrumentedClient(client: ClusterClient, record: WriteRecorder): ClusterClient {
  const cluster = client.cluster;
  const counted = <R>(verb: WriteVerb, call: () => Promise<Either<KubeError, R>>): Promise<Either<KubeError, R>> =>
    call().then((r) => {
      record(cluster, verb, resultOf(r));
      return r;
    });
  return {
    cluster,
    server: client.server,
    get: (r, name, opts) => client.get(r, name, opts),
    list: (r, opts) => client.list(r, opts),
    listAll: (r, opts) => client.listAll(r, opts),
    watch: (r, opts) => client.watch(r, opts),
    create: (r, obj, opts) => counted('create', () => client.create(r, obj, opts)),
    update: (r, obj, opts) => counted('update', () => client.update(r, obj, opts)),
    apply: (r, obj, opts) => counted('apply', () => client.apply(r, obj, opts)),
    patch: (r, name, p, opts) => counted('patch', () => client.patch(r, name, p, opts)),
    delete: (r, name, opts) => counted('delete', () => client.delete(r, name, opts)),
    raw: (req) => client.raw(req),
    close: () => {
      client.close();
    },
  };
}
