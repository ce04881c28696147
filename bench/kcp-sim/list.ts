// A list request against kcp-sim: one page of a resource in one logical cluster or in all of them,
// in creation order, with `limit` and `continue` as the API server pages (a continue token older
// than the resource's history is 410 Gone, as an expired etcd revision is). Pages are read from the
// current state at the list's position: a change between pages may show in a later page and again
// in the watch that follows, which a cache applies idempotently. A page is bounded by `limit`; a
// list without one returns every match, as the API server does.
import type { Entry, Table } from './store.js';
import { selectorOf } from './selectors.js';

/** Which objects a request is about: a logical cluster (or `*`) and a namespace (or all). */
export interface Scope {
  readonly cluster: string;
  readonly namespace: string | undefined;
}

/** A response: status and JSON body. */
export interface Reply {
  readonly status: number;
  readonly body: string;
  /** Sent as `Retry-After` (a 429). */
  readonly retryAfterS?: number;
}

/**
 * A Kubernetes `Status` failure.
 *
 * @example
 * ```ts
 * failure(410, 'Expired', 'too old resource version: 5 (9)');
 * ```
 * @param code - HTTP status.
 * @param reason - the Status reason.
 * @param message - what went wrong.
 * @returns the reply.
 */
export function failure(code: number, reason: string, message: string): Reply {
  return { status: code, body: JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code }) };
}

/**
 * Whether a stored entry is in a scope and passes a selector.
 *
 * @example
 * ```ts
 * const keep = inScope({ cluster: '*', namespace: undefined }, (e) => true);
 * ```
 * @param scope - cluster and namespace.
 * @param match - the selector.
 * @returns the predicate.
 */
export function inScope(scope: Scope, match: (e: Entry) => boolean): (e: Entry) => boolean {
  return (e) => (scope.cluster === '*' || e.cluster === scope.cluster) && (scope.namespace === undefined || e.namespace === scope.namespace) && match(e);
}

interface Token {
  readonly rv: number;
  readonly seq: number;
}

const encode = (t: Token): string => Buffer.from(JSON.stringify(t)).toString('base64url');

function decode(s: string): Token | undefined {
  try {
    const t = JSON.parse(Buffer.from(s, 'base64url').toString()) as Partial<Token>;
    return typeof t.rv === 'number' && typeof t.seq === 'number' ? { rv: t.rv, seq: t.seq } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Serves one list request (one page).
 *
 * @example
 * ```ts
 * const reply = listPage(table, { cluster: '*', namespace: undefined }, new URLSearchParams('limit=500'), store.resourceVersion);
 * ```
 * @param t - the resource's table.
 * @param scope - cluster and namespace.
 * @param q - the query: limit, continue, resourceVersion, selectors.
 * @param currentRv - the shard's latest resourceVersion.
 * @returns the page, or the failure.
 */
export function listPage(t: Table, scope: Scope, q: URLSearchParams, currentRv: number): Reply {
  const sel = selectorOf(q.get('labelSelector'), q.get('fieldSelector'));
  if (sel.error !== undefined) return failure(400, 'BadRequest', sel.error);
  const limitText = q.get('limit') ?? '';
  const limit = limitText === '' ? 0 : Number(limitText);
  if (!Number.isInteger(limit) || limit < 0) return failure(400, 'BadRequest', `limit ${JSON.stringify(limitText)} is not a non-negative integer`);
  const asked = q.get('resourceVersion') ?? '';
  if (asked !== '' && asked !== '0' && !(Number(asked) <= currentRv)) {
    return Number.isInteger(Number(asked)) ? failure(504, 'Timeout', `Too large resource version: ${asked}, current: ${currentRv}`) : failure(400, 'BadRequest', `resourceVersion ${JSON.stringify(asked)} is not a number`);
  }
  const cont = q.get('continue') ?? '';
  const token = cont === '' ? { rv: currentRv, seq: 0 } : decode(cont);
  if (token === undefined) return failure(400, 'BadRequest', 'the continue token cannot be decoded');
  if (token.rv < t.floor) {
    return failure(410, 'Expired', 'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.');
  }
  const page = t.page(token.seq, limit === 0 ? Infinity : limit, inScope(scope, sel.match));
  const last = page.items.at(-1);
  const metadata = { resourceVersion: String(token.rv), ...(page.more && last !== undefined ? { continue: encode({ rv: token.rv, seq: last.seq }) } : {}) };
  const r = t.resource;
  const head = JSON.stringify({ kind: `${r.kind}List`, apiVersion: r.group === '' ? r.version : `${r.group}/${r.version}`, metadata });
  return { status: 200, body: `${head.slice(0, -1)},"items":[${page.items.map((e) => e.json).join(',')}]}` };
}
