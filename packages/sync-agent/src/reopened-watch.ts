// The sync agent's own watches (the PublishedResources on the service cluster, the APIExports a
// refusal was checked against) kept open: a watch that fails is opened again after 2 s, doubling to
// 30 s and back to 2 s once one works (rxfleet's backoff); one the server ends is opened again 1 s
// later. One policy for both, on an injected clock.
import type { Observable, SchedulerLike } from 'rxjs';
import { asyncScheduler, repeat, retry, timer } from 'rxjs';
import type { Backoff } from 'rxfleet/streams';
import { backoffDelay } from 'rxfleet/streams';

/** A failed watch waits 2, 4, 8, 16 s, then 30 s from the fifth failure in a row on. */
const reopenBackoff: Backoff = { initialMs: 2_000, factor: 2, maxMs: 30_000, jitter: 0 };

/**
 * `watch` (subscribed again for each opening) kept open as described above.
 *
 * @example
 * ```ts
 * const lines = reopenedWatch(defer(() => client.watch(publishedResources, {})));
 * ```
 * @param watch - one opening of the watch per subscription.
 * @param scheduler - the clock of the waits. Default `asyncScheduler`.
 * @returns the lines of every opening, in order.
 */
export function reopenedWatch<T>(watch: Observable<T>, scheduler: SchedulerLike = asyncScheduler): Observable<T> {
  return watch.pipe(
    retry({ delay: (_e: unknown, n: number) => timer(backoffDelay(reopenBackoff, n - 1), scheduler), resetOnSuccess: true }),
    repeat({ delay: () => timer(1_000, scheduler) }),
  );
}
