// A bound on how many observables run at once, shared by the calls of one limiter: the engine's
// first-contact probes go through one, so that a fleet of thousands does not open every TLS
// connection in one burst, while each cluster still engages as soon as its own probe answers.
import type { MonoTypeOperatorFunction, Subscription } from 'rxjs';
import { Observable as RxObservable } from 'rxjs';

/**
 * A limiter: each observable passed through it is subscribed only while fewer than `max` others
 * are running (completed, failed or unsubscribed ones free their place), in the order they asked.
 *
 * @example
 * ```ts
 * const limited = concurrencyLimit(16);
 * probes.map((p: Observable<unknown>) => p.pipe(limited));
 * ```
 * @param max - how many may run at once (≥ 1).
 * @returns the operator, one queue for every observable piped through it.
 */
export function concurrencyLimit<T>(max: number): MonoTypeOperatorFunction<T> {
  let running = 0;
  const waiting = new Set<() => void>();
  const next = (): void => {
    const first = waiting.values().next();
    if (first.done === true) return;
    waiting.delete(first.value);
    first.value();
  };
  return (source) =>
    new RxObservable<T>((subscriber) => {
      let inner: Subscription | undefined;
      let ended = false;
      const end = (): void => {
        if (ended) return;
        ended = true;
        running -= 1;
        next();
      };
      const start = (): void => {
        running += 1;
        inner = source.subscribe({
          next: (v) => {
            subscriber.next(v);
          },
          error: (err: unknown) => {
            end();
            subscriber.error(err);
          },
          complete: () => {
            end();
            subscriber.complete();
          },
        });
      };
      if (running < max) start();
      else waiting.add(start);
      return () => {
        waiting.delete(start);
        inner?.unsubscribe();
        if (inner !== undefined) end();
      };
    });
}
