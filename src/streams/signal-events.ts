// Splitting watch signals, events side: what most pipelines want from a watch.
import type { OperatorFunction } from 'rxjs';
import { Observable } from 'rxjs';
import type { KubeObject } from '../core/object.js';
import type { WatchEvent } from './events.js';
import type { WatchSignal } from './watch-health.js';

/**
 * Keeps the events of a signal stream and drops the health snapshots.
 *
 * @example
 * ```ts
 * watchSignals(source, config).pipe(signalEvents()).subscribe((ev) => console.log(ev.type));
 * ```
 * @see signalHealth
 * @returns an operator from signals to {@link WatchEvent}s.
 */
export function signalEvents<T extends KubeObject>(): OperatorFunction<WatchSignal<T>, WatchEvent<T>> {
  // One subscriber rather than filter + map: this sits on every event of every watch.
  return (signals) =>
    new Observable<WatchEvent<T>>((subscriber) =>
      signals.subscribe({
        next: (s) => {
          if (s.type === 'event') subscriber.next(s.event);
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
