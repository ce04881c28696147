// An HTTP proxy on 127.0.0.1 for fault tests that need to change answers, not bytes: the client
// talks plain HTTP to it, it forwards every request over verified TLS to the real kube-apiserver,
// and a rule may answer a matching request itself instead: an error status (429 with Retry-After,
// 500, 410 Gone), a watch stream that carries only an ERROR event, or nothing until released. Watch
// streams are forwarded line by line, so ending them (`endWatches`) is a clean close, as the
// server's own `timeoutSeconds` is.
import type { IncomingMessage, OutgoingHttpHeaders, Server, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import { Agent, request as httpsRequest } from 'node:https';
import type { Socket } from 'node:net';
import { listenLocal } from './ports.js';

/**
 * What a request is, as a fault sees it: `list` (a GET without `watch`, so a single get too, or a
 * streaming list: `watch=true&sendInitialEvents=true`), `watch` (a watch resuming from a
 * resourceVersion), `other` (every other method: the writes).
 *
 * @example
 * ```ts
 * const kind: RequestKind = 'watch';
 * ```
 */
export type RequestKind = 'list' | 'watch' | 'other';

/**
 * What a rule does to a request it matches.
 *
 * - `status`: answers `code` with a Kubernetes Status body (`reason`, `message`) and `headers`.
 * - `watchError`: answers 200 and a watch stream holding one ERROR event with that Status, then ends
 *   it, as a server does for a resourceVersion it no longer has.
 * - `hold`: answers nothing until {@link HttpFaultProxy.release}, then forwards the request.
 *
 * @example
 * ```ts
 * const tooMany: Injection = { type: 'status', code: 429, reason: 'TooManyRequests', headers: { 'retry-after': '3600' } };
 * ```
 */
export type Injection =
  | { readonly type: 'status'; readonly code: number; readonly reason: string; readonly message?: string; readonly headers?: Readonly<Record<string, string>> }
  | { readonly type: 'watchError'; readonly code: number; readonly reason: string; readonly message?: string }
  | { readonly type: 'hold' };

/**
 * A rule: requests of these kinds on this resource get `injection`, `times` times (default once;
 * `Infinity` until removed).
 *
 * @example
 * ```ts
 * proxy.inject({ kinds: ['watch'], resource: 'configmaps', times: 5, injection: { type: 'status', code: 500, reason: 'InternalError' } });
 * ```
 */
export interface FaultRule {
  readonly kinds: readonly RequestKind[];
  /** A path segment the request must have, e.g. `configmaps`; any path when omitted. */
  readonly resource?: string;
  readonly times?: number;
  readonly injection: Injection;
}

/** A rule in force: how often it struck, and its removal. @example `await until('5 hits', () => (rule.hits >= 5 ? true : undefined))` */
export interface ActiveRule {
  readonly hits: number;
  /** True once it has struck `times` times or was removed. */
  readonly spent: boolean;
  remove(): void;
}

/** One request the proxy saw, and what it did with it. @example `proxy.seen.filter((r) => r.kind === 'watch')` */
export interface SeenRequest {
  readonly kind: RequestKind;
  readonly method: string;
  readonly path: string;
  /** The injected status (200 for `watchError`), `held`, or `passed`. */
  readonly outcome: number | 'held' | 'passed';
}

/**
 * A running proxy.
 *
 * @example
 * ```ts
 * const proxy = await startHttpFaultProxy(server.baseUrl, caPem);
 * const kubeconfigServer = proxy.url; // http://127.0.0.1:<port>
 * await proxy.close();
 * ```
 */
export interface HttpFaultProxy {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** Every request so far, oldest first (the last 2,000). */
  readonly seen: readonly SeenRequest[];
  /** Adds a rule after the others (the first matching unspent rule wins). */
  inject(rule: FaultRule): ActiveRule;
  /** Removes every rule; held requests stay held until `release`. */
  clear(): void;
  /** Requests held now. */
  held(): number;
  /** Forwards every held request (those whose client is still there). */
  release(): void;
  /** Watch streams open now. */
  openWatches(): number;
  /** Ends every open watch stream cleanly after its last whole line. */
  endWatches(): void;
  /** Ends everything and stops listening. */
  close(): Promise<void>;
}

const SEEN_LIMIT = 2_000;

function kindOf(method: string, query: URLSearchParams): RequestKind {
  if (method !== 'GET') return 'other';
  const watch = query.get('watch');
  if (watch !== 'true' && watch !== '1') return 'list';
  return query.get('sendInitialEvents') === 'true' ? 'list' : 'watch';
}

function statusBody(code: number, reason: string, message: string | undefined): string {
  return JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: message ?? `injected ${code} ${reason}`, reason, code });
}

/**
 * Starts a proxy on 127.0.0.1 (free port) to the kube-apiserver at `target` (`https://…`), whose
 * certificate must verify against `caPem`. Requests keep their own Authorization header.
 *
 * @example
 * ```ts
 * const proxy = await startHttpFaultProxy('https://127.0.0.1:6443', caPem);
 * proxy.inject({ kinds: ['watch'], injection: { type: 'watchError', code: 410, reason: 'Expired' } });
 * ```
 */
export async function startHttpFaultProxy(target: string, caPem: string): Promise<HttpFaultProxy> {
  const base = new URL(target);
  const agent = new Agent({ ca: caPem, keepAlive: true });
  const rules: { rule: FaultRule; hits: number; removed: boolean }[] = [];
  const seen: SeenRequest[] = [];
  const holding: (() => void)[] = [];
  const watches = new Set<{ end: () => void }>();
  const sockets = new Set<Socket>();

  const record = (r: SeenRequest): void => {
    seen.push(r);
    if (seen.length > SEEN_LIMIT) seen.shift();
  };

  const forward = (req: IncomingMessage, res: ServerResponse, body: Buffer, kind: RequestKind): void => {
    // The request's body was read already (so `req` is done); only a client that left ends it here.
    if (res.destroyed || res.socket === null || res.socket.destroyed) return;
    const headers: OutgoingHttpHeaders = { ...req.headers, host: base.host };
    delete headers.connection;
    const up = httpsRequest({ hostname: base.hostname, port: base.port, method: req.method, path: req.url, headers, agent }, (upRes) => {
      const out: OutgoingHttpHeaders = { ...upRes.headers };
      delete out.connection;
      delete out['content-length'];
      delete out['transfer-encoding'];
      res.writeHead(upRes.statusCode ?? 502, out);
      const streaming = kind !== 'other' && upRes.statusCode === 200 && new URL(req.url ?? '/', 'http://x').searchParams.get('watch') !== null;
      if (!streaming) {
        upRes.pipe(res);
        return;
      }
      // The server sends a watch's headers at once; held until the first line, an idle watch would
      // look to the client like a server that never answers.
      res.flushHeaders();
      // Whole lines only, so an end at any moment is a clean end of the stream.
      let pending = Buffer.alloc(0);
      const entry = {
        end: () => {
          watches.delete(entry);
          upRes.destroy();
          up.destroy();
          res.end();
        },
      };
      watches.add(entry);
      upRes.on('data', (chunk: Buffer) => {
        pending = Buffer.concat([pending, chunk]);
        const nl = pending.lastIndexOf(0x0a);
        if (nl < 0) return;
        res.write(pending.subarray(0, nl + 1));
        pending = pending.subarray(nl + 1);
      });
      upRes.on('end', () => {
        watches.delete(entry);
        res.end(pending);
      });
      upRes.on('error', () => {
        watches.delete(entry);
        res.destroy();
      });
      res.on('close', () => {
        watches.delete(entry);
        up.destroy();
      });
    });
    up.on('error', (err) => {
      if (res.headersSent) res.destroy();
      else res.writeHead(502, { 'content-type': 'application/json' }).end(statusBody(502, 'BadGateway', `proxy: ${err.message}`));
    });
    res.on('close', () => {
      if (!res.writableFinished) up.destroy();
    });
    up.end(body);
  };

  const handle = (req: IncomingMessage, res: ServerResponse, body: Buffer): void => {
    const url = new URL(req.url ?? '/', 'http://x');
    const method = req.method ?? 'GET';
    const kind = kindOf(method, url.searchParams);
    const segments = url.pathname.split('/');
    const hit = rules.find((r) => !r.removed && r.hits < (r.rule.times ?? 1) && r.rule.kinds.includes(kind) && (r.rule.resource === undefined || segments.includes(r.rule.resource)));
    const at = { kind, method, path: url.pathname };
    if (hit === undefined) {
      record({ ...at, outcome: 'passed' });
      forward(req, res, body, kind);
      return;
    }
    hit.hits++;
    const inj = hit.rule.injection;
    if (inj.type === 'hold') {
      record({ ...at, outcome: 'held' });
      holding.push(() => { forward(req, res, body, kind); });
      return;
    }
    record({ ...at, outcome: inj.type === 'status' ? inj.code : 200 });
    if (inj.type === 'status') {
      res.writeHead(inj.code, { 'content-type': 'application/json', ...inj.headers }).end(statusBody(inj.code, inj.reason, inj.message));
      return;
    }
    const event = JSON.stringify({ type: 'ERROR', object: JSON.parse(statusBody(inj.code, inj.reason, inj.message)) as unknown });
    res.writeHead(200, { 'content-type': 'application/json' }).end(`${event}\n`);
  };

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => { handle(req, res, Buffer.concat(chunks)); });
  });
  // Watches are long requests; neither end of the proxy may cut them.
  server.requestTimeout = 0;
  server.headersTimeout = 0;
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  const port = await listenLocal(server);

  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    inject(rule) {
      const entry = { rule, hits: 0, removed: false };
      rules.push(entry);
      return {
        get hits() {
          return entry.hits;
        },
        get spent() {
          return entry.removed || entry.hits >= (rule.times ?? 1);
        },
        remove() {
          entry.removed = true;
        },
      };
    },
    clear() {
      for (const r of rules) r.removed = true;
      rules.length = 0;
    },
    held: () => holding.length,
    release() {
      for (const go of holding.splice(0)) go();
    },
    openWatches: () => watches.size,
    endWatches() {
      for (const w of [...watches]) w.end();
    },
    close: () =>
      new Promise<void>((resolve) => {
        holding.length = 0;
        for (const w of [...watches]) w.end();
        for (const s of sockets) s.destroy();
        agent.destroy();
        server.close(() => { resolve(); });
      }),
  };
}
