// One scheduled action standing for many deadlines: the keyed operators keep their deadlines in a
// heap and ask the alarm to ring at the earliest one.
import type { SchedulerLike, Subscription } from 'rxjs';

/**
 * A single re-armable wake-up on a scheduler.
 *
 * @example
 * ```ts
 * const alarm = new Alarm(scheduler, () => flushDue());
 * alarm.ringAt(heap.peek()?.at);
 * ```
 */
export class Alarm {
  private action: Subscription | undefined;
  private at = Infinity;
  private readonly scheduler: SchedulerLike;
  private readonly ring: () => void;

  // No parameter properties: the sources stay runnable with Node's type stripping (bench/).
  /**
   * @example `new Alarm(asyncScheduler, onWake)`
   * @param scheduler - the clock.
   * @param ring - called when the alarm goes off.
   */
  constructor(scheduler: SchedulerLike, ring: () => void) {
    this.scheduler = scheduler;
    this.ring = ring;
  }

  /**
   * Rings at `at` unless already set to ring no later. Ringing early is harmless: the owner
   * re-arms for whatever is still due.
   *
   * @example `alarm.ringAt(now + 5)`
   * @param at - the deadline (scheduler time), or `undefined` for nothing to wait for.
   */
  ringAt(at: number | undefined): void {
    if (at === undefined || (this.action !== undefined && this.at <= at)) return;
    this.action?.unsubscribe();
    this.at = at;
    this.action = this.scheduler.schedule(() => {
      this.action = undefined;
      this.at = Infinity;
      this.ring();
    }, Math.max(0, at - this.scheduler.now()));
  }

  /** Cancels the alarm. @example `alarm.cancel()` */
  cancel(): void {
    this.action?.unsubscribe();
    this.action = undefined;
    this.at = Infinity;
  }
}
