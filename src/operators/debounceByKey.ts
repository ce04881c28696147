// Per-key trailing debounce with a max wait, for pipelines that debounce before something other
// than `reconcile` (which has its own). State is held only for keys inside a window.
import type { MonoTypeOperatorFunction, SchedulerLike } from 'rxjs';
import { asyncScheduler, Observable } from 'rxjs';
import { formatKey } from '../core/key.js';
import type { KubeObject } from '../core/object.js';
import { Alarm } from './internal/alarm.js';
import type { Timed } from './internal/deadline-heap.js';
import { DeadlineHeap } from './internal/deadline-heap.js';
import { forgetCluster } from './internal/keys.js';
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

interface Window<T extends KubeObject> extends Timed {
  readonly id: string;
  value: ReconcileInput<T>;
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
  const scheduler = config.scheduler ?? asyncScheduler;
  const maxWait = Math.max(dueTime, config.maxWait ?? dueTime * 10);
  return (source) =>
    new Observable<ReconcileInput<T>>((subscriber) => {
      const open = new Map<string, Window<T>>();
      const heap = new DeadlineHeap<Window<T>>();
      const alarm = new Alarm(scheduler, () => {
        const now = scheduler.now();
        for (let w = heap.peek(); w !== undefined && w.at <= now; w = heap.peek()) {
          heap.pop();
          if (w.due > w.at) {
            heap.push(w, w.due);
            continue;
          }
          open.delete(w.id);
          subscriber.next(w.value);
        }
        alarm.ringAt(heap.peek()?.at);
      });
      const sub = source.subscribe({
        next: (value) => {
          if (value.type === 'clusterRemoved') {
            forgetCluster(open, value.cluster, (w) => {
              heap.remove(w);
            });
            subscriber.next(value);
            return;
          }
          const id = formatKey(value.key);
          const now = scheduler.now();
          const w = open.get(id);
          if (w !== undefined) {
            w.value = value;
            w.due = Math.min(now + dueTime, w.firstAt + maxWait);
            return;
          }
          const fresh: Window<T> = { id, value, firstAt: now, due: now + dueTime, at: 0, heapIndex: -1 };
          open.set(id, fresh);
          heap.push(fresh, fresh.due);
          alarm.ringAt(fresh.due);
        },
        error: (err: unknown) => {
          subscriber.error(err);
        },
        complete: () => {
          alarm.cancel();
          for (const w of open.values()) subscriber.next(w.value);
          open.clear();
          heap.clear();
          subscriber.complete();
        },
      });
      return () => {
        sub.unsubscribe();
        alarm.cancel();
        open.clear();
        heap.clear();
      };
    });
}
