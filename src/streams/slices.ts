// Work handed out a slice per turn of the event loop: what keeps thousands of clusters arriving at
// once (a provider engaging 2,000 namespaces, a shared watch ending the listing of 2,000 clusters)
// from holding the event loop for seconds, while probes, metrics and watch timers wait. The items
// of one burst are delivered in order, `perTurn` at a time and no longer than a time budget per
// turn (an item's cost varies: one engagement of a controller with many watches, a machine under
// load), each slice in its own task.
import type { SchedulerLike, Subscription } from 'rxjs';

/**
 * A turn delivers items until this many ms of the scheduler's clock have passed (then at least one
 * more item), so that a slice holds the event loop for about this long, whatever an item costs.
 */
export const sliceBudgetMs = 10;

/**
 * A queue delivering at most `perTurn` items per turn.
 *
 * @example
 * ```ts
 * const engage = slices(50, asyncScheduler, (c: Cluster) => start(c));
 * clusters.forEach((c: Cluster) => engage.push(c));
 * ```
 */
export interface Slices<T> {
  /** Delivers `item` now if this turn has room and nothing waits, else queues it for a later turn. */
  push(item: T): void;
  /** Delivers `item` now, out of turn, if it waits (when something must not overtake it); says whether it waited. */
  take(item: T): boolean;
  /** Forgets `item` if it waits (it will never be delivered); says whether it waited. */
  drop(item: T): boolean;
  /** Delivers everything that waits, now. */
  flush(): void;
  /** Cancels the next turn and forgets what waits. */
  close(): void;
}

/**
 * Slices bursts: the first `perTurn` items of a turn are delivered at once (a handful of clusters
 * costs no delay), the rest `perTurn` per later turn (fewer when a turn has used its `budgetMs`),
 * each turn one action of `scheduler` (delay 0, so other tasks run between slices). Items are
 * distinct values (a Set keeps the queue).
 *
 * @example
 * ```ts
 * const out = slices(2, testScheduler, (n: number) => seen.push(n));
 * [1, 2, 3].forEach((n: number) => out.push(n)); // 1 and 2 now, 3 in the next action
 * ```
 * @param perTurn - items delivered per turn at most (≥ 1).
 * @param scheduler - schedules the next turn; its clock measures the turn's budget.
 * @param deliver - what to do with each item.
 * @param budgetMs - a turn delivers no further item once this many ms passed since its first (default {@link sliceBudgetMs}).
 * @returns the queue.
 */
export function slices<T>(perTurn: number, scheduler: SchedulerLike, deliver: (item: T) => void, budgetMs = sliceBudgetMs): Slices<T> {
  const waiting = new Set<T>();
  let sent = 0;
  // When this turn's first item was delivered (the scheduler's clock).
  let startedAt = 0;
  let next: Subscription | undefined;
  const room = (): boolean => sent === 0 || (sent < perTurn && scheduler.now() - startedAt < budgetMs);
  const count = (): void => {
    if (sent === 0) startedAt = scheduler.now();
    sent++;
  };
  const turn = (): void => {
    next = undefined;
    sent = 0;
    for (let first = waiting.values().next(); room() && first.done !== true; first = waiting.values().next()) {
      waiting.delete(first.value);
      count();
      deliver(first.value);
    }
    // Another turn for what still waits, or to end this one's count.
    if (sent > 0) schedule();
  };
  const schedule = (): void => {
    next ??= scheduler.schedule(turn);
  };
  return {
    push(item) {
      if (waiting.size === 0 && room()) {
        count();
        schedule();
        deliver(item);
        return;
      }
      waiting.add(item);
      schedule();
    },
    take(item) {
      if (!waiting.delete(item)) return false;
      deliver(item);
      return true;
    },
    drop: (item) => waiting.delete(item),
    flush() {
      for (const item of [...waiting]) if (waiting.delete(item)) deliver(item);
    },
    close() {
      next?.unsubscribe();
      next = undefined;
      waiting.clear();
      sent = 0;
    },
  };
}
