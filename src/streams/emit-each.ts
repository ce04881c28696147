// Map-to-many for the per-event path of a watch. `mergeMap`/`concatMap` over an array subscribe to
// an inner observable for every value (a subscriber, a subscription, its teardown list): on a
// streaming list of thousands of objects that was a large share of the pipeline's CPU.
import type { OperatorFunction } from 'rxjs';
import { Observable } from 'rxjs';

/**
 * Emits, in order and synchronously, every value `project` returns for each source value. What
 * `concatMap((v) => project(v))` does for a synchronous array, without an inner subscription per
 * value. A `project` that throws, or calls its `fail` argument, errors the stream with that error
 * (after emitting nothing of that value's array); `fail` counts only while a `project` call runs
 * (one `fail` serves every value of a subscription). Emitting stops as soon as downstream
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
    new Observable<R>((subscriber) => {
      // One `fail` per subscription, not per value: this runs for every event of every watch, and a
      // closure plus a state object per value was garbage the young generation had to collect.
      let failure: { readonly error: unknown } | undefined;
      const fail = (error: unknown): void => {
        failure = { error };
      };
      // Read through a call: TypeScript would keep `failure` narrowed to undefined across `project`.
      const failedWith = (): { readonly error: unknown } | undefined => failure;
      return source.subscribe({
        next: (value) => {
          let out: readonly R[];
          // A `fail` called outside a `project` call (later, or downstream) counts for nothing.
          failure = undefined;
          try {
            out = project(value, fail);
          } catch (e: unknown) {
            subscriber.error(e);
            return;
          }
          const failed = failedWith();
          if (failed !== undefined) {
            subscriber.error(failed.error);
            return;
          }
          // Indexed: here for-of allocated an iterator and a result per value (sampled heap profile).
          // eslint-disable-next-line @typescript-eslint/prefer-for-of -- see above: the hot path of every watch
          for (let i = 0; i < out.length; i++) {
            if (subscriber.closed) return;
            subscriber.next(out[i] as R);
          }
        },
        error: (e: unknown) => {
          subscriber.error(e);
        },
        complete: () => {
          subscriber.complete();
        },
      });
    });
}
