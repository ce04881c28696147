// JSON plumbing of the in-memory fleet: objects are plain JSON, addressed by field paths (arrays of
// map keys). Lists are atomic values here, which is what server-side apply does for lists without
// merge keys; merge-keyed lists (containers, conditions) are a documented difference.

/** A plain JSON map. @example `const m: JsonMap = { a: 1 };` */
export type JsonMap = Record<string, unknown>;

/** A field path: the map keys from the object's root to a field. @example `const p: FieldPath = ['data', 'a'];` */
export type FieldPath = readonly string[];

/**
 * Whether a value is a plain JSON map (not an array, not null).
 *
 * @example
 * ```ts
 * isMap({ a: 1 }); // true
 * ```
 * @param v - any value.
 * @returns true for a map.
 */
export function isMap(v: unknown): v is JsonMap {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Structural equality of JSON values (key order ignored).
 *
 * @example
 * ```ts
 * deepEqual({ a: [1] }, { a: [1] }); // true
 * ```
 * @param a - one value.
 * @param b - the other.
 * @returns true when equal.
 */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  if (isMap(a) && isMap(b)) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => Object.hasOwn(b, k) && deepEqual(a[k], b[k]));
  }
  return false;
}

/**
 * A deep, mutable copy of a JSON value (what the server would decode from the wire).
 *
 * @example
 * ```ts
 * const copy = cloneJson({ data: { a: '1' } });
 * ```
 * @param v - a JSON value.
 * @returns the copy.
 */
export function cloneJson<T>(v: T): T {
  return v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T);
}

/**
 * Deep-freezes a JSON value, as everything handed to users is frozen.
 *
 * @example
 * ```ts
 * const frozen = freezeJson({ data: { a: '1' } });
 * ```
 * @param v - the value (frozen in place).
 * @returns the same value.
 */
export function freezeJson<T>(v: T): T {
  if (typeof v === 'object' && v !== null && !Object.isFrozen(v)) {
    for (const x of Object.values(v)) freezeJson(x);
    Object.freeze(v);
  }
  return v;
}

/**
 * The value at a path, or `undefined`.
 *
 * @example
 * ```ts
 * getAt({ data: { a: '1' } }, ['data', 'a']); // '1'
 * ```
 * @param obj - the root.
 * @param path - the path.
 * @returns the value.
 */
export function getAt(obj: unknown, path: FieldPath): unknown {
  let cur = obj;
  for (const k of path) {
    if (Array.isArray(cur) && k.startsWith('v:')) cur = setItem(cur, k);
    else if (!isMap(cur)) return undefined;
    else cur = cur[k];
  }
  return cur;
}

/**
 * The path segment of an item of a list kept as a set (`metadata.finalizers`): `v:` and its JSON,
 * as the server's FieldsV1 names it.
 *
 * @example
 * ```ts
 * setKey('example.com/cleanup'); // 'v:"example.com/cleanup"'
 * ```
 * @param item - the item.
 * @returns the segment.
 */
export function setKey(item: unknown): string {
  return `v:${JSON.stringify(item)}`;
}

function setItem(list: readonly unknown[], key: string): unknown {
  return list.find((x) => setKey(x) === key);
}

/**
 * Removes the field at a path from a mutable map, then the maps it leaves empty (as Go's
 * `omitempty` drops them from built-in objects).
 *
 * @example
 * ```ts
 * const o: JsonMap = { data: { a: '1' } };
 * deleteAt(o, ['data', 'a']); // o is now {}
 * ```
 * @param obj - the mutable root.
 * @param path - the field to remove.
 */
export function deleteAt(obj: JsonMap, path: FieldPath): void {
  const item = path[path.length - 1];
  const list = getAt(obj, path.slice(0, -1));
  if (item?.startsWith('v:') === true && Array.isArray(list)) {
    // An item of a set: the list loses it, and goes when it is empty.
    const i = list.findIndex((x) => setKey(x) === item);
    if (i >= 0) list.splice(i, 1);
    if (list.length === 0) deleteAt(obj, path.slice(0, -1));
    return;
  }
  const parents: JsonMap[] = [obj];
  let cur: unknown = obj;
  for (const k of path.slice(0, -1)) {
    cur = isMap(cur) ? cur[k] : undefined;
    if (!isMap(cur)) return;
    parents.push(cur);
  }
  const last = path[path.length - 1];
  const parent = parents[parents.length - 1];
  if (last === undefined || parent === undefined) return;
  Reflect.deleteProperty(parent, last);
  for (let i = parents.length - 1; i > 0; i--) {
    const p = parents[i];
    const key = path[i - 1];
    const up = parents[i - 1];
    if (p !== undefined && key !== undefined && up !== undefined && Object.keys(p).length === 0) Reflect.deleteProperty(up, key);
    else break;
  }
}

/**
 * The leaf field paths of a value: every non-map value, and every empty map, is a leaf.
 *
 * @example
 * ```ts
 * leafPaths({ data: { a: '1', b: '2' } }); // [['data', 'a'], ['data', 'b']]
 * ```
 * @param v - the value.
 * @param prefix - the path of `v`.
 * @returns the paths.
 */
export function leafPaths(v: unknown, prefix: FieldPath = []): FieldPath[] {
  if (!isMap(v) || (Object.keys(v).length === 0 && prefix.length > 0)) return [prefix];
  return Object.entries(v).flatMap(([k, x]) => leafPaths(x, [...prefix, k]));
}

/**
 * Merges `patch` into a copy of `base`: maps merge key by key, anything else replaces.
 *
 * @example
 * ```ts
 * mergeMaps({ data: { a: '1' } }, { data: { b: '2' } }); // { data: { a: '1', b: '2' } }
 * ```
 * @param base - the current value.
 * @param patch - what to lay over it.
 * @returns the merged copy.
 */
export function mergeMaps(base: unknown, patch: unknown): unknown {
  if (!isMap(base) || !isMap(patch)) return cloneJson(patch);
  const out: JsonMap = cloneJson(base);
  for (const [k, v] of Object.entries(patch)) out[k] = mergeMaps(out[k], v);
  return out;
}

/**
 * Applies a JSON merge patch (RFC 7386): `null` removes a key, maps merge, anything else replaces.
 *
 * @example
 * ```ts
 * mergePatch({ data: { a: '1', b: '2' } }, { data: { a: null } }); // { data: { b: '2' } }
 * ```
 * @param base - the current value.
 * @param patch - the merge patch.
 * @returns the patched copy.
 */
export function mergePatch(base: unknown, patch: unknown): unknown {
  if (!isMap(patch)) return cloneJson(patch);
  const out: JsonMap = isMap(base) ? cloneJson(base) : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) Reflect.deleteProperty(out, k);
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}
