// Per-key trailing debounce with a max wait, for pipelines that debounce before something other
// than `reconcile` (whose queue debounces with the same windows). State is held only for keys
// inside a window.
import type { MonoTypeOperatorFunction, SchedulerLike } from 'rxjs';
import { asyncScheduler } from 'rxjs';
import type { KubeObject } from '../core/object.js';
import type { Debounced } from './internal/debounce-window.js';
import { extendWindow, moved, openWindow } from './internal/debounce-window.js';
import type { KeyedInput, KeyWindow } from './internal/keyed-windows.js';
import { keyedWindows } from './internal/keyed-windows.js';
import type { ReconcileInput } from './types.js';

/**
 * A trailing debounce with a max wait, the one shape every debounce of rxfleet takes
 * ({@link debounceByKey}, and the queue's `debounce` in `ReconcileOptions`/`QueueOptions`).
 *
 * @example
 * ```ts
 * const debounce: DebounceOptions = { waitMs: 100, maxWaitMs: 1_000 };
 * ```
 */
export interface DebounceOptions {
  /** Quiet time after a key's last change before it is let through, in ms; 0 turns the debounce off. */
  readonly waitMs: number;
  /** Longest a key waits after the first change of its window, in ms; default 10 × `waitMs`. */
  readonly maxWaitMs?: number;
}

/**
 * Options of {@link debounceByKey}: the {@link DebounceOptions} and the scheduler.
 *
 * @example
 * ```ts
 * const options: DebounceByKeyOptions = { waitMs: 100, maxWaitMs: 1_000, scheduler: asyncScheduler };
 * ```
 */
export interface DebounceByKeyOptions extends DebounceOptions {
  /** Drives the debounce timers. Default `asyncScheduler`. */
  readonly scheduler?: SchedulerLike;
}

interface Window<T extends KubeObject> extends KeyWindow, Debounced {
  value: KeyedInput<T>;
}

/**
 * Per key, emits the latest value once `waitMs` pass without a new one, or `maxWaitMs` after
 * the window opened, whichever comes first: plain debounce would hide an object that changes
 * constantly for ever (kube-rs documents this). `clusterRemoved` drops the open windows of its
 * cluster and passes at once; on completion, open windows are flushed (oldest first), then the
 * output completes. A key's state is released when its value is emitted.
 *
 * @example
 * ```ts
 * events.pipe(debounceByKey({ waitMs: 100, maxWaitMs: 1_000 })).subscribe(sendToWebhook);
 * ```
 * @see throttleByKey
 * @param options - quiet time, max wait and scheduler.
 * @returns the operator.
 */
export function debounceByKey<T extends KubeObject>(options: DebounceByKeyOptions): MonoTypeOperatorFunction<ReconcileInput<T>> {
  const { waitMs } = options;
  const span = { waitMs, maxWaitMs: Math.max(waitMs, options.maxWaitMs ?? waitMs * 10) };
  return keyedWindows<T, Window<T>>(options.scheduler ?? asyncScheduler, {
    open: (id, value, now) => {
      const window: Window<T> = { id, value, firstAt: now, due: now, at: 0, heapIndex: -1 };
      return { window, due: openWindow(window, span, now, now) };
    },
    update: (w, value, now) => {
      w.value = value;
      extendWindow(w, span, now);
    },
    expire: (w) => (moved(w) ? { next: w.due } : { emit: w.value }),
    flush: (w) => w.value,
  });
}
