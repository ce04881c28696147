// The one timer machine of the keyed operators and of `reconcile`'s work queue: every deadline in
// one heap, driven by a single scheduled action, instead of one scheduler action per key (100,000
// debounced keys would be 100,000 timers).
import type { SchedulerLike, Subscription } from 'rxjs';
import type { Timed } from './deadline-heap.js';
import { DeadlineHeap } from './deadline-heap.js';

/**
 * Deadlines of many items on one scheduler. When deadlines pass, `due` is called for each item in
 * deadline order (the item is out of the heap by then, and may be set again), then `settled` once.
 *
 * @example
 * ```ts
 * const timers = new Timers<Window>(scheduler, (w: Window) => emit(w), () => undefined);
 * timers.set(window, scheduler.now() + 100);
 * ```
 */
export class Timers<T extends Timed> {
  private readonly heap = new DeadlineHeap<T>();
  private action: Subscription | undefined;
  private wakeAt = Infinity;
  private firing = false;
  private readonly scheduler: SchedulerLike;
  private readonly due: (item: T, now: number) => void;
  private readonly settled: () => void;

  // No parameter properties: the sources stay runnable with Node's type stripping (bench/).
  /**
   * @example `new Timers<Entry>(scheduler, onDue, pump)`
   * @param scheduler - the clock.
   * @param due - called for each item whose deadline passed.
   * @param settled - called after each batch of due items.
   */
  constructor(scheduler: SchedulerLike, due: (item: T, now: number) => void, settled: () => void) {
    this.scheduler = scheduler;
    this.due = due;
    this.settled = settled;
  }

  /** Items waiting for their deadline. @example `timers.size` @returns the count. */
  get size(): number {
    return this.heap.size;
  }

  /**
   * Sets the deadline of an item that is not waiting already.
   *
   * @example `timers.set(entry, now + retryIn)`
   * @param item - the item.
   * @param at - its deadline, in scheduler time.
   */
  set(item: T, at: number): void {
    this.heap.push(item, at);
    // While firing, the wake-up is set once for whatever is left when the batch ends.
    if (!this.firing) this.wakeBy(at);
  }

  /**
   * Drops an item's deadline, if it has one. The wake-up stays: ringing early is harmless.
   *
   * @example `timers.cancel(entry)`
   * @param item - the item.
   */
  cancel(item: T): void {
    this.heap.remove(item);
  }

  /** Drops every deadline and the wake-up. @example `timers.clear()` */
  clear(): void {
    this.heap.clear();
    this.action?.unsubscribe();
    this.action = undefined;
    this.wakeAt = Infinity;
  }

  private wakeBy(at: number): void {
    if (this.action !== undefined && this.wakeAt <= at) return;
    this.action?.unsubscribe();
    this.wakeAt = at;
    this.action = this.scheduler.schedule(() => {
      this.action = undefined;
      this.wakeAt = Infinity;
      this.fire();
    }, Math.max(0, at - this.scheduler.now()));
  }

  private fire(): void {
    const now = this.scheduler.now();
    this.firing = true;
    try {
      for (let top = this.heap.peek(); top !== undefined && top.at <= now; top = this.heap.peek()) {
        this.heap.pop();
        this.due(top, now);
      }
    } finally {
      this.firing = false;
    }
    const next = this.heap.peek();
    if (next !== undefined) this.wakeBy(next.at);
    this.settled();
  }
}
