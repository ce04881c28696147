// The paths of mutations, in api-syncagent's notation (gjson's, the simple part of it): dotted keys,
// `\.` for a dot inside a key (`metadata.annotations.example\.com/tier`), a number for a list item.
// Reading goes through the one reader of object-path.ts; writing makes the missing maps on the way,
// as sjson does. gjson's queries, wildcards and modifiers (`#`, `*`, `?`, `@`, `|`) are refused at
// preflight rather than read as keys. Writes copy only the containers on the path and never touch a
// prototype: keys are own properties of plain copies, so `__proto__` is an ordinary key.
import { getSegments } from './object-path.js';

const special = /[*?#@|!{}[\]]/;
const index = /^(0|[1-9][0-9]*)$/;

/**
 * A mutation path's segments, or what is wrong with it.
 *
 * @example
 * ```ts
 * mutationPath('metadata.annotations.example\\.com/tier'); // { type: 'path', segments: ['metadata', 'annotations', 'example.com/tier'] }
 * ```
 * @param path - the path as configured.
 * @returns the segments, or the problem in words.
 */
export function mutationPath(path: string): { readonly type: 'path'; readonly segments: readonly string[] } | { readonly type: 'invalid'; readonly message: string } {
  if (path === '') return { type: 'invalid', message: 'a path must not be empty' };
  if (path.startsWith('.')) return { type: 'invalid', message: `a path has no leading dot: write ${JSON.stringify(path.replace(/^\.+/, ''))}` };
  const segments: string[] = [];
  let current = '';
  for (let i = 0; i < path.length; i++) {
    const c = path[i] ?? '';
    if (c === '\\' && i + 1 < path.length) {
      current += path[++i] ?? '';
    } else if (c === '.') {
      segments.push(current);
      current = '';
    } else if (special.test(c)) {
      return { type: 'invalid', message: `${JSON.stringify(path)}: "${c}" (a gjson query, wildcard or modifier) is not supported; write plain keys and list indexes, "\\\\${c}" for the character itself` };
    } else current += c;
  }
  segments.push(current);
  if (segments.some((s) => s === '')) return { type: 'invalid', message: `${JSON.stringify(path)} has an empty segment` };
  const top = segments[0];
  if (top === 'apiVersion' || top === 'kind') return { type: 'invalid', message: `${JSON.stringify(path)}: ${top} is the agent's to set` };
  return { type: 'path', segments };
}

/**
 * The value at a path (see `getSegments`).
 *
 * @example
 * ```ts
 * readAt({ spec: { size: 2 } }, ['spec', 'size']); // 2
 * ```
 * @param value - the object.
 * @param segments - the path.
 * @returns the value, or `undefined`.
 */
export function readAt(value: unknown, segments: readonly string[]): unknown {
  return getSegments(value, segments);
}

const isMap = (v: unknown): v is Readonly<Record<string, unknown>> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A copy of `value` with `v` at the path, making missing maps on the way (sjson's `Set`). A list
 * index must exist, or be the list's length (appends); a scalar on the way is replaced by a map.
 *
 * @example
 * ```ts
 * writeAt({ spec: {} }, ['spec', 'owner', 'name'], 'a'); // { spec: { owner: { name: 'a' } } }
 * ```
 * @param value - the object.
 * @param segments - the path (at least one segment).
 * @param v - the new value.
 * @returns the new object, or `undefined` when a list index is out of range.
 */
export function writeAt(value: unknown, segments: readonly string[], v: unknown): unknown {
  const [head, ...rest] = segments;
  if (head === undefined) return v;
  if (Array.isArray(value) && index.test(head)) {
    const items: readonly unknown[] = value;
    const i = Number(head);
    if (i > items.length) return undefined;
    const next = writeAt(items[i], rest, v);
    if (next === undefined) return undefined;
    return i === items.length ? [...items, next] : items.map((x, j) => (j === i ? next : x));
  }
  const base: Readonly<Record<string, unknown>> = isMap(value) ? value : {};
  const next = writeAt(Object.hasOwn(base, head) ? base[head] : undefined, rest, v);
  if (next === undefined) return undefined;
  const out: Record<string, unknown> = { ...base };
  Object.defineProperty(out, head, { value: next, enumerable: true, writable: true, configurable: true });
  return out;
}

/**
 * A copy of `value` without the field at the path (sjson's `Delete`); unchanged when it is not there.
 *
 * @example
 * ```ts
 * deleteAt({ spec: { a: 1, b: 2 } }, ['spec', 'a']); // { spec: { b: 2 } }
 * ```
 * @param value - the object.
 * @param segments - the path (at least one segment).
 * @returns the new object.
 */
export function deleteAt(value: unknown, segments: readonly string[]): unknown {
  const [head, ...rest] = segments;
  if (head === undefined) return value;
  if (Array.isArray(value)) {
    const items: readonly unknown[] = value;
    if (!index.test(head) || Number(head) >= items.length) return value;
    const i = Number(head);
    return rest.length === 0 ? items.filter((_, j) => j !== i) : items.map((x, j) => (j === i ? deleteAt(x, rest) : x));
  }
  if (!isMap(value) || !Object.hasOwn(value, head)) return value;
  if (rest.length === 0) return Object.fromEntries(Object.entries(value).filter(([k]) => k !== head));
  const out: Record<string, unknown> = { ...value };
  Object.defineProperty(out, head, { value: deleteAt(value[head], rest), enumerable: true, writable: true, configurable: true });
  return out;
}
