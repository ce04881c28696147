// Per-key throttle: the first change of a key goes through at once, later ones at most once per
// window. State is held only while a key's window is open.
import type { MonoTypeOperatorFunction, SchedulerLike } from 'rxjs';
import { asyncScheduler } from 'rxjs';
import type { KubeObject } from '../core/object.js';
import type { KeyedInput, KeyWindow } from './internal/keyed-windows.js';
import { keyedWindows } from './internal/keyed-windows.js';
import type { ReconcileInput } from './types.js';

/**
 * Options of {@link throttleByKey}.
 *
 * @example
 * ```ts
 * const options: ThrottleByKeyOptions = { scheduler: asyncScheduler };
 * ```
 */
export interface ThrottleByKeyOptions {
  /** Drives the throttle windows. Default `asyncScheduler`. */
  readonly scheduler?: SchedulerLike;
}

interface Window<T extends KubeObject> extends KeyWindow {
  pending: KeyedInput<T> | undefined;
}

/**
 * Per key, emits the first value at once and opens a `duration` ms window; the latest value seen
 * during the window is emitted when it ends (leading and trailing), which opens the next window.
 * A change is therefore never delayed by more than `duration`: the max wait is the window. A key
 * whose window ends with nothing pending is forgotten. `clusterRemoved` drops its cluster's
 * windows and passes at once; on completion, pending values are flushed, then the output
 * completes.
 *
 * @example
 * ```ts
 * // At most one status write per object per second, never losing the last change.
 * events.pipe(throttleByKey(1_000), reconcile(writeStatus));
 * ```
 * @see debounceByKey
 * @param duration - window length in milliseconds.
 * @param options - the scheduler (default `asyncScheduler`).
 * @returns the operator.
 */
export function throttleByKey<T extends KubeObject>(duration: number, options: ThrottleByKeyOptions = {}): MonoTypeOperatorFunction<ReconcileInput<T>> {
  return keyedWindows<T, Window<T>>(options.scheduler ?? asyncScheduler, {
    // The first change goes through at once and opens the window.
    open: (id, value, now) => ({ window: { id, pending: undefined, at: 0, heapIndex: -1 }, due: now + duration, emit: value }),
    update: (w, value) => {
      w.pending = value;
    },
    // At the end of a window, the latest change held back goes out and opens the next window.
    expire: (w, now) => {
      const value = w.pending;
      if (value === undefined) return {};
      w.pending = undefined;
      return { emit: value, next: now + duration };
    },
    flush: (w) => w.pending,
  });
}
