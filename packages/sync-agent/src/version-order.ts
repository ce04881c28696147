// Kubernetes' version priority (apimachinery's CompareKubeAwareVersionStrings): GA before beta
// before alpha, higher numbers first, then versions that do not look like Kubernetes versions, in
// alphabetical order. The sync agent picks "the highest published version" with it.

const KUBE_VERSION = /^v(\d+)(?:(alpha|beta)(\d+))?$/;

function rank(v: string): readonly [number, number, number] | undefined {
  const m = KUBE_VERSION.exec(v);
  if (m === null) return undefined;
  const stability = m[2] === undefined ? 2 : m[2] === 'beta' ? 1 : 0;
  return [stability, Number(m[1]), m[3] === undefined ? 0 : Number(m[3])];
}

/**
 * Orders two API version names by Kubernetes' priority: negative when `a` comes first (has the
 * higher priority). `v2` < `v1` < `v1beta2` < `v1beta1` < `v1alpha1` < `foo` < `zoo`, as sorted.
 *
 * @example
 * ```ts
 * ['v1alpha1', 'v1', 'v2beta1'].sort(compareKubeVersions); // ['v1', 'v2beta1', 'v1alpha1']
 * ```
 * @param a - a version name.
 * @param b - another version name.
 * @returns negative when `a` has the higher priority, positive when `b` has, 0 when equal.
 */
export function compareKubeVersions(a: string, b: string): number {
  const ra = rank(a);
  const rb = rank(b);
  if (ra === undefined || rb === undefined) {
    if (ra !== undefined) return -1;
    if (rb !== undefined) return 1;
    return a < b ? -1 : a > b ? 1 : 0;
  }
  for (let i = 0; i < 3; i++) {
    const d = (rb[i] ?? 0) - (ra[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}
