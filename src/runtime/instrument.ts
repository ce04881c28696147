// Counting writes per cluster without touching the sinks: the fleet the sinks see hands out
// clients whose write calls report their result. Under leader election or sharding the same
// clients fence every write (checked as the request leaves) and count it in flight until it
// answers, so a hand-over can wait for it. Reads pass through untouched.
import type { ObservableInput } from 'rxjs';
import { defer, tap } from 'rxjs';
import type { FleetView } from '../streams/cluster.js';
import type { ClusterName } from '../core/cluster.js';
import type { KubeError } from '../core/errors.js';
import type { Either } from '../internal/fp.js';
import { E } from '../internal/fp.js';
import type { SinkCluster, SinkFleet, WriteClient } from '../sinks/context.js';
import type { WriteFence } from './ha/fence.js';

/**
 * Receives one write request's result: `ok`, or the error's tag.
 *
 * @example
 * ```ts
 * const record: WriteRecorder = (cluster: ClusterName, verb: string, result: string) => metrics.write(cluster, verb, result);
 * ```
 */
export type WriteRecorder = (cluster: ClusterName, verb: string, result: string) => void;

function counted<R>(cluster: ClusterName, verb: string, record: WriteRecorder, fence: WriteFence | undefined, call: () => ObservableInput<Either<KubeError, R>>) {
  const counting = () =>
    defer(call).pipe(
      tap((r) => {
        record(cluster, verb, E.isLeft(r) ? r.left.type : 'ok');
      }),
    );
  return fence === undefined ? counting() : fence.track(cluster, counting);
}

// The options with the fence added, when there is one.
function fenced<O extends object | undefined>(cluster: ClusterName, fence: WriteFence | undefined, opts: O): O {
  return fence === undefined ? opts : { ...opts, fence: () => fence.check(cluster) };
}

function instrumentClient(cluster: ClusterName, c: WriteClient, record: WriteRecorder, fence: WriteFence | undefined): WriteClient {
  return {
    get: (r, name, opts) => c.get(r, name, opts),
    listAll: (r, opts) => c.listAll(r, opts),
    create: (r, obj, opts) => counted(cluster, 'create', record, fence, () => c.create(r, obj, fenced(cluster, fence, opts))),
    replace: (r, obj, opts) => counted(cluster, 'replace', record, fence, () => c.replace(r, obj, fenced(cluster, fence, opts))),
    apply: (r, obj, opts) => counted(cluster, 'apply', record, fence, () => c.apply(r, obj, fenced(cluster, fence, opts))),
    patch: (r, name, p, opts) => counted(cluster, 'patch', record, fence, () => c.patch(r, name, p, fenced(cluster, fence, opts))),
    delete: (r, name, opts) => counted(cluster, 'delete', record, fence, () => c.delete(r, name, fenced(cluster, fence, opts))),
  };
}

/**
 * A {@link SinkFleet} over a fleet whose clients report every write request to `record`.
 *
 * @example
 * ```ts
 * const sinks = sinkContext({ fleet: instrumentedFleet(fleet, metrics.write), fieldManager: 'baseline' });
 * ```
 * @param fleet - the live fleet (read at each call, so it always reflects engagements).
 * @param record - the write counter.
 * @param fence - the replica's write gate, under leader election or sharding.
 * @returns the instrumented view.
 */
export function instrumentedFleet(fleet: FleetView, record: WriteRecorder, fence?: WriteFence): SinkFleet {
  const wrap = (c: { readonly name: ClusterName; readonly client: WriteClient }): SinkCluster => ({ name: c.name, client: instrumentClient(c.name, c.client, record, fence) });
  return {
    get: (name) => {
      const c = fleet.get(name);
      return c === undefined ? undefined : wrap(c);
    },
    clusters: () => fleet.clusters().map(wrap),
  };
}
