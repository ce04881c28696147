// What a read asks, as a key: two reads with equal keys ask exactly the same thing. JSON.stringify
// is not that: it drops what is not data (a function, an AbortSignal, `undefined` in an array
// becomes null) and depends on the order of an object's keys. Here data is written out (keys in
// order, `undefined` properties left out as the client leaves them out), and anything else (a
// function, a class instance such as an AbortSignal, a symbol) stands for itself: it is numbered
// by identity, so the same fence shares a read and two different ones do not.

/**
 * A key maker: one numbering of the values that are not data, for one round's keys.
 *
 * @example
 * ```ts
 * const keyOf = readKeys();
 * keyOf({ b: 1, a: 'x' }) === keyOf({ a: 'x', b: 1 }); // true
 * keyOf({ fence: () => undefined }) === keyOf({ fence: () => undefined }); // false: two functions
 * ```
 * @returns the key of a value.
 */
export function readKeys(): (value: unknown) => string {
  const ids = new Map<unknown, number>();
  const ref = (v: unknown): string => {
    let id = ids.get(v);
    if (id === undefined) {
      id = ids.size;
      ids.set(v, id);
    }
    return `#${String(id)}`;
  };
  const key = (v: unknown): string => {
    if (v === undefined) return 'u';
    if (v === null || typeof v === 'boolean' || typeof v === 'string') return JSON.stringify(v);
    if (typeof v === 'number' || typeof v === 'bigint') return `${typeof v}:${String(v)}`;
    if (Array.isArray(v)) return `[${v.map(key).join(',')}]`;
    if (isData(v)) {
      const o = v as Record<string, unknown>;
      const fields = Object.keys(o).filter((k) => o[k] !== undefined).sort();
      return `{${fields.map((k) => `${JSON.stringify(k)}:${key(o[k])}`).join(',')}}`;
    }
    return ref(v);
  };
  return key;
}

// A plain object (an object literal, or one made without a prototype).
function isData(v: unknown): boolean {
  if (typeof v !== 'object' || v === null) return false;
  const proto: unknown = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}
