// Per-key throttle: the first change of a key goes through at once, later ones at most once per
// window. State is held only while a key's window is open.
import type { MonoTypeOperatorFunction, SchedulerLike } from 'rxjs';
import { asyncScheduler, Observable } from 'rxjs';
import { formatKey } from '../core/key.js';
import type { KubeObject } from '../core/object.js';
import { Alarm } from './internal/alarm.js';
import type { Timed } from './internal/deadline-heap.js';
import { DeadlineHeap } from './internal/deadline-heap.js';
import { forgetCluster } from './internal/keys.js';
import type { ReconcileInput } from './types.js';

interface Window<T extends KubeObject> extends Timed {
  readonly id: string;
  pending: ReconcileInput<T> | undefined;
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
 * @param config - the scheduler (default `asyncScheduler`).
 * @returns the operator.
 */
export function throttleByKey<T extends KubeObject>(duration: number, config: { readonly scheduler?: SchedulerLike } = {}): MonoTypeOperatorFunction<ReconcileInput<T>> {
  const scheduler = config.scheduler ?? asyncScheduler;
  return (source) =>
    new Observable<ReconcileInput<T>>((subscriber) => {
      const open = new Map<string, Window<T>>();
      const heap = new DeadlineHeap<Window<T>>();
      const alarm = new Alarm(scheduler, () => {
        const now = scheduler.now();
        for (let w = heap.peek(); w !== undefined && w.at <= now; w = heap.peek()) {
          heap.pop();
          const value = w.pending;
          if (value === undefined) {
            open.delete(w.id);
            continue;
          }
          w.pending = undefined;
          heap.push(w, now + duration);
          subscriber.next(value);
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
          const w = open.get(id);
          if (w !== undefined) {
            w.pending = value;
            return;
          }
          const fresh: Window<T> = { id, pending: undefined, at: 0, heapIndex: -1 };
          open.set(id, fresh);
          heap.push(fresh, scheduler.now() + duration);
          alarm.ringAt(fresh.at);
          subscriber.next(value);
        },
        error: (err: unknown) => {
          subscriber.error(err);
        },
        complete: () => {
          alarm.cancel();
          for (const w of open.values()) if (w.pending !== undefined) subscriber.next(w.pending);
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
