// Reads of the in-memory fleet: list pages and watch responses, as raw watch lines, so the runtime's
// own watch machinery (streaming lists, resume from a resourceVersion, 410 Gone, the server's
// timeoutSeconds) runs over it unchanged.
import type { Observable, SchedulerLike } from 'rxjs';
import { concat, defer, filter, from, map, observeOn, of, takeUntil, timer } from 'rxjs';
import type { ListOptions, WatchOptions } from '../client/call-options.js';
import type { KubeError } from '../core/errors.js';
import type { KubeObject, ObjectList } from '../core/object.js';
import type { ResourceDescriptor } from '../core/resource.js';
import { apiVersionOf, resourceId } from '../core/resource.js';
import type { Either } from '../internal/fp.js';
import { E } from '../internal/fp.js';
import type { ClusterState, StoreChange } from './fake-store.js';
import { serverError } from './fake-writes.js';
import { getAt } from './json-fields.js';

/**
 * Whether an object is in a selection: namespace, label selector (`a=b`, `a!=b`, `a`, `!a`,
 * `a in (x,y)`, `a notin (x,y)`) and field selector (`metadata.name=x`, `f!=y`, any dotted path).
 *
 * @example
 * ```ts
 * inSelection(cm, { namespace: 'default', labelSelector: 'app=web' });
 * ```
 * @param obj - the object.
 * @param sel - the selection.
 * @returns true when it matches.
 */
export function inSelection(obj: KubeObject, sel: { readonly namespace?: string | undefined; readonly labelSelector?: string | undefined; readonly fieldSelector?: string | undefined }): boolean {
  if (sel.namespace !== undefined && sel.namespace !== '' && obj.metadata.namespace !== undefined && obj.metadata.namespace !== sel.namespace) return false;
  const labels = obj.metadata.labels ?? {};
  for (const term of terms(sel.labelSelector)) {
    const set = /^(\S+)\s+(in|notin)\s*\(([^)]*)\)$/.exec(term);
    if (set !== null) {
      const [, key = '', op, list = ''] = set;
      const values = list.split(',').map((v) => v.trim());
      const v = labels[key];
      if (op === 'in' ? v === undefined || !values.includes(v) : v !== undefined && values.includes(v)) return false;
      continue;
    }
    const eq = /^([^!=\s]+)\s*(!=|==|=)\s*(\S*)$/.exec(term);
    if (eq !== null) {
      const [, key = '', op, value] = eq;
      if (op === '!=' ? labels[key] === value : labels[key] !== value) return false;
    } else if (term.startsWith('!') ? Object.hasOwn(labels, term.slice(1)) : !Object.hasOwn(labels, term)) return false;
  }
  for (const term of terms(sel.fieldSelector)) {
    const m = /^([^!=]+)(!=|==|=)(.*)$/.exec(term);
    if (m === null) continue;
    const [, path = '', op, value] = m;
    const raw = getAt(obj, path.split('.'));
    const actual = typeof raw === 'string' || typeof raw === 'number' || typeof raw === 'boolean' ? String(raw) : '';
    if (op === '!=' ? actual === value : actual !== value) return false;
  }
  return true;
}

function terms(selector: string | undefined): string[] {
  if (selector === undefined || selector.trim() === '') return [];
  return (selector.match(/[^,(]+(\([^)]*\))?/g) ?? []).map((t) => t.trim()).filter((t) => t !== '');
}

/**
 * One list page: the latest state, paged with `limit` and `continue` (the pages are read one by one
 * from the live state, not from one snapshot).
 *
 * @example
 * ```ts
 * const page = listPage(state, configMaps, { namespace: 'default', limit: 2 });
 * ```
 * @param state - the cluster.
 * @param r - the resource.
 * @param opts - namespace, selectors and paging.
 * @returns the page.
 */
export function listPage<T extends KubeObject>(state: ClusterState, r: ResourceDescriptor<T>, opts: ListOptions = {}): Either<KubeError, ObjectList<T>> {
  const all = state.list(r, opts.namespace).map((s) => s.object as T).filter((o) => inSelection(o, opts));
  let offset = 0;
  if (opts.continue !== undefined && opts.continue !== '') {
    offset = Number(Buffer.from(opts.continue, 'base64url').toString('utf8'));
    if (!Number.isInteger(offset) || offset < 0) {
      return E.left(serverError(state, 'GET', { r, namespace: opts.namespace ?? '', name: '', subresource: '' }, 400, 'BadRequest', 'invalid continue token'));
    }
  }
  const end = opts.limit === undefined || opts.limit <= 0 ? all.length : Math.min(all.length, offset + opts.limit);
  const more = end < all.length;
  const metadata = { resourceVersion: String(state.rv()), ...(more ? { continue: Buffer.from(String(end), 'utf8').toString('base64url'), remainingItemCount: all.length - end } : {}) };
  return E.right({ apiVersion: apiVersionOf(r), kind: `${r.kind}List`, metadata, items: all.slice(offset, end) });
}

/**
 * A watch response as raw lines: the current objects first when asked (`sendInitialEvents`, ended
 * by the `k8s.io/initial-events-end` bookmark, or no resourceVersion at all), else the logged changes
 * after `resourceVersion` (an `ERROR` 410 Expired line when the log no longer reaches back), then
 * live changes. Lines arrive through `scheduler` (never inside the write that caused them), and the
 * response ends cleanly after the request's `timeoutSeconds`.
 *
 * @example
 * ```ts
 * watchLines(state, configMaps, { resourceVersion: '5' }, asyncScheduler).subscribe((line: string) => console.log(line));
 * ```
 * @param state - the cluster.
 * @param r - the resource.
 * @param opts - selection, resourceVersion, initial events and timeout.
 * @param scheduler - delivers the lines.
 * @returns the lines.
 */
export function watchLines(state: ClusterState, r: ResourceDescriptor, opts: WatchOptions, scheduler: SchedulerLike): Observable<string> {
  return defer(() => {
    const id = resourceId(r);
    const line = (type: string, object: unknown): string => JSON.stringify({ type, object });
    const rv = opts.resourceVersion;
    let first: string[];
    if (opts.sendInitialEvents === true || rv === undefined || rv === '' || rv === '0') {
      first = state.list(r, opts.namespace).flatMap((s) => (inSelection(s.object, opts) ? [line('ADDED', s.object)] : []));
      if (opts.sendInitialEvents === true) {
        const end = { kind: r.kind, apiVersion: apiVersionOf(r), metadata: { resourceVersion: String(state.rv()), annotations: { 'k8s.io/initial-events-end': 'true' } } };
        first.push(line('BOOKMARK', end));
      }
    } else {
      const replay = state.since(r, Number(rv));
      if (replay === 'gone') {
        const status = { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 410, reason: 'Expired', message: `too old resource version: ${rv} (${state.rv()})` };
        return of(line('ERROR', status)).pipe(observeOn(scheduler));
      }
      first = replay.filter((c) => inSelection(c.object, opts)).map((c) => line(c.type, c.object));
    }
    const live = state.changes.pipe(
      filter((c: StoreChange) => c.resource === id && inSelection(c.object, opts)),
      map((c) => line(c.type, c.object)),
    );
    const lines = concat(from(first), live).pipe(observeOn(scheduler));
    return opts.timeoutSeconds === undefined ? lines : lines.pipe(takeUntil(timer(opts.timeoutSeconds * 1000, scheduler)));
  });
}
