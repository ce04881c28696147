// Strings that repeat across cached objects (an apiVersion, a kind, a namespace, label and
// annotation values such as kcp's `kcp.io/cluster`) are decoded from the wire as a copy per object:
// JSON.parse shares only keys and very short values. A cache of 100,000 objects then holds 100,000
// copies of "wildwest.dev/v1alpha1". Interning them as objects are prepared for the cache keeps one
// copy each. The table is bounded: at its limit it starts over, which costs sharing, never memory.

/** The most strings the table holds; it is emptied when full. */
export const internTableLimit = 16_384;
/** Longer strings are rarely repeated (uids, timestamps are unique; specs are not interned). */
export const internMaxLength = 64;

const table = new Map<string, string>();

/**
 * One shared copy of a short string (see the module comment); longer ones are returned as they are.
 *
 * @example
 * ```ts
 * obj.apiVersion = interned(obj.apiVersion);
 * ```
 * @param s - the string.
 * @returns an equal string, shared with every other caller that interned it.
 */
export function interned(s: string): string {
  if (s.length > internMaxLength) return s;
  const known = table.get(s);
  if (known !== undefined) return known;
  if (table.size >= internTableLimit) table.clear();
  table.set(s, s);
  return s;
}

/**
 * How many strings the table holds now (at most {@link internTableLimit}).
 *
 * @example `internedCount() <= internTableLimit // true`
 * @returns the count.
 */
export function internedCount(): number {
  return table.size;
}

// Each string value of a labels or annotations map, interned in place.
function internValues(map: Record<string, unknown> | undefined): void {
  if (typeof map !== 'object') return;
  for (const k in map) {
    const v = map[k];
    if (typeof v === 'string') map[k] = interned(v);
  }
}

/**
 * Interns an object's repeated metadata strings in place: `apiVersion`, `kind`,
 * `metadata.namespace`, and every label and annotation value. Only for an object not frozen yet
 * (fresh from the wire, as {@link preparedObject} gets it).
 *
 * @example
 * ```ts
 * internMetadataStrings(JSON.parse(line).object);
 * ```
 * @param obj - the object.
 */
export function internMetadataStrings(obj: { apiVersion?: string; kind?: string; metadata?: { namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> } }): void {
  if (typeof obj.apiVersion === 'string') obj.apiVersion = interned(obj.apiVersion);
  if (typeof obj.kind === 'string') obj.kind = interned(obj.kind);
  const m = obj.metadata;
  if (m === undefined) return;
  if (typeof m.namespace === 'string') m.namespace = interned(m.namespace);
  internValues(m.labels);
  internValues(m.annotations);
}
