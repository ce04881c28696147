// The write gate of a replica under leader election or sharding: every write of an engaged
// cluster's client (the sinks' and a reconciler's own, through ctx.fleet) asks it, synchronously
// and right before the request leaves (WriteOptions.fence), whether this replica may still write
// to that cluster. It also counts the writes in flight per cluster, so a hand-over waits until the
// clusters given away have no write left on the wire.
import type { Observable } from 'rxjs';
import { defer, filter, map, merge, of, Subject, take, timer } from 'rxjs';
import type { SchedulerLike } from 'rxjs';
import type { ClusterName } from '../../core/cluster.js';
import type { ClusterClient } from '../../client/client.js';
import type { KubeError } from '../../core/errors.js';
import { kubeError } from '../../core/errors.js';

/**
 * What the gate consults: whether this replica's lease is valid now (monotonic clock, renew
 * deadline) and whether it runs that cluster now.
 *
 * @example
 * ```ts
 * const basis: FenceBasis = { leaseValid: () => keeper.valid(), runs: (c: ClusterName) => running.has(c), identity: 'web-0-1a2b3c' };
 * ```
 */
export interface FenceBasis {
  /** True only while this replica's lease is held and renewed within the renew deadline. */
  readonly leaseValid: () => boolean;
  /** True while this replica runs `cluster` (owns it and has started it). */
  readonly runs: (cluster: ClusterName) => boolean;
  /** This replica's identity, for the error message. */
  readonly identity: string;
}

/**
 * A replica's write gate.
 *
 * @example
 * ```ts
 * const fence = writeFence(basis);
 * client.apply(configMaps, obj, { fieldManager: 'me', fence: () => fence.check(cluster) });
 * ```
 */
export interface WriteFence {
  /** The `Fenced` error for a write to `cluster` now, or `undefined` when it may be sent. */
  check(cluster: ClusterName): KubeError | undefined;
  /** Counts one write in flight to `cluster`; the function returned ends it (call it once). */
  enter(cluster: ClusterName): () => void;
  /** Runs `call` counted as one write in flight to `cluster` until it settles. */
  track<R>(cluster: ClusterName, call: () => Promise<R>): Promise<R>;
  /**
   * Emits once (then completes) when no write is in flight to a cluster this replica does not
   * run, or after `maxWaitMs` with `false` (a request stuck that long is past its own timeout).
   */
  settled(maxWaitMs: number, scheduler?: SchedulerLike): Observable<boolean>;
  /** Writes in flight now, per cluster (for tests and metrics). */
  inFlight(): ReadonlyMap<ClusterName, number>;
}

/**
 * The `reason` of a `Fenced` error: the lease is not valid (lost, or not renewed within the renew
 * deadline), or this replica does not run the cluster (handed over, or never owned).
 *
 * @example
 * ```ts
 * if (e.type === 'Fenced' && e.reason === fenceReasons.lease) log.info('this replica lost its lease');
 * ```
 */
export const fenceReasons = Object.freeze({ lease: 'LeaseNotValid', cluster: 'ClusterNotRunHere' } as const);

/**
 * Makes the write gate over `basis`.
 *
 * @example
 * ```ts
 * const fence = writeFence({ leaseValid: () => keeper.valid(), runs: (c: ClusterName) => running.has(c), identity });
 * fence.check(clusterName('east')); // undefined while leading, a Fenced KubeError otherwise
 * ```
 * @param basis - the lease's validity and the clusters this replica runs.
 * @returns the gate.
 */
export function writeFence(basis: FenceBasis): WriteFence {
  const counts = new Map<ClusterName, number>();
  const changed = new Subject<void>();
  const quiet = (): boolean => [...counts.keys()].every((c) => basis.runs(c));
  return {
    check(cluster) {
      if (!basis.leaseValid()) {
        return kubeError('Fenced', cluster, `replica ${basis.identity} may not write: it has not renewed its lease within the renew deadline (another replica may lead or own the cluster now)`, { reason: fenceReasons.lease });
      }
      if (!basis.runs(cluster)) {
        return kubeError('Fenced', cluster, `replica ${basis.identity} may not write: it does not run this cluster now (another replica owns it or it is being handed over)`, { reason: fenceReasons.cluster });
      }
      return undefined;
    },
    enter(cluster) {
      counts.set(cluster, (counts.get(cluster) ?? 0) + 1);
      let left = false;
      return () => {
        if (left) return;
        left = true;
        const n = (counts.get(cluster) ?? 1) - 1;
        if (n <= 0) counts.delete(cluster);
        else counts.set(cluster, n);
        changed.next();
      };
    },
    track(cluster, call) {
      const leave = this.enter(cluster);
      return call().finally(leave);
    },
    settled(maxWaitMs, scheduler) {
      return defer(() =>
        quiet()
          ? of(true)
          : merge(
              changed.pipe(
                filter(quiet),
                map(() => true),
              ),
              timer(maxWaitMs, scheduler).pipe(map(() => false)),
            ).pipe(take(1)),
      );
    },
    inFlight: () => counts,
  };
}

/**
 * The client of an engaged cluster as a replica hands it out: every write carries the fence and
 * is counted in flight until it answers; reads and watches pass through.
 *
 * @example
 * ```ts
 * const guarded: Cluster = { ...cluster, client: fencedClient(cluster.name, cluster.client, fence) };
 * ```
 * @param cluster - the cluster's fleet name (the name the fence knows).
 * @param client - its client.
 * @param fence - the replica's write gate.
 * @returns the fenced client.
 */
export function fencedClient(cluster: ClusterName, client: ClusterClient, fence: WriteFence): ClusterClient {
  const gate = (): KubeError | undefined => fence.check(cluster);
  return {
    ...client,
    get: (r, name, opts) => client.get(r, name, opts),
    list: (r, opts) => client.list(r, opts),
    listAll: (r, opts) => client.listAll(r, opts),
    watch: (r, opts) => client.watch(r, opts),
    create: (r, obj, opts) => fence.track(cluster, () => client.create(r, obj, { ...opts, fence: gate })),
    update: (r, obj, opts) => fence.track(cluster, () => client.update(r, obj, { ...opts, fence: gate })),
    apply: (r, obj, opts) => fence.track(cluster, () => client.apply(r, obj, { ...opts, fence: gate })),
    patch: (r, name, p, opts) => fence.track(cluster, () => client.patch(r, name, p, { ...opts, fence: gate })),
    delete: (r, name, opts) => fence.track(cluster, () => client.delete(r, name, { ...opts, fence: gate })),
    raw: (req) => (req.method === 'GET' ? client.raw(req) : fence.track(cluster, () => client.raw({ ...req, fence: gate }))),
    close: () => {
      client.close();
    },
  };
}
