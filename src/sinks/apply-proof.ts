// The proof that a server-side apply would change nothing, from a cached object that kept this
// field manager's own Apply entry of `metadata.managedFields`. It follows what the API server does
// (structured-merge-diff): an apply sets every field it states, makes this manager the owner of
// exactly the set of fields it states (fields it owned before and no longer states are removed
// from the object, or from its set when another manager shares them), and changes nothing when
// that set and those values are already there. The field set is FieldsV1: `f:<name>` for a map
// key or struct field, `k:{…}` for an item of a list keyed by fields, `v:<json>` for an item of a
// set, `.` for the item itself; a leaf `{}` for a scalar or an atomic value.
//
// Shapes the walk cannot settle without the schema make it give up, and the apply is sent:
// null values, empty maps and lists (owned as a leaf when atomic, as nothing when granular),
// lists by index (`i:`), and any keyed or set list whose cached items differ in number or order
// from the applied ones (another manager's items, or an order a merge might change).
import { sameJsonContent } from '../core/json-equal.js';
import type { KubeObject } from '../core/object.js';

/**
 * The verdict of {@link applyChangesNothing}: proven, or why not (sent as before).
 *
 * @example
 * ```ts
 * const v: ApplyProof = { proven: false, reason: 'this manager does not own data.b' };
 * ```
 */
export type ApplyProof =
  | {
      /** The apply would change nothing: it need not be sent. */
      readonly proven: true;
    }
  | {
      /** The cache cannot prove it: the apply is sent. */
      readonly proven: false;
      /** What the proof could not show, in words (for logs and tests). */
      readonly reason: string;
    };

/**
 * What {@link applyChangesNothing} compares against.
 *
 * @example
 * ```ts
 * const w: ApplyProofInput = { applied, cached, fieldManager: 'bench-peer', apiVersion: 'v1' };
 * ```
 */
export interface ApplyProofInput {
  /** The object the apply would send (apiVersion and kind may be left out). */
  readonly applied: {
    /** Its metadata (name, namespace, labels…), compared like every other applied field. */
    readonly metadata: object;
  };
  /** The cached object, with this manager's Apply entry kept in `metadata.managedFields`. */
  readonly cached: KubeObject;
  /** The field manager the apply would be sent under. */
  readonly fieldManager: string;
  /** The apiVersion the apply would be sent with (the resource descriptor's). */
  readonly apiVersion: string;
  /** `status` for an apply through the status subresource, else undefined. */
  readonly subresource?: 'status' | undefined;
}

type Json = null | boolean | number | string | readonly Json[] | { readonly [k: string]: Json };
type Fields = Readonly<Record<string, unknown>>;

// Metadata the server never tracks in a field set (structured-merge-diff's stripped paths) that an
// apply names the object by. Any other stripped field in an apply (uid, resourceVersion: a
// precondition) is not proven.
const identity = new Set(['name', 'namespace']);
const proven: ApplyProof = Object.freeze({ proven: true });
const no = (reason: string): ApplyProof => ({ proven: false, reason });
const isMap = (v: unknown): v is Readonly<Record<string, Json>> => typeof v === 'object' && v !== null && !Array.isArray(v);
const sameJson = (a: unknown, b: unknown): boolean => sameJsonContent(a, b);
const at = (path: string, k: string): string => (path === '' ? k : `${path}.${k}`);

function parseItemKey(k: string): Json | undefined {
  try {
    return JSON.parse(k.slice(2)) as Json;
  } catch {
    return undefined;
  }
}

// `{}`: owned as a whole (checked for every owned field, so without listing its keys).
function isLeaf(owned: unknown): boolean {
  if (!isMap(owned)) return false;
  for (const _ in owned) return false;
  return true;
}

// A list whose items this manager owns as keyed (`k:`) or set (`v:`) items: the cached list must be
// the applied items in the applied order, and each item proven in turn.
function proveItems(applied: readonly Json[], owned: Fields, cachedValue: Json | undefined, path: string): ApplyProof {
  const keys = Object.keys(owned);
  const cached: readonly Json[] | undefined = Array.isArray(cachedValue) ? (cachedValue as readonly Json[]) : undefined;
  if (cached?.length !== applied.length) return no(`${path}: the cached list does not hold exactly the applied items`);
  if (keys.length !== applied.length) return no(`${path}: this manager owns ${keys.length} items, the apply states ${applied.length}`);
  if (keys.every((k) => k.startsWith('v:'))) {
    const values = keys.map(parseItemKey);
    for (const [i, item] of applied.entries()) {
      if (isMap(item) || Array.isArray(item) || item === null) return no(`${path}: a set item that is not a scalar`);
      if (!values.some((v) => v === item)) return no(`${path}: this manager does not own the item ${JSON.stringify(item)}`);
      if (cached[i] !== item) return no(`${path}: item ${i} differs from the cached one`);
    }
    return new Set(applied).size === applied.length && keys.every((k) => isLeaf(owned[k])) ? proven : no(`${path}: a set with repeated or nested items`);
  }
  if (!keys.every((k) => k.startsWith('k:'))) return no(`${path}: a list owned by index or in a mixed way`);
  const itemKeys = keys.map((k) => ({ k, fields: parseItemKey(k) }));
  const used = new Set<string>();
  for (const [i, item] of applied.entries()) {
    const cachedItem = cached[i];
    if (!isMap(item) || !isMap(cachedItem)) return no(`${path}: a keyed item that is not an object`);
    const matches = itemKeys.filter(({ fields }) => isMap(fields) && Object.entries(fields).every(([f, v]) => sameJson(item[f], v) && sameJson(cachedItem[f], v)));
    const match = matches[0];
    if (matches.length !== 1 || match === undefined || used.has(match.k)) return no(`${path}: item ${i} is not one item this manager owns, at the same place in the cached list`);
    used.add(match.k);
    const node = owned[match.k];
    if (!isMap(node) || !('.' in node)) return no(`${path}: this manager does not own item ${i} itself`);
    const { '.': _self, ...rest } = node;
    const r = proveMap(item, rest, cachedItem, `${path}[${i}]`);
    if (!r.proven) return r;
  }
  return proven;
}

// A granular map (or struct): this manager owns exactly the applied keys, each proven. It may own
// the map itself too (`.`), where the schema tracks the map as a field of its own (a deduced schema:
// kcp's virtual workspaces): the apply states the map (never empty here), so it states that too.
function proveMap(applied: Readonly<Record<string, Json>>, owned: Fields, cached: Json | undefined, path: string): ApplyProof {
  if (!isMap(cached)) return no(`${path}: the cached value is not an object`);
  const stated = Object.keys(applied);
  for (const k of Object.keys(owned)) {
    if (k === '.' && isLeaf(owned[k])) continue;
    if (!k.startsWith('f:') || !(k.slice(2) in applied)) return no(`${path}: this manager owns ${k}, which the apply no longer states (a real apply would remove it)`);
  }
  for (const k of stated) {
    const r = prove(applied[k] as Json, owned[`f:${k}`], cached[k], at(path, k));
    if (!r.proven) return r;
  }
  return proven;
}

function prove(applied: Json, owned: unknown, cached: Json | undefined, path: string): ApplyProof {
  if (owned === undefined) return no(`${path}: this manager does not own it`);
  if (!isMap(owned)) return no(`${path}: an owned node that is not FieldsV1`);
  if (applied === null) return no(`${path}: a null value (a removal)`);
  if (!isMap(applied) && !Array.isArray(applied)) {
    if (!isLeaf(owned)) return no(`${path}: a scalar owned as a tree`);
    return sameJson(applied, cached) ? proven : no(`${path}: the cached value differs`);
  }
  const size = Array.isArray(applied) ? applied.length : Object.keys(applied).length;
  if (size === 0) return no(`${path}: an empty ${Array.isArray(applied) ? 'list' : 'map'} (its ownership depends on the schema)`);
  // Owned as a leaf: the schema makes it atomic, so the whole value must be the same.
  if (isLeaf(owned)) return sameJson(applied, cached) ? proven : no(`${path}: the cached value differs`);
  return Array.isArray(applied) ? proveItems(applied, owned, cached, path) : proveMap(applied, owned, cached, path);
}

interface ManagedEntry {
  readonly manager?: unknown;
  readonly operation?: unknown;
  readonly subresource?: unknown;
  readonly apiVersion?: unknown;
  readonly fieldsType?: unknown;
  readonly fieldsV1?: unknown;
}

// The applied object as the server tracks it: no apiVersion or kind, metadata without the name
// and namespace it is addressed by (and no metadata at all when nothing else is in it); through
// the status subresource, only status.
function trackedPart(applied: Readonly<Record<string, Json>>, subresource: 'status' | undefined): Readonly<Record<string, Json>> | string {
  const { apiVersion: _a, kind: _k, metadata, ...rest } = applied;
  if (!isMap(metadata)) return 'metadata is not an object';
  const meta = Object.fromEntries(Object.entries(metadata).filter(([k]) => !identity.has(k)));
  if (subresource === 'status') {
    const extra = [...Object.keys(meta), ...Object.keys(rest).filter((k) => k !== 'status')];
    return extra.length > 0 ? `a status apply that states ${extra.join(', ')} (the server ignores them there)` : rest;
  }
  if (Object.keys(meta).some((k) => ['uid', 'resourceVersion', 'generation', 'creationTimestamp', 'selfLink', 'managedFields', 'deletionTimestamp'].includes(k))) {
    return 'the apply states server-set metadata (a precondition or an ignored field)';
  }
  return Object.keys(meta).length === 0 ? rest : { ...rest, metadata: meta as Json };
}

/**
 * Whether a server-side apply would change nothing, told from a cached object alone: this field
 * manager's Apply entry (for the same subresource and apiVersion) owns exactly the fields the apply
 * states, and each of them already holds the applied value. Then the API server would answer with
 * the object unchanged (same resourceVersion, same managedFields), with or without `force`: a
 * conflict needs a value to change. Anything it cannot settle is not proven, never guessed.
 *
 * @example
 * ```ts
 * import { applyChangesNothing } from 'rxfleet/sinks';
 * const v = applyChangesNothing({ applied: desired, cached, fieldManager: 'bench-peer', apiVersion: 'v1' });
 * if (!v.proven) console.log(`sending: ${v.reason}`);
 * ```
 * @param input - the applied object, the cached one, the manager, apiVersion and subresource.
 * @returns proven, or the reason it is not.
 */
export function applyChangesNothing(input: ApplyProofInput): ApplyProof {
  const { cached, fieldManager, apiVersion, subresource } = input;
  if (cached.metadata.deletionTimestamp !== undefined) return no('the object is being deleted');
  if (cached.apiVersion !== undefined && cached.apiVersion !== apiVersion) return no(`the cached object is ${cached.apiVersion}, the apply ${apiVersion}`);
  const applied = input.applied as unknown as Readonly<Record<string, Json>>;
  if (applied.apiVersion !== undefined && applied.apiVersion !== apiVersion) return no('the applied object names another apiVersion');
  const entries = ((cached.metadata.managedFields ?? []) as readonly ManagedEntry[]).filter(
    (e) => e.manager === fieldManager && e.operation === 'Apply' && (e.subresource ?? '') === (subresource ?? ''),
  );
  const entry = entries[0];
  if (entry === undefined) return no(`the cache holds no Apply entry of ${fieldManager}${subresource === undefined ? '' : ` for ${subresource}`}`);
  if (entries.length > 1) return no(`the cache holds ${entries.length} Apply entries of ${fieldManager}`);
  if (entry.apiVersion !== apiVersion) return no(`this manager applied with ${String(entry.apiVersion)}, the apply is ${apiVersion}`);
  if (entry.fieldsType !== 'FieldsV1' || !isMap(entry.fieldsV1)) return no('the entry has no FieldsV1');
  const tracked = trackedPart(applied, subresource);
  if (typeof tracked === 'string') return no(tracked);
  if (Object.keys(tracked).length === 0) return no('the apply states no field');
  return proveMap(tracked, entry.fieldsV1, cached as unknown as Json, '');
}
