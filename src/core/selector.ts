// Kubernetes label selectors (metav1.LabelSelector), evaluated against cluster labels: which clusters a
// controller watches (`select.clusterSelector`) and which receive a fan-out copy.

/**
 * A Kubernetes label selector (metav1.LabelSelector). Both parts must match; an empty selector
 * matches everything.
 *
 * @example
 * ```ts
 * const sel: LabelSelector = { matchLabels: { tier: 'prod' }, matchExpressions: [{ key: 'region', operator: 'In', values: ['eu', 'us'] }] };
 * ```
 */
export interface LabelSelector {
  /** Labels that must be present with exactly these values. */
  readonly matchLabels?: Readonly<Record<string, string>>;
  /** Requirements on labels, all of which must hold. */
  readonly matchExpressions?: readonly {
    /** The label key the requirement is about. */
    readonly key: string;
    /** `In` / `NotIn`: the label's value is (not) one of `values` (a missing label passes `NotIn`); `Exists` / `DoesNotExist`: the key is (not) present. */
    readonly operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';
    /** Values for `In` and `NotIn`; ignored by `Exists` and `DoesNotExist`. */
    readonly values?: readonly string[];
  }[];
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
 * @returns true when every requirement holds.
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
  }
  return true;
}
