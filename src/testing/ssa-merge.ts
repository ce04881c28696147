// Server-side apply for the in-memory fleet, good enough for tests: who owns which fields (per field
// manager, operation and subresource), conflicts between managers, force, removal of the fields a
// manager stopped applying, and ownership taken by plain writes. Lists are atomic, except
// `metadata.finalizers`, a set whose items managers own one by one.
import type { FieldPath, JsonMap } from './json-fields.js';
import { cloneJson, deepEqual, deleteAt, getAt, isMap, leafPaths, mergeMaps, setKey } from './json-fields.js';

/**
 * The fields one manager owns through one operation on one subresource (`''` is the object).
 *
 * @example
 * ```ts
 * const set: ManagedSet = { manager: 'ctl', operation: 'Apply', subresource: '', fields: new Set(['["data","a"]']) };
 * ```
 */
export interface ManagedSet {
  /** The field manager (`fieldManager` of the request). */
  readonly manager: string;
  /** `Apply` for server-side apply, `Update` for every other write. */
  readonly operation: 'Apply' | 'Update';
  /** `''` for the object itself, `status` for the status subresource. */
  readonly subresource: string;
  /** The owned leaf fields, each a JSON-encoded {@link FieldPath}. */
  readonly fields: ReadonlySet<string>;
}

/**
 * A field that an apply would take from another manager with a different value.
 *
 * @example
 * ```ts
 * const c: FieldConflict = { manager: 'other', field: '.data.a' };
 * ```
 */
export interface FieldConflict {
  /** The manager that owns the field now. */
  readonly manager: string;
  /** The field, as the server prints it (`.data.a`). */
  readonly field: string;
}

/**
 * What an apply made: the merged object and the new ownership, or the conflicts that stopped it.
 *
 * @example
 * ```ts
 * if (r.type === 'conflict') console.log(r.conflicts.map((c: FieldConflict) => c.field));
 * ```
 */
export type ApplyMerge =
  | {
      /** The apply went through. */
      readonly type: 'merged';
      /** The object after the apply (mutable copy). */
      readonly object: JsonMap;
      /** Ownership after the apply. */
      readonly sets: readonly ManagedSet[];
    }
  | {
      /** Fields owned by other managers would change: 409 unless forced. */
      readonly type: 'conflict';
      /** Each contested field and its owner. */
      readonly conflicts: readonly FieldConflict[];
    };

// Metadata the server keeps for itself; it is never owned by a manager.
const untracked = new Set(['name', 'namespace', 'generateName', 'uid', 'resourceVersion', 'generation', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'managedFields', 'selfLink']);

/**
 * The fields of an object a manager can own: every leaf but `apiVersion`, `kind` and the metadata
 * the server keeps for itself.
 *
 * @example
 * ```ts
 * ownedFields({ metadata: { name: 'a', labels: { x: '1' } }, data: { k: 'v' } }); // labels.x and data.k
 * ```
 * @param obj - an object or apply configuration.
 * @returns JSON-encoded field paths.
 */
export function ownedFields(obj: JsonMap): Set<string> {
  const out = new Set<string>();
  for (const p of leafPaths(obj)) {
    const [top, second] = p;
    if (top === 'apiVersion' || top === 'kind' || p.length === 0) continue;
    if (top === 'metadata' && (second === undefined || untracked.has(second))) continue;
    const list = getAt(obj, p);
    // A set's items are owned one by one, so that managers can share the set.
    if (isSet(p) && Array.isArray(list)) for (const item of list) out.add(JSON.stringify([...p, setKey(item)]));
    else out.add(JSON.stringify(p));
  }
  return out;
}

// The lists kept as sets (listType=set) that controllers write; every other list is atomic.
const setLists: readonly FieldPath[] = [['metadata', 'finalizers']];
const isSet = (p: FieldPath): boolean => setLists.some((s) => s.length === p.length && s.every((k, i) => k === p[i]));

// After a merge, a set holds what it held (less what was removed) plus what was applied, in that order.
function unionSets(base: JsonMap, config: JsonMap, merged: JsonMap): void {
  for (const p of setLists) {
    const applied = getAt(config, p);
    const before = getAt(base, p);
    const parent = getAt(merged, p.slice(0, -1));
    const key = p[p.length - 1];
    if (!Array.isArray(applied) || !Array.isArray(before) || !isMap(parent) || key === undefined) continue;
    const kept: readonly unknown[] = before;
    parent[key] = [...kept, ...(applied as readonly unknown[]).filter((x) => !kept.some((y) => deepEqual(x, y)))];
  }
}

const decode = (f: string): FieldPath => JSON.parse(f) as string[];
const overlaps = (a: FieldPath, b: FieldPath): boolean => a.slice(0, Math.min(a.length, b.length)).every((k, i) => k === b[i]);
const shorter = (a: FieldPath, b: FieldPath): FieldPath => (a.length <= b.length ? a : b);
const sameOwner = (s: ManagedSet, manager: string, operation: ManagedSet['operation'], subresource: string): boolean =>
  s.manager === manager && s.operation === operation && s.subresource === subresource;

/**
 * Server-side apply of `config` by `manager`: conflicts with other managers' fields whose value
 * would change (unless `force`, which takes them over), removal of the fields this manager applied
 * last time and not now (when nobody else owns them), then a merge of `config` over the object.
 *
 * @example
 * ```ts
 * const r = applyMerge({ live: current, sets, manager: 'ctl', subresource: '', config: { data: { a: '1' } }, force: false });
 * ```
 * @param input - the live object (undefined on create), ownership, the manager and its configuration.
 * @returns the merge or the conflicts.
 */
export function applyMerge(input: {
  readonly live: JsonMap | undefined;
  readonly sets: readonly ManagedSet[];
  readonly manager: string;
  readonly subresource: string;
  readonly config: JsonMap;
  readonly force: boolean;
}): ApplyMerge {
  const { live, manager, subresource, config, force } = input;
  const mine = (s: ManagedSet): boolean => sameOwner(s, manager, 'Apply', subresource);
  const previous = input.sets.find(mine)?.fields ?? new Set<string>();
  const applied = ownedFields(config);
  const others = input.sets.filter((s) => !mine(s));
  // Fields applied last time and not now go, unless another manager still owns them.
  const base: JsonMap = cloneJson(live ?? {});
  for (const f of previous) {
    if (applied.has(f)) continue;
    const p = decode(f);
    if (!others.some((s) => [...s.fields].some((g) => overlaps(p, decode(g))))) deleteAt(base, p);
  }
  const merged = mergeMaps(base, config);
  const object: JsonMap = isMap(merged) ? merged : {};
  unionSets(base, config, object);
  const conflicts: FieldConflict[] = [];
  const taken = new Map<ManagedSet, Set<string>>();
  for (const s of others) {
    for (const g of s.fields) {
      const q = decode(g);
      for (const f of applied) {
        const p = decode(f);
        if (!overlaps(p, q)) continue;
        const at = shorter(p, q);
        if (deepEqual(getAt(live, at), getAt(object, at))) continue;
        if (!force) conflicts.push({ manager: s.manager, field: `.${q.join('.')}` });
        else taken.set(s, (taken.get(s) ?? new Set<string>()).add(g));
      }
    }
  }
  if (conflicts.length > 0) return { type: 'conflict', conflicts: dedupe(conflicts) };
  const sets = [
    ...others.map((s) => ({ ...s, fields: new Set([...s.fields].filter((g) => !taken.get(s)?.has(g))) })),
    { manager, operation: 'Apply' as const, subresource, fields: applied },
  ].filter((s) => s.fields.size > 0);
  return { type: 'merged', object, sets };
}

function dedupe(cs: readonly FieldConflict[]): FieldConflict[] {
  const seen = new Set<string>();
  return cs.filter((c) => {
    const k = `${c.manager}\n${c.field}`;
    return seen.has(k) ? false : (seen.add(k), true);
  });
}

/**
 * Ownership after a plain write (create, replace, patch) by `manager`: it takes every field it
 * changed from whoever owned it, without conflicts, and nobody owns fields that are gone.
 *
 * @example
 * ```ts
 * const sets2 = updateOwnership(sets, 'kubectl-edit', '', before, after);
 * ```
 * @param sets - ownership before the write.
 * @param manager - the writer's field manager.
 * @param subresource - `''` or `status`.
 * @param before - the object before (undefined on create).
 * @param after - the object after.
 * @returns ownership after the write.
 */
export function updateOwnership(sets: readonly ManagedSet[], manager: string, subresource: string, before: JsonMap | undefined, after: JsonMap): ManagedSet[] {
  const changed = [...ownedFields(after)].filter((f) => !deepEqual(getAt(before, decode(f)), getAt(after, decode(f))));
  const gone = (g: string): boolean => getAt(after, decode(g)) === undefined;
  const lost = (g: string): boolean => changed.some((f) => overlaps(decode(f), decode(g)));
  const kept = sets.map((s) => ({ ...s, fields: new Set([...s.fields].filter((g) => !gone(g) && (sameOwner(s, manager, 'Update', subresource) || !lost(g)))) }));
  const own = kept.find((s) => sameOwner(s, manager, 'Update', subresource));
  const rest = kept.filter((s) => s !== own);
  const fields = new Set([...(own?.fields ?? []), ...changed]);
  return [...rest, { manager, operation: 'Update' as const, subresource, fields }].filter((s) => s.fields.size > 0);
}

/**
 * Ownership as the server shows it in `metadata.managedFields` (FieldsV1).
 *
 * @example
 * ```ts
 * managedFieldsOf(sets, 'v1', '2026-01-01T00:00:00Z'); // [{ manager: 'ctl', operation: 'Apply', fieldsV1: { 'f:data': { 'f:a': {} } }, ... }]
 * ```
 * @param sets - ownership.
 * @param apiVersion - the object's apiVersion.
 * @param time - the time to stamp.
 * @returns the entries.
 */
export function managedFieldsOf(sets: readonly ManagedSet[], apiVersion: string, time: string): JsonMap[] {
  return sets.map((s) => {
    const fieldsV1: JsonMap = {};
    for (const f of s.fields) {
      let cur = fieldsV1;
      for (const k of decode(f)) {
        const name = k.startsWith('v:') ? k : `f:${k}`;
        const next = cur[name];
        const m: JsonMap = isMap(next) ? next : {};
        cur[name] = m;
        cur = m;
      }
    }
    return { manager: s.manager, operation: s.operation, apiVersion, time, fieldsType: 'FieldsV1', fieldsV1, ...(s.subresource === '' ? {} : { subresource: s.subresource }) };
  });
}
