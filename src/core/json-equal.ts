// Whether two values have the same JSON content, without building the JSON: the comparison every
// write makes (a write's `changed`, the cache's proof that an apply would change nothing), which
// turning both sides into canonical JSON made one of the larger allocators per reconcile.
import { canonicalJson } from './canonical-json.js';

const isRecord = (v: unknown): v is Readonly<Record<string, unknown>> => typeof v === 'object' && v !== null && !Array.isArray(v);
const hasToJson = (v: unknown): boolean => typeof v === 'object' && v !== null && typeof (v as { toJSON?: unknown }).toJSON === 'function';

// What JSON.stringify writes for a value in an array: undefined, functions, symbols and non-finite
// numbers become null there.
function asArrayItem(v: unknown): unknown {
  if (v === undefined || typeof v === 'function' || typeof v === 'symbol') return null;
  if (typeof v === 'number' && !Number.isFinite(v)) return null;
  return v;
}

// Whether JSON.stringify leaves a property out of an object: undefined, functions and symbols.
const omitted = (v: unknown): boolean => v === undefined || typeof v === 'function' || typeof v === 'symbol';

function sameRecords(a: Readonly<Record<string, unknown>>, b: Readonly<Record<string, unknown>>, skip: ReadonlySet<string> | undefined): boolean {
  let stated = 0;
  for (const k in a) {
    if (!Object.hasOwn(a, k) || skip?.has(k) === true || omitted(a[k])) continue;
    stated += 1;
    if (!Object.hasOwn(b, k) || !sameJsonContent(a[k], b[k])) return false;
  }
  for (const k in b) if (Object.hasOwn(b, k) && skip?.has(k) !== true && !omitted(b[k])) stated -= 1;
  return stated === 0;
}

/**
 * Whether `a` and `b` serialise to the same JSON, whatever order their keys were written in: the
 * same as `canonicalJson(a) === canonicalJson(b)`, without allocating either text. Values with a
 * `toJSON` method (a Date) are compared through their canonical JSON.
 *
 * @example
 * ```ts
 * sameJsonContent({ b: 1, a: [1, { c: 2 }] }, { a: [1, { c: 2 }], b: 1 }); // true
 * sameJsonContent({ a: undefined }, {}); // true: JSON leaves it out
 * ```
 * @param a - a JSON-serialisable value.
 * @param b - another.
 * @param skipKeys - top-level keys of two objects to leave out of the comparison.
 * @returns whether their JSON is the same.
 */
export function sameJsonContent(a: unknown, b: unknown, skipKeys?: ReadonlySet<string>): boolean {
  if (a === b && skipKeys === undefined) return true;
  if (hasToJson(a) || hasToJson(b)) return canonicalJson(a) === canonicalJson(b);
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return scalarsMatch(a, b);
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJsonContent(asArrayItem(a[i]), asArrayItem(b[i]))) return false;
    return true;
  }
  return isRecord(a) && isRecord(b) && sameRecords(a, b, skipKeys);
}

// Two values of which at least one is not an object: JSON writes non-finite numbers as null.
function scalarsMatch(a: unknown, b: unknown): boolean {
  const norm = (v: unknown): unknown => (typeof v === 'number' && !Number.isFinite(v) ? null : v);
  return norm(a) === norm(b);
}
