// One way to turn a value into JSON whose text depends only on its content, not on the order its
// keys were written in: for comparing objects (a write's `changed`) and for content hashes (an
// APIResourceSchema's name).

/**
 * JSON with every object's keys sorted (arrays keep their order).
 *
 * @example
 * ```ts
 * canonicalJson({ b: 1, a: { d: 2, c: 3 } }) === canonicalJson({ a: { c: 3, d: 2 }, b: 1 }); // true
 * ```
 * @param v - any JSON-serialisable value.
 * @returns its canonical JSON text.
 */
export function canonicalJson(v: unknown): string {
  return JSON.stringify(v, (_k, val: unknown) =>
    typeof val === 'object' && val !== null && !Array.isArray(val) ? Object.fromEntries(Object.entries(val).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : val,
  );
}
