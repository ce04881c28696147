// Kubernetes label selectors (metav1.LabelSelector), evaluated against cluster labels: which clusters a
// controller watches (`select.clusterSelector`) and which receive a fan-out copy.

import type { LabelSelector } from '../resources/meta-v1/types.js';

// One home, rxfleet/resources (metav1.LabelSelector, generated): named here for the core's users.
export type { LabelSelector } from '../resources/meta-v1/types.js';

const operators: ReadonlySet<string> = new Set(['In', 'NotIn', 'Exists', 'DoesNotExist']);

/**
 * What is wrong with a selector, in words, or `undefined` when nothing is: an operator other than
 * `In`, `NotIn`, `Exists` and `DoesNotExist` (the API server refuses any other), or `In`/`NotIn`
 * without values.
 *
 * @example
 * ```ts
 * selectorProblem({ matchExpressions: [{ key: 'tier', operator: 'in' }] }); // 'matchExpressions[0] (tier): operator "in" is not In, NotIn, Exists or DoesNotExist'
 * ```
 * @param sel - the selector.
 * @returns the problem, or undefined.
 */
export function selectorProblem(sel: LabelSelector): string | undefined {
  for (const [i, e] of (sel.matchExpressions ?? []).entries()) {
    if (!operators.has(e.operator)) return `matchExpressions[${i}] (${e.key}): operator ${JSON.stringify(e.operator)} is not In, NotIn, Exists or DoesNotExist`;
    if ((e.operator === 'In' || e.operator === 'NotIn') && (e.values ?? []).length === 0) return `matchExpressions[${i}] (${e.key}): ${e.operator} needs values`;
  }
  return undefined;
}

/**
 * Whether labels satisfy a selector.
 *
 * @example
 * ```ts
 * matchesSelector({ matchLabels: { tier: 'prod' } }, { tier: 'prod', region: 'eu' }); // true
 * ```
 * @param sel - the selector.
 * @param labels - the labels.
 * @returns true when every requirement holds; false for a requirement with an operator Kubernetes
 *   does not know (see {@link selectorProblem}): a selector that cannot be read selects nothing.
 */
export function matchesSelector(sel: LabelSelector, labels: Readonly<Record<string, string>>): boolean {
  for (const [k, v] of Object.entries(sel.matchLabels ?? {})) if (labels[k] !== v) return false;
  for (const e of sel.matchExpressions ?? []) {
    const has = Object.hasOwn(labels, e.key);
    const value = labels[e.key];
    const inValues = value !== undefined && (e.values ?? []).includes(value);
    if (e.operator === 'In' && !inValues) return false;
    if (e.operator === 'NotIn' && has && inValues) return false;
    if (e.operator === 'Exists' && !has) return false;
    if (e.operator === 'DoesNotExist' && has) return false;
    if (!operators.has(e.operator)) return false;
  }
  return true;
}
