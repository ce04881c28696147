// The ownership gate of a replica under leader election or sharding: every write of an engaged
// cluster's client (the sinks' and a reconciler's own, through ctx.fleet) asks it, synchronously
// and right before the request leaves (WriteOptions.fence), whether this replica may still write
// to that cluster; every read, watch and cached view a reconcile can hold asks it too
// (owned-access.ts), and a held watch ends when the cluster is revoked here. It also counts the
// writes in flight per cluster, so a hand-over waits until the clusters given away have no write
// left on the wire.
import type { Observable } from 'rxjs';
import { defer, filter, map, merge, of, Subject, take, timer } from 'rxjs';
import type { SchedulerLike } from 'rxjs';
import type { ClusterName } from '../../core/cluster.js';
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
 * What a reconcile does with a cluster, for the refusal's words: send a request that reads
 * (`read`), or one that writes (`write`).
 *
 * @example
 * ```ts
 * const a: FenceAccess = 'read';
 * ```
 */
export type FenceAccess = 'read' | 'write';

/**
 * A replica's ownership gate: writes, and every read a reconcile can reach a cluster by.
 *
 * @example
 * ```ts
 * const fence = writeFence(basis);
 * client.apply(configMaps, obj, { fieldManager: 'me', fence: () => fence.check(cluster) });
 * ```
 */
export interface WriteFence {
  /** The `Fenced` error for a request (a write unless `access` says `read`) to `cluster` now, or `undefined` when it may be sent. */
  check(cluster: ClusterName, access?: FenceAccess): KubeError | undefined;
  /** The `Fenced` error this replica answers for `cluster` when it may not `access` it (whatever holds now). */
  refusal(cluster: ClusterName, access: FenceAccess): KubeError;
  /** Emits a cluster's name each time this replica stops running it (after its disengagement went downstream). */
  readonly revocations: Observable<ClusterName>;
  /** Tells the gate this replica stopped running `cluster` (held watches and views of it end). */
  revoke(cluster: ClusterName): void;
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
  const revoked = new Subject<ClusterName>();
  const quiet = (): boolean => [...counts.keys()].every((c) => basis.runs(c));
  const refusal = (cluster: ClusterName, access: FenceAccess): KubeError =>
    basis.leaseValid()
      ? kubeError('Fenced', cluster, `replica ${basis.identity} may not ${access}: it does not run this cluster now, this replica does not own it (another replica owns it or it is being handed over)`, { reason: fenceReasons.cluster })
      : kubeError('Fenced', cluster, `replica ${basis.identity} may not ${access}: it has not renewed its lease within the renew deadline, this replica does not own the cluster now (another replica may lead or own it)`, { reason: fenceReasons.lease });
  return {
    check: (cluster, access = 'write') => (basis.leaseValid() && basis.runs(cluster) ? undefined : refusal(cluster, access)),
    refusal,
    revocations: revoked.asObservable(),
    revoke: (cluster) => {
      revoked.next(cluster);
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
