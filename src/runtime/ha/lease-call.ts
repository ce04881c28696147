// A Lease request with a timeout that never beats an answer already there. After the event loop
// was blocked (a long synchronous task, a GC pause, SIGSTOP), Node runs the timers that fell due
// before it reads the sockets: a timeout, or a renew deadline, would then be decided while the
// answer that proves the renew sits unread. Both wait for the pending I/O to be read first (the
// client's afterPendingIo, as its own request deadlines do), so a renew answered in time counts.
import type { ObservableInput, SchedulerLike } from 'rxjs';
import { asyncScheduler, catchError, from, map, Observable, of, race, switchMap, take, timer } from 'rxjs';
import { afterPendingIo as ioAfterPendingIo } from '../../client/io-timeout.js';
import type { ClusterName } from '../../core/cluster.js';
import type { KubeError } from '../../core/errors.js';
import { kubeError } from '../../core/errors.js';
import type { Either } from '../../internal/fp.js';
import { E } from '../../internal/fp.js';

/**
 * Emits once the I/O that arrived while the event loop was busy has been read: after two turns of
 * `setImmediate` under the real scheduler; at once under any other (a virtual one has no I/O).
 *
 * @example
 * ```ts
 * timer(deadlineMs).pipe(switchMap(() => afterPendingIo(asyncScheduler))).subscribe(checkDeadline);
 * ```
 * @param scheduler - the keeper's scheduler.
 * @returns one value, then completes.
 */
export function afterPendingIo(scheduler: SchedulerLike): Observable<void> {
  if (scheduler !== asyncScheduler) return of(undefined);
  return new Observable<void>((subscriber) =>
    ioAfterPendingIo(() => {
      subscriber.next();
      subscriber.complete();
    }),
  );
}

/** Options of {@link leaseCall}. @example `{ timeoutMs: 2_000, scheduler: asyncScheduler, cluster: home.name, where: 'leader Lease ops/ctl' }` */
export interface LeaseCallOptions {
  /** The request's timeout: past it (and the pending I/O read), the answer is a `Timeout`. */
  readonly timeoutMs: number;
  /** The timer's scheduler. */
  readonly scheduler: SchedulerLike;
  /** The home cluster, named in errors. */
  readonly cluster: ClusterName;
  /** The Lease, for the errors' words. */
  readonly where: string;
}

/**
 * One Lease call as one `Either`: its answer, or a `Timeout` once `timeoutMs` passed and the
 * pending I/O was read without it; a thrown error becomes an `Unknown` (the keeper's loop never
 * errors). Unsubscribing (or timing out) abandons the call.
 *
 * @example
 * ```ts
 * leaseCall(api.get('ops', 'ctl'), { timeoutMs: 2_000, scheduler, cluster: api.cluster, where }).subscribe(onRead);
 * ```
 * @param input - the call.
 * @param opts - timeout, scheduler, and what to name in errors.
 * @returns the answer.
 */
export function leaseCall<T>(input: ObservableInput<Either<KubeError, T>>, opts: LeaseCallOptions): Observable<Either<KubeError, T>> {
  const timedOut = timer(opts.timeoutMs, opts.scheduler).pipe(
    switchMap(() => afterPendingIo(opts.scheduler)),
    map((): Either<KubeError, T> => E.left(kubeError('Timeout', opts.cluster, `${opts.where}: no answer within ${opts.timeoutMs} ms`))),
  );
  return race(from(input).pipe(take(1)), timedOut).pipe(
    take(1),
    // The API promises Eithers; a thrown error must still not end the loop.
    catchError((err: unknown) => of(E.left(kubeError('Unknown', opts.cluster, `${opts.where}: ${err instanceof Error ? err.message : String(err)}`)))),
  );
}
