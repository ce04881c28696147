// Outcomes as short strings, so expected marbles read as a timeline of results.
import type { OperatorFunction } from 'rxjs';
import { map } from 'rxjs';
import type { Outcome } from '../operators/types.js';

/**
 * A compact label of an outcome: `<result> <cluster>/<namespace>/<name>`, then ` #<attempt>` when
 * the attempt is above 1 and ` +<retryIn>` when a retry or requeue was scheduled. Cluster-scoped
 * keys print as `<cluster>/<name>`.
 *
 * @example
 * ```ts
 * outcomeLabel(o); // 'done east/default/a', 'error east/default/a #2 +10', 'dropped east/a'
 * ```
 * @param o - the outcome.
 * @returns the label.
 */
export function outcomeLabel(o: Outcome): string {
  const where = o.key.namespace === '' ? `${o.cluster}/${o.key.name}` : `${o.cluster}/${o.key.namespace}/${o.key.name}`;
  const attempt = o.attempt > 1 ? ` #${o.attempt}` : '';
  const retry = o.retryAfterMs === undefined ? '' : ` +${o.retryAfterMs}`;
  return `${o.result} ${where}${attempt}${retry}`;
}

/**
 * Maps outcomes to {@link outcomeLabel}s, for `expectObservable(...).toBe(marble, labels)`.
 *
 * @example
 * ```ts
 * expectObservable(outcomes.pipe(toLabels())).toBe('10ms a', { a: 'done east/default/a' });
 * ```
 * @returns the operator.
 */
export function toLabels(): OperatorFunction<Outcome, string> {
  return map(outcomeLabel);
}
