// The operator machine under debounceByKey and throttleByKey: one window per key that has one
// open, every deadline in one Timers (the machine `reconcile`'s queue runs on too), windows of a
// removed cluster dropped, and open windows flushed when the input completes. A policy says what a
// window does.
import type { MonoTypeOperatorFunction, SchedulerLike } from 'rxjs';
import { Observable } from 'rxjs';
import { formatKey } from '../../core/key.js';
import type { KubeObject } from '../../core/object.js';
import type { ReconcileInput } from '../types.js';
import type { Timed } from './deadline-heap.js';
import { forgetCluster } from './keys.js';
import { Timers } from './timers.js';

/** An input that names a key (everything but `clusterRemoved`). */
export type KeyedInput<T extends KubeObject> = Exclude<ReconcileInput<T>, { readonly type: 'clusterRemoved' }>;

/** One key's open window: its string key and its place in the deadline heap. */
export interface KeyWindow extends Timed {
  readonly id: string;
}

/** What happens to a window when its deadline passes. */
export interface Expiry<T extends KubeObject> {
  /** Emit this now. */
  readonly emit?: KeyedInput<T>;
  /** Keep the window open until this time; closed when absent. */
  readonly next?: number;
}

/**
 * How a keyed-window operator behaves; the machine does the bookkeeping around it.
 *
 * @example
 * ```ts
 * // A policy that lets the first value through and swallows the rest for 100 ms.
 * const policy: WindowPolicy<ConfigMap, KeyWindow> = {
 *   open: (id: string, value: KeyedInput<ConfigMap>, now: number) => ({ window: { id, at: 0, heapIndex: -1 }, due: now + 100, emit: value }),
 *   update: () => undefined,
 *   expire: () => ({}),
 *   flush: () => undefined,
 * };
 * ```
 */
export interface WindowPolicy<T extends KubeObject, W extends KeyWindow> {
  /** A value for a key without an open window: the window (carrying `id`), its first deadline, and what to emit at once. */
  open(id: string, value: KeyedInput<T>, now: number): { readonly window: W; readonly due: number; readonly emit?: KeyedInput<T> };
  /** A value for a key whose window is open. */
  update(window: W, value: KeyedInput<T>, now: number): void;
  /** The window's deadline passed. */
  expire(window: W, now: number): Expiry<T>;
  /** The input completed: what an open window still owes, if anything. */
  flush(window: W): KeyedInput<T> | undefined;
}

/**
 * Runs a {@link WindowPolicy} per key. `clusterRemoved` passes through and drops that cluster's
 * windows; per-key state exists only while a window is open.
 *
 * @example
 * ```ts
 * const firstPer100ms = keyedWindows<ConfigMap, KeyWindow>(asyncScheduler, policy);
 * ```
 * @param scheduler - drives every deadline.
 * @param policy - what windows do.
 * @returns the operator.
 */
export function keyedWindows<T extends KubeObject, W extends KeyWindow>(scheduler: SchedulerLike, policy: WindowPolicy<T, W>): MonoTypeOperatorFunction<ReconcileInput<T>> {
  return (source) =>
    new Observable<ReconcileInput<T>>((subscriber) => {
      const open = new Map<string, W>();
      const timers = new Timers<W>(
        scheduler,
        (w, now) => {
          const { emit, next } = policy.expire(w, now);
          if (next === undefined) open.delete(w.id);
          else timers.set(w, next);
          if (emit !== undefined) subscriber.next(emit);
        },
        () => undefined,
      );
      const sub = source.subscribe({
        next: (value) => {
          if (value.type === 'clusterRemoved') {
            forgetCluster(open, value.cluster, (w) => {
              timers.cancel(w);
            });
            subscriber.next(value);
            return;
          }
          const id = formatKey(value.key);
          const now = scheduler.now();
          const existing = open.get(id);
          if (existing !== undefined) {
            policy.update(existing, value, now);
            return;
          }
          const { window, due, emit } = policy.open(id, value, now);
          open.set(id, window);
          timers.set(window, due);
          if (emit !== undefined) subscriber.next(emit);
        },
        error: (err: unknown) => {
          subscriber.error(err);
        },
        complete: () => {
          timers.clear();
          for (const w of open.values()) {
            const owed = policy.flush(w);
            if (owed !== undefined) subscriber.next(owed);
          }
          open.clear();
          subscriber.complete();
        },
      });
      return () => {
        sub.unsubscribe();
        timers.clear();
        open.clear();
      };
    });
}
