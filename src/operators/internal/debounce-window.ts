// The arithmetic of a trailing debounce with a max wait, shared by `debounceByKey` and `reconcile`:
// each change pushes the deadline out, never past the window's first change plus the max wait.
import type { Timed } from './deadline-heap.js';

/**
 * How long a key stays quiet before it goes, and the longest its window stays open.
 *
 * @example
 * ```ts
 * const span: DebounceSpan = { waitMs: 100, maxWaitMs: 1_000 };
 * ```
 */
export interface DebounceSpan {
  readonly waitMs: number;
  readonly maxWaitMs: number;
}

/**
 * A debounce window in a {@link Timers}: `at` is where it sits in the heap, `due` its true
 * deadline. Changes only move `due` (later); the heap re-files the window when it pops early, so a
 * burst of changes costs no heap operation.
 *
 * @example
 * ```ts
 * const w: Debounced = { at: 0, heapIndex: -1, firstAt: 0, due: 0 };
 * ```
 */
export interface Debounced extends Timed {
  firstAt: number;
  due: number;
}

/**
 * Opens a window.
 *
 * @example `timers.set(w, openWindow(w, span, now, now))`
 * @param w - the window.
 * @param span - wait and max wait.
 * @param now - the current time.
 * @param since - when the first change of the window happened (earlier than `now` for a change
 *   that waited for a run to end).
 * @returns the deadline.
 */
export function openWindow(w: Debounced, span: DebounceSpan, now: number, since: number): number {
  w.firstAt = since;
  w.due = Math.min(now + span.waitMs, since + span.maxWaitMs);
  return w.due;
}

/**
 * A change inside an open window: the deadline moves out.
 *
 * @example `extendWindow(w, span, scheduler.now())`
 * @param w - the window.
 * @param span - wait and max wait.
 * @param now - the current time.
 */
export function extendWindow(w: Debounced, span: DebounceSpan, now: number): void {
  w.due = Math.min(now + span.waitMs, w.firstAt + span.maxWaitMs);
}

/**
 * Whether a window that popped from the heap was moved later meanwhile (then it goes back in at
 * `due`) rather than expired.
 *
 * @example `if (moved(w)) timers.set(w, w.due); else emit(w);`
 * @param w - the window.
 * @returns true when it must wait on.
 */
export function moved(w: Debounced): boolean {
  return w.due > w.at;
}
