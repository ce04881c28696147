// Cutting `metadata.managedFields` out of a watch line's text before it is parsed. managedFields is
// often the largest part of an object's metadata and rxfleet drops it by default: parsing it only
// to delete it costs the parse, the garbage, and (with `delete`) a slow dictionary-mode metadata.
// The cut is exact or nothing: any doubt leaves the line as it is, to be stripped after the parse.

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
// What the API server writes for every object: metadata's first key is never managedFields.
const MARKER = ',"managedFields":[';

// The index of the quote closing the string that opens at `start`, or -1. indexOf finds quotes
// faster than a loop over every character; a quote after an odd run of backslashes is escaped.
function stringEnd(s: string, start: number): number {
  let q = s.indexOf('"', start + 1);
  while (q >= 0) {
    let b = q - 1;
    while (s.charCodeAt(b) === BACKSLASH) b--;
    if ((q - 1 - b) % 2 === 0) return q;
    q = s.indexOf('"', q + 1);
  }
  return -1;
}

// The index just after the array or object that opens at `start`, or -1.
function valueEnd(s: string, start: number): number {
  let depth = 0;
  for (let i = start; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === QUOTE) {
      i = stringEnd(s, i);
      if (i < 0) return -1;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      depth++;
    } else if ((c === CLOSE_BRACE || c === CLOSE_BRACKET) && --depth === 0) {
      return i + 1;
    }
  }
  return -1;
}

// True when the `length` characters at `start` of `s` are `name`.
function isKey(s: string, start: number, length: number, name: string): boolean {
  return length === name.length && s.startsWith(name, start);
}

// True when `at` is outside any string and its enclosing containers are the line's root object,
// then `"object"`, then `"metadata"`: an ObjectMeta nested in a spec (a pod template's) is not cut.
// Only the text before `at` is walked (metadata comes right after kind and apiVersion), and no
// string is copied: a key is compared in place when a container opens under it.
function atEventObjectMetadata(s: string, at: number): boolean {
  let depth = 0;
  let underObject = false;
  let underMetadata = false;
  let keyStart = 0;
  let keyLength = -1;
  for (let i = 0; i < at; i++) {
    const c = s.charCodeAt(i);
    if (c === QUOTE) {
      const end = stringEnd(s, i);
      if (end < 0 || end >= at) return false;
      keyStart = i + 1;
      keyLength = end - keyStart;
      i = end;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      depth++;
      if (depth === 2) underObject = c === OPEN_BRACE && isKey(s, keyStart, keyLength, 'object');
      else if (depth === 3) underMetadata = c === OPEN_BRACE && isKey(s, keyStart, keyLength, 'metadata');
      keyLength = -1;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--;
      keyLength = -1;
    }
  }
  return depth === 3 && underObject && underMetadata;
}

/**
 * A watch line cut in two: the line without its object's `metadata.managedFields`, and the text of
 * the array cut out. `undefined` when the line has none, or has them anywhere but in the event
 * object's own metadata (after its first key, as the API server writes it).
 *
 * @example
 * ```ts
 * splitManagedFieldsText('{"type":"ADDED","object":{"metadata":{"name":"a","managedFields":[{"manager":"m"}]}}}');
 * // { line: '{"type":"ADDED","object":{"metadata":{"name":"a"}}}', managedFields: '[{"manager":"m"}]' }
 * ```
 * @param line - one line of a watch response.
 * @returns the two parts, or undefined.
 */
export function splitManagedFieldsText(line: string): { readonly line: string; readonly managedFields: string } | undefined {
  const at = line.indexOf(MARKER);
  if (at < 0 || !atEventObjectMetadata(line, at)) return undefined;
  const open = at + MARKER.length - 1;
  const end = valueEnd(line, open);
  return end < 0 ? undefined : { line: line.slice(0, at) + line.slice(end), managedFields: line.slice(open, end) };
}

/**
 * A watch line without its object's `metadata.managedFields`, cut from the text so the parse never
 * builds it. Returns the line unchanged when it has none, or has them anywhere but in the event
 * object's own metadata (after its first key, as the API server writes it): the caller then strips
 * them after parsing, as before.
 *
 * @example
 * ```ts
 * withoutManagedFieldsText('{"type":"ADDED","object":{"metadata":{"name":"a","managedFields":[{"manager":"m"}]}}}');
 * // '{"type":"ADDED","object":{"metadata":{"name":"a"}}}'
 * ```
 * @param line - one line of a watch response.
 * @returns the line, managedFields cut out when found where expected.
 */
export function withoutManagedFieldsText(line: string): string {
  return splitManagedFieldsText(line)?.line ?? line;
}

/**
 * The server-side apply entries (operation `Apply`) of the given field managers among an object's
 * `metadata.managedFields`: what a cache keeps so `apply` can prove a write needless, the rest
 * being cut. `undefined` when none is there.
 *
 * @example
 * ```ts
 * ownApplyEntries([{ manager: 'ctl', operation: 'Apply' }, { manager: 'kubectl', operation: 'Update' }], ['ctl']);
 * // [{ manager: 'ctl', operation: 'Apply' }]
 * ```
 * @param entries - the object's managedFields.
 * @param managers - the field managers whose entries are kept.
 * @returns the kept entries, or undefined.
 */
export function ownApplyEntries(entries: unknown, managers: readonly string[]): readonly unknown[] | undefined {
  if (!Array.isArray(entries) || managers.length === 0) return undefined;
  const kept = entries.filter((e: unknown) => typeof e === 'object' && e !== null && (e as { operation?: unknown }).operation === 'Apply' && managers.includes((e as { manager?: unknown }).manager as string));
  return kept.length === 0 ? undefined : kept;
}

/**
 * The managedFields text cut from a watch line, filtered to {@link ownApplyEntries}. The text is
 * parsed only when it names one of the managers, so objects no manager of `managers` ever applied
 * cost nothing more than the cut.
 *
 * @example
 * ```ts
 * keptManagedFields('[{"manager":"ctl","operation":"Apply"}]', ['ctl']); // [{ manager: 'ctl', operation: 'Apply' }]
 * ```
 * @param text - the JSON array cut out by {@link splitManagedFieldsText}.
 * @param managers - the field managers whose Apply entries are kept.
 * @returns the kept entries, or undefined.
 */
export function keptManagedFields(text: string, managers: readonly string[]): readonly unknown[] | undefined {
  if (!managers.some((m) => text.includes(`"manager":${JSON.stringify(m)}`))) return undefined;
  try {
    return ownApplyEntries(JSON.parse(text) as unknown, managers);
  } catch {
    return undefined;
  }
}
