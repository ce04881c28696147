// Per-key trailing debounce with a max wait, for pipelines that debounce before something other
// than `reconcile` (which has its own). State is held only for keys inside a window.
import type { MonoTypeOperatorFunction, SchedulerLike } from 'rxjs';
import { asyncScheduler } from 'rxjs';
import type { KubeObject } from '../core/object.js';
import type { KeyedInput, KeyWindow } from './internal/keyed-windows.js';
import { keyedWindows } from './internal/keyed-windows.js';
import type { ReconcileInput } from './types.js';

/**
 * Options of {@link debounceByKey}.
 *
 * @example
 * ```ts
 * const config: DebounceByKeyConfig = { maxWait: 1_000, scheduler: asyncScheduler };
 * ```
 */
export interface DebounceByKeyConfig {
  /** Longest a key's window stays open after its first value. Default 10 × `dueTime`. */
  readonly maxWait?: number;
  readonly scheduler?: SchedulerLike;
}

interface Window<T extends KubeObject> extends KeyWindow {
  value: KeyedInput<T>;
  readonly firstAt: number;
  due: number;
}

/**
 * Per key, emits the latest value once `dueTime` ms pass without a new one, or `maxWait` ms after
 * the window opened, whichever comes first: plain debounce would hide an object that changes
 * constantly for ever (kube-rs documents this). `clusterRemoved` drops the open windows of its
 * cluster and passes at once; on completion, open windows are flushed (oldest first), then the
 * output completes. A key's state is released when its value is emitted.
 *
 * @example
 * ```ts
 * events.pipe(debounceByKey(100, { maxWait: 1_000 })).subscribe(sendToWebhook);
 * ```
 * @see throttleByKey
 * @param dueTime - quiet time in milliseconds.
 * @param config - max wait and scheduler.
 * @returns the operator.
 */
export function debounceByKey<T extends KubeObject>(dueTime: number, config: DebounceByKeyConfig = {}): MonoTypeOperatorFunction<ReconcileInput<T>> {
  const maxWait = Math.max(dueTime, config.maxWait ?? dueTime * 10);
  return keyedWindows<T, Window<T>>(config.scheduler ?? asyncScheduler, {
    open: (id, value, now) => ({ window: { id, value, firstAt: now, due: now + dueTime, at: 0, heapIndex: -1 }, due: now + dueTime }),
    update: (w, value, now) => {
      // Each change pushes the deadline out, but never past the first change plus maxWait.
      w.value = value;
      w.due = Math.min(now + dueTime, w.firstAt + maxWait);
    },
    expire: (w) => (w.due > w.at ? { next: w.due } : { emit: w.value }),
    flush: (w) => w.value,
  });
}
