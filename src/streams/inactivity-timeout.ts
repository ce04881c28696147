// A watch's dead-stream detector. rxjs `timeout({ each })` cancels and re-arms a timer on every
// value: on a streaming list that is a clearInterval + setInterval per object. Here one timer runs
// per window and, when it fires, looks at when the last value came: same deadline, no churn.
import type { MonoTypeOperatorFunction, SchedulerAction, SchedulerLike } from 'rxjs';
import { Observable } from 'rxjs';

/**
 * Errors the stream with `error()` when no value arrives for `ms` (counted from subscription, then
 * from each value), as `timeout({ each: ms, with: () => throwError(error), scheduler })` does, with
 * one scheduled action per quiet window instead of one per value.
 *
 * @example
 * ```ts
 * lines.pipe(inactivityTimeout(120_000, asyncScheduler, () => new Error('no line for 2 minutes')));
 * ```
 * @param ms - the longest quiet time allowed.
 * @param scheduler - the clock and timer.
 * @param error - builds what the stream errors with.
 * @returns the operator.
 */
export function inactivityTimeout<T>(ms: number, scheduler: SchedulerLike, error: () => unknown): MonoTypeOperatorFunction<T> {
  return (source) =>
    new Observable<T>((subscriber) => {
      let last = scheduler.now();
      const timer = scheduler.schedule(function (this: SchedulerAction<undefined>) {
        const quiet = scheduler.now() - last;
        if (quiet < ms) {
          this.schedule(undefined, ms - quiet);
          return;
        }
        inner.unsubscribe();
        subscriber.error(error());
      }, ms);
      const inner = source.subscribe({
        next: (value) => {
          last = scheduler.now();
          subscriber.next(value);
        },
        error: (e: unknown) => {
          subscriber.error(e);
        },
        complete: () => {
          subscriber.complete();
        },
      });
      return () => {
        timer.unsubscribe();
        inner.unsubscribe();
      };
    });
}
