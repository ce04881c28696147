// A bound on how many observables hold a place at once, shared by every run of one limiter, in the
// order they asked. The one such mechanism of the project: the providers' first-contact probes go
// through one (so that a fleet of thousands does not open every TLS connection in one burst), and
// the watches' lists go through one per server (list-pacing.ts), where a place is given back as
// soon as the list is over, while the watch itself goes on.
import type { MonoTypeOperatorFunction, Observable, Subscription } from 'rxjs';
import { Observable as RxObservable } from 'rxjs';

/**
 * Places shared by the observables run through it.
 *
 * @example
 * ```ts
 * const lists = limiter(8);
 * lists.run((release: () => void) => streamingList.pipe(tap((s: string) => s === 'synced' && release())));
 * ```
 */
export interface Limiter {
  /**
   * Subscribes to `make(release)` once a place is free (at once if one is). The place is given back
   * by the first of: `release()`, the observable completing or failing, the subscriber leaving.
   * A subscriber leaving while it waits gives up its turn.
   */
  run<T>(make: (release: () => void) => Observable<T>): Observable<T>;
  /** How many hold a place now. */
  readonly running: number;
  /** How many wait for one. */
  readonly waiting: number;
}

/**
 * A limiter of `max` places; `onIdle` runs each time the last place is given back with nobody
 * waiting (so an owner of many limiters can drop idle ones).
 *
 * @example
 * ```ts
 * const probes = limiter(16);
 * candidates.map((c: Observable<unknown>) => probes.run(() => c));
 * ```
 * @param max - how many may hold a place at once (≥ 1).
 * @param onIdle - called when nothing runs and nothing waits any more.
 * @returns the limiter.
 */
export function limiter(max: number, onIdle?: () => void): Limiter {
  let running = 0;
  const waiting = new Set<() => void>();
  let draining = false;
  // A loop, not recursion: a started run that ends synchronously must not start the next one
  // inside its own call stack (thousands of waiting runs would overflow it).
  const drain = (): void => {
    if (draining) return;
    draining = true;
    try {
      for (let first = waiting.values().next(); running < max && first.done !== true; first = waiting.values().next()) {
        waiting.delete(first.value);
        first.value();
      }
    } finally {
      draining = false;
    }
    if (running === 0 && waiting.size === 0) onIdle?.();
  };
  const run = <T>(make: (release: () => void) => Observable<T>): Observable<T> =>
    new RxObservable<T>((subscriber) => {
      let inner: Subscription | undefined;
      let holding = false;
      const release = (): void => {
        if (!holding) return;
        holding = false;
        running -= 1;
        drain();
      };
      const start = (): void => {
        holding = true;
        running += 1;
        inner = make(release).subscribe({
          next: (v) => {
            subscriber.next(v);
          },
          // The place is given back before the subscriber hears the end, so the next run starts first.
          error: (err: unknown) => {
            release();
            subscriber.error(err);
          },
          complete: () => {
            release();
            subscriber.complete();
          },
        });
        // A subscriber that left during the synchronous part of the subscription could not reach `inner`.
        if (subscriber.closed) inner.unsubscribe();
      };
      waiting.add(start);
      drain();
      return () => {
        if (waiting.delete(start) && running === 0 && waiting.size === 0) onIdle?.();
        inner?.unsubscribe();
        release();
      };
    });
  return {
    run,
    get running() {
      return running;
    },
    get waiting() {
      return waiting.size;
    },
  };
}

/**
 * A limiter as an operator: each observable piped through it is subscribed only while fewer than
 * `max` others are running (completed, failed or unsubscribed ones free their place), in the order
 * they asked.
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
  const places = limiter(max);
  return (source) => places.run(() => source);
}
