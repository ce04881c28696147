// JSON patch (RFC 6902) for the in-memory fleet: add, remove, replace, move, copy and test, which is
// what controllers send (finalizer edits guarded by a `test` of the resourceVersion, say).
import type { JsonMap } from './json-fields.js';
import { cloneJson, deepEqual, isMap } from './json-fields.js';

/**
 * Applies a JSON patch to a copy of `doc`, or says which operation failed and why.
 *
 * @example
 * ```ts
 * jsonPatch({ metadata: { finalizers: ['a'] } }, [{ op: 'remove', path: '/metadata/finalizers/0' }]);
 * // { type: 'patched', doc: { metadata: { finalizers: [] } } }
 * ```
 * @param doc - the current object.
 * @param ops - the operations (anything else is refused).
 * @returns the patched copy, or the failure (`test` failures are told apart: the server answers 422 for them too).
 */
export function jsonPatch(doc: JsonMap, ops: unknown): { readonly type: 'patched'; readonly doc: JsonMap } | { readonly type: 'failed'; readonly reason: string } {
  if (!Array.isArray(ops)) return { type: 'failed', reason: 'a JSON patch must be an array of operations' };
  let root: unknown = cloneJson(doc);
  for (const raw of ops) {
    if (!isMap(raw) || typeof raw.op !== 'string' || typeof raw.path !== 'string') return { type: 'failed', reason: `not an operation: ${JSON.stringify(raw)}` };
    const op = raw.op;
    const path = pointer(raw.path);
    const from = typeof raw.from === 'string' ? pointer(raw.from) : undefined;
    const value = raw.value;
    let next: unknown;
    switch (op) {
      case 'add':
        next = put(root, path, cloneJson(value), true);
        break;
      case 'replace':
        next = get(root, path) === undefined ? undefined : put(remove(root, path) ?? root, path, cloneJson(value), true);
        break;
      case 'remove':
        next = remove(root, path);
        break;
      case 'test':
        if (!deepEqual(get(root, path), value)) return { type: 'failed', reason: `test failed at ${raw.path}` };
        next = root;
        break;
      case 'move':
      case 'copy': {
        const v = from === undefined ? undefined : get(root, from);
        const base = op === 'move' && from !== undefined ? remove(root, from) : root;
        next = v === undefined || base === undefined ? undefined : put(base, path, cloneJson(v), true);
        break;
      }
      default:
        return { type: 'failed', reason: `unknown operation ${op}` };
    }
    if (next === undefined) return { type: 'failed', reason: `${op} ${raw.path}: no such path` };
    root = next;
  }
  return isMap(root) ? { type: 'patched', doc: root } : { type: 'failed', reason: 'the patch replaced the whole object with a non-object' };
}

function pointer(p: string): string[] {
  return p === '' ? [] : p.slice(1).split('/').map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~'));
}

function get(root: unknown, path: readonly string[]): unknown {
  let cur = root;
  for (const k of path) {
    if (Array.isArray(cur)) cur = cur[Number(k)];
    else if (isMap(cur)) cur = cur[k];
    else return undefined;
  }
  return cur;
}

// Each helper mutates the (already copied) document in place and returns its root, or undefined when the path does not exist.
function put(root: unknown, path: readonly string[], value: unknown, insert: boolean): unknown {
  if (path.length === 0) return value;
  const parent = get(root, path.slice(0, -1));
  const last = path[path.length - 1] ?? '';
  if (Array.isArray(parent)) {
    const i = last === '-' ? parent.length : Number(last);
    if (!Number.isInteger(i) || i < 0 || i > parent.length) return undefined;
    parent.splice(i, insert ? 0 : 1, value);
  } else if (isMap(parent)) parent[last] = value;
  else return undefined;
  return root;
}

function remove(root: unknown, path: readonly string[]): unknown {
  const parent = get(root, path.slice(0, -1));
  const last = path[path.length - 1] ?? '';
  if (Array.isArray(parent)) {
    const i = Number(last);
    if (!Number.isInteger(i) || i < 0 || i >= parent.length) return undefined;
    parent.splice(i, 1);
  } else if (isMap(parent) && Object.hasOwn(parent, last)) Reflect.deleteProperty(parent, last);
  else return undefined;
  return root;
}
