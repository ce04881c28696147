// What the watch does to every object before anyone sees it: strip managedFields (large, rarely
// read), share its repeated metadata strings (interned.ts) and deep-freeze, so a cached object can be shared by every subscriber without copies.
import type { KubeObject, ObjectMeta } from '../core/object.js';
import { ownApplyEntries } from '../client/managed-fields-cut.js';
import { internMetadataStrings } from './interned.js';

// A for-in walk rather than Object.values: no array per object, and V8's enum cache makes for-in
// over freshly parsed JSON cheap. Frozen values are skipped: they are someone's finished work.
function freezeDeep(value: object): void {
  Object.freeze(value);
  if (Array.isArray(value)) {
    for (const v of value as unknown[]) if (typeof v === 'object' && v !== null && !Object.isFrozen(v)) freezeDeep(v);
    return;
  }
  for (const k in value) {
    const v = (value as Record<string, unknown>)[k];
    if (typeof v === 'object' && v !== null && !Object.isFrozen(v)) freezeDeep(v);
  }
}

// A new metadata object without managedFields. `delete` would be shorter but turns the object into
// a slow dictionary (~380 bytes more per cached ConfigMap, measured); rebuilt key by key in the
// same order, every metadata of one shape shares one hidden class.
function withoutManagedFields(metadata: ObjectMeta, kept: readonly unknown[] | undefined): ObjectMeta {
  const out: Record<string, unknown> = {};
  for (const k in metadata) if (k !== 'managedFields') out[k] = (metadata as Record<string, unknown>)[k];
  if (kept !== undefined) out.managedFields = kept;
  return out;
}

/**
 * Prepares an object decoded from the wire for caching: removes `metadata.managedFields` unless
 * asked to keep it, interns its repeated metadata strings (a fresh object only), then freezes it deeply. Freshly decoded JSON is edited and frozen in place to
 * avoid a copy (only the metadata is rebuilt when managedFields must go); an already frozen input
 * is copied at the top level instead. A watch line normally arrives with managedFields already cut
 * out of its text ({@link parseWatchLine} with `dropManagedFields`), and then nothing is rebuilt.
 *
 * @example
 * ```ts
 * const cm = preparedObject(JSON.parse(line).object as ConfigMap, false);
 * Object.isFrozen(cm.metadata); // true
 * ```
 * @param obj - the decoded object.
 * @param keepManagedFields - true to keep `managedFields`.
 * @param keepApplyEntriesOf - field managers whose Apply entries are kept when the rest is cut.
 * @returns the object without managedFields (but the kept entries), frozen.
 */
export function preparedObject<T extends KubeObject>(obj: T, keepManagedFields: boolean, keepApplyEntriesOf: readonly string[] = []): T {
  let out = obj;
  const fresh = !Object.isFrozen(obj);
  const all = obj.metadata.managedFields;
  const kept = keepManagedFields || all === undefined ? undefined : ownApplyEntries(all, keepApplyEntriesOf);
  // Nothing to rebuild when every entry is kept (a watch line's cut kept only those already).
  if (!keepManagedFields && all !== undefined && kept?.length !== all.length) {
    const metadata = withoutManagedFields(obj.metadata, kept);
    // Someone else's frozen object (tests, a fake transport): copy rather than fail.
    if (Object.isFrozen(obj)) out = { ...obj, metadata };
    else (obj as { metadata: ObjectMeta }).metadata = metadata;
  }
  // Fresh from the wire, nothing in it is frozen yet: its repeated strings can be shared.
  if (fresh) internMetadataStrings(out);
  if (!Object.isFrozen(out)) freezeDeep(out);
  return out;
}
