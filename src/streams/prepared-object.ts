// What the watch does to every object before anyone sees it: strip managedFields (large, rarely
// read) and deep-freeze, so a cached object can be shared by every subscriber without copies.
import type { KubeObject } from '../core/object.js';

function deepFreeze(value: unknown): void {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return;
  Object.freeze(value);
  for (const v of Object.values(value)) deepFreeze(v);
}

/**
 * Prepares an object decoded from the wire for caching: removes `metadata.managedFields` unless
 * asked to keep it, then freezes it deeply. Freshly decoded JSON is edited and frozen in place to
 * avoid a copy; an already frozen input is copied when managedFields must go.
 *
 * @example
 * ```ts
 * const cm = preparedObject(JSON.parse(line).object as ConfigMap, false);
 * Object.isFrozen(cm.metadata); // true
 * ```
 * @param obj - the decoded object.
 * @param keepManagedFields - true to keep `managedFields`.
 * @returns the object without managedFields, frozen.
 */
export function preparedObject<T extends KubeObject>(obj: T, keepManagedFields: boolean): T {
  let out = obj;
  if (!keepManagedFields && obj.metadata.managedFields !== undefined) {
    if (Object.isFrozen(obj.metadata)) {
      // Someone else's frozen object (tests, a fake transport): copy rather than fail.
      const { managedFields: _mf, ...metadata } = obj.metadata;
      out = { ...obj, metadata };
    } else {
      // Freshly decoded JSON is ours to edit; deleting avoids copying the whole object.
      delete (obj.metadata as { managedFields?: unknown }).managedFields;
    }
  }
  deepFreeze(out);
  return out;
}
