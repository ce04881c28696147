// The instant a key becomes ready at, as the ready queue counts it: the scheduler's time when the
// current burst began. A replay or a take-over readies thousands of keys in one synchronous run,
// over many milliseconds of a real clock; counted as one instant, their keys are served
// round-robin across clusters (fair-queue.ts) instead of in the order the replay happened to list.
// The burst ends when the scheduler next runs anything.
import type { SchedulerLike, Subscription } from 'rxjs';

/**
 * The current burst's instant.
 *
 * @example
 * ```ts
 * const burst = new Burst(scheduler);
 * ready.push(cluster, entry, burst.at(scheduler.now()));
 * ```
 */
export class Burst {
  private instant: number | undefined;
  private end: Subscription | undefined;
  private readonly scheduler: SchedulerLike;
  private readonly ended = (): void => {
    this.instant = undefined;
    this.end = undefined;
  };

  // No parameter properties: the sources stay runnable with Node's type stripping (bench/).
  /** @example `new Burst(asyncScheduler)` @param scheduler - whose next action ends a burst. */
  constructor(scheduler: SchedulerLike) {
    this.scheduler = scheduler;
  }

  /**
   * The instant of the burst `now` falls in: `now` when it begins one.
   *
   * @example `burst.at(scheduler.now())`
   * @param now - the scheduler's time.
   * @returns the burst's instant.
   */
  at(now: number): number {
    if (this.instant === undefined) {
      this.instant = now;
      this.end = this.scheduler.schedule(this.ended);
    }
    return this.instant;
  }

  /** Forgets the burst and its scheduled end. @example `burst.cancel()` */
  cancel(): void {
    this.end?.unsubscribe();
    this.ended();
  }
}
