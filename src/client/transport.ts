// The HTTP transport of one cluster: one keep-alive agent, the cluster's own credentials, explicit
// TLS verification, and two shapes of request: buffered JSON and streamed lines (for watches).
import { createHash } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import { StringDecoder } from 'node:string_decoder';
import { Observable } from 'rxjs';
import type { ClusterName } from '../core/cluster.js';
import { ConfigError } from '../core/config-error.js';
import type { KubeError } from '../core/errors.js';
import { fromStatus, fromTransport, kubeError } from '../core/errors.js';
import type { Either } from '../internal/fp.js';
import { E } from '../internal/fp.js';
import type { AuthSource, Credentials } from './auth.js';
import type { HeadersBounds } from './headers-deadline.js';
import { armHeadersDeadline, headersTimeout } from './headers-deadline.js';
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

function fingerprint(c: Credentials): string {
  const h = createHash('sha256');
  for (const part of [c.ca, c.cert, c.key, c.servername, String(c.rejectUnauthorized)]) {
    h.update(part ?? '-');
    h.update('\0');
  }
  return h.digest('hex');
}

function retryAfter(res: http.IncomingMessage): number | undefined {
  const v = res.headers['retry-after'];
  if (typeof v !== 'string') return undefined;
  const n = Number(v);
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
 * Creates the transport of one cluster. The agent is built from the cluster's TLS material on the
 * first request and rebuilt only when that material changes (an exec plugin issuing a new client
 * certificate); its sockets are never shared with another cluster.
 *
 * @example
 * ```ts
 * const transport = createTransport(clusterName('east'), kc.getCurrentCluster()!.server, authFromKubeConfig(kc));
 * ```
 * @param cluster - the cluster name (for errors).
 * @param server - the server URL, possibly with a path prefix.
 * @param auth - the cluster's credentials.
 * @param options - user agent and timeouts.
 * @returns the transport.
 * @throws ConfigError when `timeoutMs` or `headersTimeoutMs` is not a positive number.
 */
export function createTransport(cluster: ClusterName, server: string, auth: AuthSource, options: TransportOptions = {}): Transport {
  const base = new URL(server);
  const prefix = base.pathname.replace(/\/+$/, '');
  const secure = base.protocol === 'https:';
  const lib = secure ? https : http;
  let agent: { fp: string; agent: http.Agent } | undefined;
  let closed = false;
  const idleMs = positiveMs('timeoutMs', options.timeoutMs, DEFAULT_TIMEOUT_MS);
  const headersMs = positiveMs('headersTimeoutMs', options.headersTimeoutMs, DEFAULT_HEADERS_TIMEOUT_MS);
  // Reads (and watches) get their headers at once from a healthy server. A write may wait on
  // admission webhooks (up to 30 s each), so only its connection is bound by `headersTimeoutMs`;
  // its answer may take its idle timeout. A request's own `timeoutMs` is its bound, whatever it is.
  const boundsOf = (req: HttpRequest, stream: boolean): HeadersBounds => {
    const own = req.timeoutMs ?? (stream || !writes.has(req.method) ? headersMs : idleMs);
    return { connectMs: Math.min(headersMs, own), headersMs: own };
  };

  const agentFor = (c: Credentials): http.Agent => {
    const fp = fingerprint(c);
    if (agent?.fp === fp) return agent.agent;
    agent?.agent.destroy();
    const a = secure
      ? new https.Agent({
          keepAlive: true,
          rejectUnauthorized: c.rejectUnauthorized,
          ...(c.ca === undefined ? {} : { ca: c.ca }),
          ...(c.cert === undefined ? {} : { cert: c.cert }),
          ...(c.key === undefined ? {} : { key: c.key }),
          ...(c.servername === undefined ? {} : { servername: c.servername }),
        })
      : new http.Agent({ keepAlive: true });
    agent = { fp, agent: a };
    return a;
  };

  const describe = (req: HttpRequest): string => `${req.method} ${prefix}${req.path.split('?')[0] ?? ''}`;

  const open = async (req: HttpRequest): Promise<Either<KubeError, http.ClientRequest>> => {
    if (closed) return E.left(kubeError('NotEngaged', cluster, 'the client of this cluster was closed', { request: describe(req) }));
    let creds: Credentials;
    try {
      creds = await auth.credentials();
    } catch (err) {
      // Exec plugin failures carry the plugin's stderr in their message; tokens never reach it.
      const text = err instanceof Error ? err.message : String(err);
      return E.left(kubeError('Unauthorized', cluster, `could not obtain credentials: ${text}`, { request: describe(req) }));
    }
    const headers: Record<string, string> = {
      Accept: 'application/json',
      'User-Agent': options.userAgent ?? 'rxfleet',
      ...creds.headers,
    };
    if (req.body !== undefined) {
      headers['Content-Type'] = req.contentType ?? 'application/json';
      headers['Content-Length'] = String(Buffer.byteLength(req.body));
    }
    // Checked after the credentials' await, so that no pause between the check and the send is
    // longer than one synchronous turn (a write fenced here never reaches the server).
    const refused = req.fence?.();
    if (refused !== undefined) return E.left(refused);
    const r = lib.request({
      protocol: base.protocol,
      hostname: base.hostname.replace(/^\[|\]$/g, ''),
      port: base.port === '' ? undefined : Number(base.port),
      method: req.method,
      path: `${prefix}${req.path}`,
      headers,
      agent: agentFor(creds),
      ...(req.signal === undefined ? {} : { signal: req.signal }),
    });
    return E.right(r);
  };

  const once = async (req: HttpRequest): Promise<Either<KubeError, HttpResponse>> => {
    const opened = await open(req);
    if (E.isLeft(opened)) return opened;
    const r = opened.right;
    return new Promise((resolve) => {
      let fenced: KubeError | undefined;
      if (req.fence !== undefined) {
        const fence = req.fence;
        // An agent may hand out the socket a tick later: the headers are flushed right after
        // 'socket', so a second look here closes that gap.
        r.once('socket', () => {
          fenced = fence();
          if (fenced !== undefined) r.destroy(new Error(fenced.message));
        });
      }
      let timedOut: KubeError | undefined;
      armHeadersDeadline(r, boundsOf(req, false), (stage, ms) => {
        timedOut = headersTimeout(cluster, describe(req), ms, stage);
        r.destroy(new Error(timedOut.message));
      });
      // After the headers, the body: a server that stops sending mid-body is cut after this long idle.
      r.setTimeout(req.timeoutMs ?? idleMs, () => {
        r.destroy(Object.assign(new Error('request timed out'), { code: 'ETIMEDOUT' }));
      });
      r.on('error', (err) => {
        resolve(E.left(fenced ?? timedOut ?? fromTransport(cluster, err, describe(req))));
      });
      r.on('response', (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', (err) => {
          resolve(E.left(fromTransport(cluster, err, describe(req))));
        });
        res.on('end', () => {
          const status = res.statusCode ?? 0;
          const body = parseBody(Buffer.concat(chunks).toString('utf8'), res.headers['content-type']);
          if (status >= 200 && status < 300) {
            resolve(E.right({ status, body }));
            return;
          }
          const ra = retryAfter(res);
          resolve(E.left(fromStatus(cluster, status, body, { request: describe(req), ...(ra === undefined ? {} : { retryAfterSeconds: ra }) })));
        });
      });
      r.end(req.body);
    });
  };

  return {
    cluster,
    server: `${base.protocol}//${base.host}${prefix}`,
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
        let done = false;
        const fail = (e: KubeError): void => {
          if (done) return;
          done = true;
          subscriber.error(e);
        };
        void open({ ...req, signal: controller.signal }).then((opened) => {
          if (E.isLeft(opened)) {
            fail(opened.left);
            return;
          }
          const r = opened.right;
          // No idle timeout on the body (the watch layer has its own inactivity timer), but a stream
          // that never gets its headers fails here, so the watch backs off and its health says so.
          armHeadersDeadline(r, boundsOf(req, true), (stage, ms) => {
            const e = headersTimeout(cluster, describe(req), ms, stage);
            fail(e);
            r.destroy(new Error(e.message));
          });
          r.on('error', (err) => {
            fail(fromTransport(cluster, err, describe(req)));
          });
          r.on('response', (res) => {
            const status = res.statusCode ?? 0;
            if (status < 200 || status >= 300) {
              const chunks: Buffer[] = [];
              res.on('data', (c: Buffer) => chunks.push(c));
              res.on('end', () => {
                const ra = retryAfter(res);
                if (status === 401 && auth.dynamic) auth.invalidate();
                const body = parseBody(Buffer.concat(chunks).toString('utf8'), res.headers['content-type']);
                fail(fromStatus(cluster, status, body, { request: describe(req), ...(ra === undefined ? {} : { retryAfterSeconds: ra }) }));
              });
              return;
            }
            const decoder = new StringDecoder('utf8');
            let pending = '';
            res.on('data', (c: Buffer) => {
              pending += decoder.write(c);
              let nl = pending.indexOf('\n');
              while (nl >= 0 && !done) {
                const line = pending.slice(0, nl);
                pending = pending.slice(nl + 1);
                if (line.trim() !== '') subscriber.next(line);
                nl = pending.indexOf('\n');
              }
            });
            res.on('error', (err) => {
              fail(fromTransport(cluster, err, describe(req)));
            });
            res.on('close', () => {
              // 'close' without a complete body: the connection was cut (server killed, proxy reset).
              if (!res.complete) fail(kubeError('Transient', cluster, 'the connection was cut before the stream ended', { request: describe(req) }));
            });
            res.on('end', () => {
              if (done) return;
              pending += decoder.end();
              if (pending.trim() !== '') {
                fail(kubeError('Transient', cluster, 'the stream ended in the middle of a line', { request: describe(req) }));
                return;
              }
              done = true;
              subscriber.complete();
            });
          });
          r.end(req.body);
        });
        return () => {
          done = true;
          controller.abort();
        };
      });
    },
    close() {
      closed = true;
      agent?.agent.destroy();
      agent = undefined;
    },
  };
}
