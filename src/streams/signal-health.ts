// Splitting watch signals, health side: what probes, metrics and logs want from a watch.
import type { OperatorFunction } from 'rxjs';
import { filter, map } from 'rxjs';
import type { KubeObject } from '../core/object.js';
import type { WatchHealth, WatchSignal } from './watch-health.js';

/**
 * Keeps the health snapshots of a signal stream and drops the events.
 *
 * @example
 * ```ts
 * watchSignals(source, config).pipe(signalHealth()).subscribe((h) => metrics.set(h.cluster, h.state));
 * ```
 * @see signalEvents
 * @returns an operator from signals to {@link WatchHealth}.
 */
export function signalHealth<T extends KubeObject>(): OperatorFunction<WatchSignal<T>, WatchHealth> {
  return (signals) =>
    signals.pipe(
      filter((s): s is Extract<WatchSignal<T>, { type: 'health' }> => s.type === 'health'),
      map((s) => s.health),
    );
}
