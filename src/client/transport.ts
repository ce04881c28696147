// The HTTP transport of one cluster: the cluster's own credentials, explicit TLS verification, the
// request bounds, and two shapes of request: buffered JSON and streamed lines (for watches). What
// carries the bytes is a Carrier: streams of HTTP/2 sessions shared by the clusters of one server
// and TLS identity (the default), or HTTP/1.1 connections of this cluster's own.
import { StringDecoder } from 'node:string_decoder';
import { Observable } from 'rxjs';
import type { ClusterName } from '../core/cluster.js';
import { ConfigError } from '../core/config-error.js';
import type { KubeError } from '../core/errors.js';
import { fromStatus, kubeError } from '../core/errors.js';
import type { Either } from '../internal/fp.js';
import { E } from '../internal/fp.js';
import type { AuthSource, Credentials } from './auth.js';
import type { Carrier, PreparedRequest, ResponseHeaders } from './exchange.js';
import { http2Carrier } from './h2-carrier.js';
import { sharedH2Sessions } from './h2-pool.js';
import type { HeadersBounds } from './headers-deadline.js';
import { http1Carrier } from './http1-carrier.js';
import { countedName, recorderInEffect, requestResult, verbOfRequest } from './request-count.js';
import type { HttpRequest, HttpResponse, Transport, TransportOptions } from './transport-types.js';

export type { HttpRequest, HttpResponse, Transport, TransportOptions } from './transport-types.js';

const DEFAULT_TIMEOUT_MS = 60_000;
const DEFAULT_HEADERS_TIMEOUT_MS = 10_000;
const writes = new Set<HttpRequest['method']>(['POST', 'PUT', 'PATCH', 'DELETE']);

function positiveMs(option: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  // Checked once, when the transport is made: a NaN or 0 here would disable the bound or fail every request.
  if (!(Number.isFinite(value) && value > 0)) throw new ConfigError(`transport: \`${option}\` must be a positive number of milliseconds, got ${String(value)}`);
  return value;
}

function retryAfter(h: ResponseHeaders): number | undefined {
  if (h.retryAfter === undefined) return undefined;
  const n = Number(h.retryAfter);
  return Number.isFinite(n) && n >= 0 ? n : undefined;
}

function parseBody(text: string, contentType: string | undefined): unknown {
  if (text === '') return undefined;
  if (contentType?.includes('json') === true || text.startsWith('{') || text.startsWith('[')) {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return text;
    }
  }
  return text;
}

/**
 * What a client says its server is: the URL's scheme, host and path prefix (no credentials, query
 * or trailing slash). Throws a `TypeError` for a URL that cannot be parsed.
 *
 * @example
 * ```ts
 * serverOf('https://kcp:6443/clusters/root/'); // 'https://kcp:6443/clusters/root'
 * ```
 * @param server - the server URL.
 * @returns its shown form.
 */
export function serverOf(server: string): string {
  const base = new URL(server);
  return `${base.protocol}//${base.host}${base.pathname.replace(/\/+$/, '')}`;
}

/**
 * Creates the transport of one cluster. Over https it speaks HTTP/2 on sessions shared with every
 * other transport of the same server origin and TLS identity (see `TransportOptions.http2`), and
 * falls back to HTTP/1.1 where the server does not offer HTTP/2; over http, and with `http2: false`,
 * it keeps HTTP/1.1 connections of its own, rebuilt only when its TLS material changes (an exec
 * plugin issuing a new client certificate). Credentials travel in each request's headers, and a
 * client certificate is part of the TLS identity: no connection carries two clusters' certificates.
 *
 * @example
 * ```ts
 * const transport = createTransport(clusterName('east'), kc.getCurrentCluster()!.server, authFromKubeconfig(kc));
 * ```
 * @param cluster - the cluster name (for errors).
 * @param server - the server URL, possibly with a path prefix.
 * @param auth - the cluster's credentials.
 * @param options - user agent, timeouts, protocol.
 * @returns the transport.
 * @throws ConfigError when `timeoutMs` or `headersTimeoutMs` is not a positive number.
 */
export function createTransport(cluster: ClusterName, server: string, auth: AuthSource, options: TransportOptions = {}): Transport {
  const base = new URL(server);
  const prefix = base.pathname.replace(/\/+$/, '');
  const http1 = http1Carrier(cluster, base);
  const carrier: Carrier = base.protocol === 'https:' && options.http2 !== false ? http2Carrier(cluster, base, sharedH2Sessions, http1) : http1;
  let closed = false;
  // Read through a function: TypeScript would otherwise take \`closed\` as unchanged across an await.
  const isClosed = (): boolean => closed;
  const idleMs = positiveMs('timeoutMs', options.timeoutMs, DEFAULT_TIMEOUT_MS);
  const headersMs = positiveMs('headersTimeoutMs', options.headersTimeoutMs, DEFAULT_HEADERS_TIMEOUT_MS);
  // Reads (and watches) get their headers at once from a healthy server. A write may wait on
  // admission webhooks (up to 30 s each), so only its connection is bound by `headersTimeoutMs`;
  // its answer may take its idle timeout. A request's own `timeoutMs` is its bound, whatever it is.
  const boundsOf = (req: HttpRequest, stream: boolean): HeadersBounds => {
    const own = req.timeoutMs ?? (stream || !writes.has(req.method) ? headersMs : idleMs);
    return { connectMs: Math.min(headersMs, own), headersMs: own };
  };
  // Each request is counted once, with the verb its caller named and its status class or error tag;
  // nothing is counted once the transport is closed (its cluster has left, its series are gone).
  const own = options.requests ?? recorderInEffect();
  const counter = (req: HttpRequest, stream: boolean): ((outcome: number | KubeError) => void) | undefined => {
    const record = own ?? recorderInEffect();
    if (record === undefined) return undefined;
    const verb = verbOfRequest(req, stream);
    const as = countedName(cluster);
    let counted = false;
    return (outcome) => {
      if (counted || closed) return;
      counted = true;
      record(as, verb, requestResult(outcome));
    };
  };
  const describe = (req: HttpRequest): string => `${req.method} ${prefix}${req.path.split('?')[0] ?? ''}`;

  // The credentials, the headers and the fence's first look; the carrier sends.
  const prepare = async (req: HttpRequest, stream: boolean): Promise<Either<KubeError, { p: PreparedRequest; tls: Credentials }>> => {
    if (closed) return E.left(kubeError('NotEngaged', cluster, 'the client of this cluster was closed', { request: describe(req) }));
    let creds: Credentials;
    try {
      creds = await auth.credentials();
    } catch (err) {
      // Exec plugin failures carry the plugin's stderr in their message; tokens never reach it.
      const text = err instanceof Error ? err.message : String(err);
      return E.left(kubeError('Unauthorized', cluster, `could not obtain credentials: ${text}`, { request: describe(req) }));
    }
    const headers: Record<string, string> = { Accept: req.accept ?? 'application/json', 'User-Agent': options.userAgent ?? 'rxfleet', ...creds.headers };
    if (req.body !== undefined) {
      headers['Content-Type'] = req.contentType ?? 'application/json';
      headers['Content-Length'] = String(Buffer.byteLength(req.body));
    }
    // Checked after the credentials' await, so that no pause between the check and the send is
    // longer than one synchronous turn (a write fenced here never reaches the server); the
    // carrier asks again at its last moment.
    const refused = req.fence?.();
    if (refused !== undefined) return E.left(refused);
    // Closed while the credentials were awaited: nothing may be sent, and no session re-joined.
    if (isClosed()) return E.left(kubeError('NotEngaged', cluster, 'the client of this cluster was closed', { request: describe(req) }));
    const p: PreparedRequest = {
      method: req.method,
      path: `${prefix}${req.path}`,
      headers,
      bounds: boundsOf(req, stream),
      describe: describe(req),
      ...(req.body === undefined ? {} : { body: req.body }),
      ...(stream ? {} : { idleMs: req.timeoutMs ?? idleMs }),
      ...(req.fence === undefined ? {} : { fence: req.fence }),
      ...(req.signal === undefined ? {} : { signal: req.signal }),
    };
    return E.right({ p, tls: creds });
  };

  const once = async (req: HttpRequest): Promise<Either<KubeError, HttpResponse>> => {
    const count = counter(req, false);
    const prepared = await prepare(req, false);
    if (E.isLeft(prepared)) {
      count?.(prepared.left);
      return prepared;
    }
    const { p, tls } = prepared.right;
    return new Promise((resolve) => {
      let status = 0;
      let headers: ResponseHeaders = {};
      const chunks: Buffer[] = [];
      carrier.send(p, tls, {
        response: (s, h) => {
          status = s;
          headers = h;
          count?.(s);
        },
        data: (c) => chunks.push(c),
        fail: (e) => {
          // Counted here only when no answer came (see `counter`).
          count?.(e);
          resolve(E.left(e));
        },
        end: () => {
          const body = parseBody(Buffer.concat(chunks).toString('utf8'), headers.contentType);
          if (status >= 200 && status < 300) {
            resolve(E.right({ status, body }));
            return;
          }
          const ra = retryAfter(headers);
          resolve(E.left(fromStatus(cluster, status, body, { request: p.describe, ...(ra === undefined ? {} : { retryAfterSeconds: ra }) })));
        },
      });
    });
  };

  return {
    cluster,
    server: serverOf(server),
    async request(req) {
      const first = await once(req);
      // A 401 with rotating credentials (exec plugin, token file) earns one retry with fresh ones.
      if (E.isLeft(first) && first.left.type === 'Unauthorized' && first.left.code === 401 && auth.dynamic) {
        auth.invalidate();
        return once(req);
      }
      return first;
    },
    lines(req) {
      return new Observable<string>((subscriber) => {
        const controller = new AbortController();
        const count = counter(req, true);
        let done = false;
        const fail = (e: KubeError): void => {
          // A stream is counted when its answer starts (below), or here when none came.
          count?.(e);
          if (done) return;
          done = true;
          subscriber.error(e);
        };
        void prepare({ ...req, signal: controller.signal }, true).then((prepared) => {
          if (E.isLeft(prepared)) {
            fail(prepared.left);
            return;
          }
          // Unsubscribed while the credentials were awaited: send nothing.
          if (done) return;
          const { p, tls } = prepared.right;
          let status = 0;
          let headers: ResponseHeaders = {};
          const errorBody: Buffer[] = [];
          const decoder = new StringDecoder('utf8');
          let pending = '';
          carrier.send(p, tls, {
            response: (s, h) => {
              status = s;
              headers = h;
              count?.(s);
            },
            data: (c) => {
              if (status < 200 || status >= 300) {
                errorBody.push(c);
                return;
              }
              pending += decoder.write(c);
              let nl = pending.indexOf('\n');
              while (nl >= 0 && !done) {
                const line = pending.slice(0, nl);
                pending = pending.slice(nl + 1);
                if (line.trim() !== '') subscriber.next(line);
                nl = pending.indexOf('\n');
              }
            },
            // A stream cut after a 2xx keeps that status: the watch was open (see watch-end.ts).
            fail: (e) => {
              fail(status >= 200 && status < 300 && e.code === undefined ? Object.freeze({ ...e, code: status }) : e);
            },
            end: () => {
              if (done) return;
              if (status < 200 || status >= 300) {
                const ra = retryAfter(headers);
                if (status === 401 && auth.dynamic) auth.invalidate();
                const body = parseBody(Buffer.concat(errorBody).toString('utf8'), headers.contentType);
                fail(fromStatus(cluster, status, body, { request: p.describe, ...(ra === undefined ? {} : { retryAfterSeconds: ra }) }));
                return;
              }
              pending += decoder.end();
              if (pending.trim() !== '') {
                fail(kubeError('Transient', cluster, 'the stream ended in the middle of a line', { request: p.describe, code: status }));
                return;
              }
              done = true;
              subscriber.complete();
            },
          });
        });
        return () => {
          done = true;
          controller.abort();
        };
      });
    },
    close() {
      // Its requests still in flight are not counted from here on, so nothing comes back.
      if (!closed && options.countedWhileOpen === true) own?.forget?.(cluster);
      closed = true;
      carrier.close();
    },
  };
}
