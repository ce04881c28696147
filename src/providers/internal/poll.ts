// When discovery looks again: at once, then every `intervalMs`, and shortly after any change signal
// (file-system events), through the scheduler so marble tests drive it.
import type { Observable, SchedulerLike } from 'rxjs';
import { debounceTime, EMPTY, map, merge, timer } from 'rxjs';

/**
 * Ticks at subscription, every `intervalMs` after, and `debounceMs` after the last of a burst of
 * `kicks` (an editor's save emits several file events; one rescan follows).
 *
 * @example
 * ```ts
 * rescanTicks(10_000, asyncScheduler, fsEvents, 200).pipe(map(scan));
 * ```
 * @param intervalMs - the periodic rescan, the safety net when change signals are missed.
 * @param scheduler - the clock.
 * @param kicks - change signals.
 * @param debounceMs - quiet time after a kick before ticking.
 * @returns the ticks.
 */
export function rescanTicks(intervalMs: number, scheduler: SchedulerLike, kicks: Observable<unknown> = EMPTY, debounceMs = 0): Observable<void> {
  return merge(timer(0, intervalMs, scheduler), kicks.pipe(debounceTime(debounceMs, scheduler))).pipe(map(() => undefined));
}
