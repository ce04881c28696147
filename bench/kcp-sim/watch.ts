// A watch request against kcp-sim, as the API server serves it: the initial state (ADDED events,
// and with `sendInitialEvents` the BOOKMARK annotated `k8s.io/initial-events-end`), or the changes
// after `resourceVersion` from the resource's history (an ERROR 410 Expired event when they are no
// longer kept), then every change as it is recorded, BOOKMARKs every `bookmarkIntervalMs` when
// asked for, and a clean end at `timeoutSeconds`. Bounded: the initial events are written as the
// connection drains; a watcher that falls behind by more than `maxBufferedBytes` (or
// `maxPendingChanges` while its initial events are still being written) is closed, as the API
// server closes a slow watcher, and the client resumes from its last resourceVersion.
import type { Change, Sink, Table } from './store.js';
import type { Reply, Scope } from './list.js';
import { failure, inScope } from './list.js';
import { selectorOf } from './selectors.js';

/** The response a watch writes to (node:http's and node:http2's compatibility responses both are one). */
export interface WatchOut {
  write(chunk: string): boolean;
  end(): void;
  once(event: 'drain', listener: () => void): unknown;
  on(event: 'close', listener: () => void): unknown;
  readonly writableLength: number;
  readonly destroyed: boolean;
}

/** The limits and timings of watches. */
export interface WatchLimits {
  readonly bookmarkIntervalMs: number;
  readonly maxBufferedBytes: number;
  readonly maxPendingChanges: number;
  readonly maxTimeoutSeconds: number;
}

interface Watcher {
  readonly bookmarks: boolean;
  bookmark(): void;
  close(): void;
}

/** The open watches of a server: their count (bounded by the server) and their bookmarks. */
export class Watchers {
  private readonly open = new Set<Watcher>();

  get size(): number {
    return this.open.size;
  }

  add(w: Watcher): () => void {
    this.open.add(w);
    return () => this.open.delete(w);
  }

  /** Ends every open watch (the server is closing). */
  closeAll(): void {
    for (const w of [...this.open]) w.close();
  }

  /** Sends a BOOKMARK to every live watcher that asked for them. */
  bookmarkAll(): void {
    for (const w of this.open) if (w.bookmarks) w.bookmark();
  }
}

const line = (type: string, json: string): string => `{"type":"${type}","object":${json}}\n`;

/**
 * Checks a watch request and, when it can be served, returns the function that serves it on a
 * response (after the caller has written the 200 header); otherwise the failure reply.
 *
 * @example
 * ```ts
 * const w = watchRequest(table, scope, query, () => store.resourceVersion, watchers, limits);
 * if (typeof w === 'function') { res.writeHead(200, { 'content-type': 'application/json' }); w(res); }
 * ```
 * @param t - the resource's table.
 * @param scope - cluster and namespace.
 * @param q - the query: resourceVersion, allowWatchBookmarks, sendInitialEvents, resourceVersionMatch, timeoutSeconds, selectors.
 * @param currentRv - the shard's latest resourceVersion, read at each bookmark.
 * @param watchers - the server's open watches.
 * @param limits - bookmarks, buffers, timeout cap.
 * @returns the server of the watch, or the failure.
 */
export function watchRequest(t: Table, scope: Scope, q: URLSearchParams, currentRv: () => number, watchers: Watchers, limits: WatchLimits): ((out: WatchOut) => void) | Reply {
  const sel = selectorOf(q.get('labelSelector'), q.get('fieldSelector'));
  if (sel.error !== undefined) return failure(400, 'BadRequest', sel.error);
  const keep = inScope(scope, sel.match);
  const bookmarks = q.get('allowWatchBookmarks') === 'true';
  const initialEvents = q.get('sendInitialEvents') === 'true';
  const rvText = q.get('resourceVersion') ?? '';
  if (initialEvents && (!bookmarks || q.get('resourceVersionMatch') !== 'NotOlderThan')) {
    return failure(422, 'Invalid', 'sendInitialEvents requires allowWatchBookmarks=true and resourceVersionMatch=NotOlderThan');
  }
  if (rvText !== '' && !/^\d+$/.test(rvText)) return failure(400, 'BadRequest', `resourceVersion ${JSON.stringify(rvText)} is not a number`);
  const timeoutText = q.get('timeoutSeconds') ?? '';
  const timeoutS = Math.min(timeoutText === '' ? limits.maxTimeoutSeconds : Number(timeoutText), limits.maxTimeoutSeconds);
  if (!(timeoutS > 0)) return failure(400, 'BadRequest', `timeoutSeconds ${JSON.stringify(timeoutText)} is not a positive number`);
  const r = t.resource;
  const apiVersion = r.group === '' ? r.version : `${r.group}/${r.version}`;

  return (out) => {
    // The first lines (made as they are written, not all at once): the initial state, or the kept
    // changes after the asked resourceVersion.
    const snapshotRv = currentRv();
    let first: readonly Change[];
    let end: string | undefined;
    if (initialEvents || rvText === '' || rvText === '0') {
      first = t.page(0, Infinity, keep).items.map((entry): Change => ({ type: 'ADDED', entry }));
      if (initialEvents) end = line('BOOKMARK', JSON.stringify({ kind: r.kind, apiVersion, metadata: { resourceVersion: String(snapshotRv), annotations: { 'k8s.io/initial-events-end': 'true' } } }));
    } else {
      const kept = t.since(Number(rvText));
      if (kept === undefined) {
        const status = failure(410, 'Expired', `too old resource version: ${rvText} (${t.floor})`).body;
        out.write(line('ERROR', status));
        out.end();
        return;
      }
      first = kept.filter((c) => keep(c.entry));
    }

    let pending: Change[] | undefined = [];
    let closed = false;
    const scopes = [scope.cluster];
    const close = (): void => {
      if (closed) return;
      closed = true;
      clearTimeout(timer);
      unregister();
      for (const s of scopes) t.sinks.get(s)?.delete(sink);
      if (!out.destroyed) out.end();
    };
    const send = (chunk: string): void => {
      out.write(chunk);
      if (out.writableLength > limits.maxBufferedBytes) close();
    };
    const sink: Sink = (c) => {
      if (closed || !keep(c.entry)) return;
      if (pending === undefined) send(line(c.type, c.entry.json));
      else if (pending.push(c) > limits.maxPendingChanges) close();
    };
    for (const s of scopes) {
      const set = t.sinks.get(s) ?? new Set<Sink>();
      set.add(sink);
      t.sinks.set(s, set);
    }
    const unregister = watchers.add({
      bookmarks,
      bookmark: () => {
        if (!closed && pending === undefined) send(line('BOOKMARK', JSON.stringify({ kind: r.kind, apiVersion, metadata: { resourceVersion: String(currentRv()) } })));
      },
      close: () => {
        close();
      },
    });
    const timer = setTimeout(close, timeoutS * 1000);
    out.on('close', close);

    // Writes the first lines as the connection drains, then the changes recorded meanwhile, then live.
    let i = 0;
    const pump = (): void => {
      while (!closed && i <= first.length) {
        const c = first[i++];
        const chunk = c === undefined ? end : line(c.type, c.entry.json);
        if (chunk !== undefined && !out.write(chunk)) {
          out.once('drain', pump);
          return;
        }
      }
      if (closed) return;
      const meanwhile = pending ?? [];
      pending = undefined;
      for (const c of meanwhile) send(line(c.type, c.entry.json));
    };
    pump();
  };
}
