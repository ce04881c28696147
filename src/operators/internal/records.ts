// Equality of label and annotation maps, for the metadata predicates.

/**
 * Whether two string maps hold the same entries; `undefined` equals `{}`.
 *
 * @example
 * ```ts
 * sameRecord({ a: '1' }, { a: '1' }); // true
 * sameRecord(undefined, {});          // true
 * ```
 * @param a - one map.
 * @param b - the other.
 * @returns true when equal.
 */
export function sameRecord(a: Readonly<Record<string, string>> | undefined, b: Readonly<Record<string, string>> | undefined): boolean {
  if (a === b) return true;
  const ak = Object.keys(a ?? {});
  if (ak.length !== Object.keys(b ?? {}).length) return false;
  return ak.every((k) => a?.[k] === b?.[k] && Object.hasOwn(b ?? {}, k));
}
