// When discovery looks again: at once, then every `interval`, and shortly after any change signal
// (file-system events), through the scheduler so marble tests drive it.
import type { Observable, SchedulerLike } from 'rxjs';
import { debounceTime, EMPTY, map, merge, timer } from 'rxjs';

/**
 * Ticks at subscription, every `interval` ms after, and `debounce` ms after the last of a burst of
 * `kicks` (an editor's save emits several file events; one rescan follows).
 *
 * @example
 * ```ts
 * rescanTicks(10_000, asyncScheduler, fsEvents, 200).pipe(map(scan));
 * ```
 * @param interval - the periodic rescan (ms), the safety net when change signals are missed.
 * @param scheduler - the clock.
 * @param kicks - change signals.
 * @param debounce - quiet time after a kick before ticking (ms).
 * @returns the ticks.
 */
export function rescanTicks(interval: number, scheduler: SchedulerLike, kicks: Observable<unknown> = EMPTY, debounce = 0): Observable<void> {
  return merge(timer(0, interval, scheduler), kicks.pipe(debounceTime(debounce, scheduler))).pipe(map(() => undefined));
}
