// Splitting watch signals, events side: what most pipelines want from a watch.
import type { OperatorFunction } from 'rxjs';
import { filter, map } from 'rxjs';
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
  return (signals) =>
    signals.pipe(
      filter((s): s is Extract<WatchSignal<T>, { type: 'event' }> => s.type === 'event'),
      map((s) => s.event),
    );
}
