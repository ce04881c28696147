// Dotted paths into a Kubernetes object (`spec.connectionSecretName`, `spec.ports.0.name`): how a
// related resource's `object.path` and a template's `.Object.<path>` read a field. Only own fields
// are read, so a path like `constructor` or `__proto__` finds nothing rather than a prototype.

const index = /^(0|[1-9][0-9]*)$/;

/**
 * What is wrong with a dotted path, or `undefined` when it is usable: it must be non-empty, have no
 * empty segment and no leading or trailing dot.
 *
 * @example
 * ```ts
 * pathProblem('spec.secretName');  // undefined
 * pathProblem('.spec.secretName'); // 'a path has no leading dot: write "spec.secretName"'
 * ```
 * @param path - the path as configured.
 * @returns the problem in words, or `undefined`.
 */
export function pathProblem(path: string): string | undefined {
  if (path === '') return 'a path must not be empty';
  if (path.startsWith('.')) return `a path has no leading dot: write ${JSON.stringify(path.replace(/^\.+/, ''))}`;
  if (path.split('.').some((s) => s === '')) return `${JSON.stringify(path)} has an empty segment`;
  return undefined;
}

/**
 * The segments of a dotted path.
 *
 * @example
 * ```ts
 * splitPath('spec.ports.0.name'); // ['spec', 'ports', '0', 'name']
 * ```
 * @param path - a path {@link pathProblem} accepts.
 * @returns its segments.
 */
export function splitPath(path: string): readonly string[] {
  return path.split('.');
}

/**
 * Reads a field of a plain object by its segments: a map by key, an array by a numeric segment.
 * Anything not there (a missing key, an index out of range, a scalar on the way) is `undefined`.
 *
 * @example
 * ```ts
 * getSegments({ spec: { ports: [{ name: 'db' }] } }, ['spec', 'ports', '0', 'name']); // 'db'
 * ```
 * @param value - the object (JSON-like).
 * @param segments - the path's segments.
 * @returns the field's value, or `undefined`.
 */
export function getSegments(value: unknown, segments: readonly string[]): unknown {
  let at: unknown = value;
  for (const s of segments) {
    if (Array.isArray(at)) {
      const items: readonly unknown[] = at;
      at = index.test(s) && Number(s) < items.length ? items[Number(s)] : undefined;
    } else if (typeof at === 'object' && at !== null && Object.hasOwn(at, s)) {
      at = (at as Readonly<Record<string, unknown>>)[s];
    } else return undefined;
  }
  return at;
}

/**
 * Reads a field of a plain object by a dotted path (see {@link getSegments}).
 *
 * @example
 * ```ts
 * getPath({ spec: { connectionSecretName: 'db-conn' } }, 'spec.connectionSecretName'); // 'db-conn'
 * getPath({ spec: {} }, 'spec.connectionSecretName'); // undefined: not set yet
 * ```
 * @param value - the object (JSON-like).
 * @param path - the dotted path.
 * @returns the field's value, or `undefined`.
 */
export function getPath(value: unknown, path: string): unknown {
  return getSegments(value, splitPath(path));
}

/**
 * A copy of a plain object with the field at `segments` replaced by `v`, when every step of the
 * path exists (maps by key, arrays by index); otherwise the object unchanged. Only the containers
 * on the path are copied.
 *
 * @example
 * ```ts
 * setSegments({ spec: { secretName: 'a', size: 1 } }, ['spec', 'secretName'], 'b'); // { spec: { secretName: 'b', size: 1 } }
 * ```
 * @param value - the object (JSON-like).
 * @param segments - the path's segments (at least one).
 * @param v - the new value.
 * @returns the new object, or `value` when the path is not there.
 */
export function setSegments<T>(value: T, segments: readonly string[], v: unknown): T {
  const [head, ...rest] = segments;
  if (head === undefined) return v as T;
  if (Array.isArray(value)) {
    const items: readonly unknown[] = value;
    if (!index.test(head) || Number(head) >= items.length) return value;
    const next = setSegments(items[Number(head)], rest, v);
    return (next === items[Number(head)] && rest.length > 0 ? value : items.map((x, i) => (i === Number(head) ? next : x))) as T;
  }
  if (typeof value !== 'object' || value === null || !Object.hasOwn(value, head)) return value;
  const current = (value as Readonly<Record<string, unknown>>)[head];
  const next = setSegments(current, rest, v);
  return next === current && rest.length > 0 ? value : { ...value, [head]: next };
}
