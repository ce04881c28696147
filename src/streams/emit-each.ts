// Map-to-many for the per-event path of a watch. `mergeMap`/`concatMap` over an array subscribe to
// an inner observable for every value (a subscriber, a subscription, its teardown list): on a
// streaming list of thousands of objects that was a large share of the pipeline's CPU.
import type { OperatorFunction } from 'rxjs';
import { Observable } from 'rxjs';

/**
 * Emits, in order and synchronously, every value `project` returns for each source value. What
 * `concatMap((v) => project(v))` does for a synchronous array, without an inner subscription per
 * value. A `project` that throws, or calls its `fail` argument, errors the stream with that error
 * (after emitting nothing of that value's array); emitting stops as soon as downstream
 * unsubscribes, even in the middle of one value's array.
 *
 * @example
 * ```ts
 * events.pipe(emitEach((ev: WatchEvent<ConfigMap>) => store.apply(cluster.name, ev))).subscribe();
 * ```
 * @param project - the values to emit for one source value (none, one or many); `fail(e)` errors the stream instead.
 * @returns the operator.
 */
export function emitEach<T, R>(project: (value: T, fail: (error: unknown) => void) => readonly R[]): OperatorFunction<T, R> {
  return (source) =>
    new Observable<R>((subscriber) =>
      source.subscribe({
        next: (value) => {
          let out: readonly R[];
          const failure: { failed: boolean; error?: unknown } = { failed: false };
          try {
            out = project(value, (error) => {
              failure.failed = true;
              failure.error = error;
            });
          } catch (e: unknown) {
            subscriber.error(e);
            return;
          }
          if (failure.failed) {
            subscriber.error(failure.error);
            return;
          }
          for (const r of out) {
            if (subscriber.closed) return;
            subscriber.next(r);
          }
        },
        error: (e: unknown) => {
          subscriber.error(e);
        },
        complete: () => {
          subscriber.complete();
        },
      }),
    );
}
