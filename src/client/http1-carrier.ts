// HTTP/1.1 for one cluster: one keep-alive agent of its own, built from its TLS material and rebuilt
// only when that changes (an exec plugin issuing a new client certificate). Used for plain-http
// servers, for servers that do not speak HTTP/2, and when a client asks for it (`http2: false`).
import type http from 'node:http';
import type { ClusterName } from '../core/cluster.js';
import type { KubeError } from '../core/errors.js';
import { fromTransport, kubeError } from '../core/errors.js';
import type { Credentials } from './auth.js';
import type { Carrier, ExchangeEvents, PreparedRequest } from './exchange.js';
import { abortedRequest, settleOnce } from './exchange.js';
import { armHeadersDeadline, headersTimeout } from './headers-deadline.js';
import { afterPendingIo } from './io-timeout.js';

// Taken with getBuiltinModule, not `import`: an ESM import of node:http builds its module
// namespace by reading every export, and three of them (WebSocket, MessageEvent, CloseEvent) are
// getters that load Node's bundled undici (~2.5 MiB RSS of rxfleet's import), for nothing here
// (node:crypto's namespace loads webcrypto: see h2-pool.ts).
const { createHash } = process.getBuiltinModule('node:crypto');
const { Agent: HttpAgent, request: httpRequest } = process.getBuiltinModule('node:http');
const { Agent: HttpsAgent, request: httpsRequest } = process.getBuiltinModule('node:https');

// Static credentials are one object for the life of a transport, and every request asks for its
// fingerprint: one SHA-256 of the CA (and any key) per credentials object, not per request.
const fingerprints = new WeakMap<Credentials, string>();

/**
 * A hash of the TLS material of credentials (CA, client certificate and key, server name,
 * verification): equal hashes may share connections, different ones never do. Computed once per
 * credentials object (credentials are not changed in place: new material is a new object).
 *
 * @example
 * ```ts
 * const same = tlsFingerprint(a) === tlsFingerprint(b);
 * ```
 * @param c - the credentials.
 * @returns a hex digest.
 */
export function tlsFingerprint(c: Credentials): string {
  const known = fingerprints.get(c);
  if (known !== undefined) return known;
  const h = createHash('sha256');
  for (const part of [c.ca, c.cert, c.key, c.servername, String(c.rejectUnauthorized)]) {
    h.update(part ?? '-');
    h.update('\0');
  }
  const fp = h.digest('hex');
  fingerprints.set(c, fp);
  return fp;
}

/**
 * The HTTP/1.1 carrier of one cluster's transport.
 *
 * @example
 * ```ts
 * const carrier = http1Carrier(clusterName('east'), new URL('https://127.0.0.1:6443'));
 * ```
 * @param cluster - the cluster (named in errors).
 * @param base - the server URL.
 * @returns the carrier.
 */
export function http1Carrier(cluster: ClusterName, base: URL): Carrier {
  const secure = base.protocol === 'https:';
  const request = secure ? httpsRequest : httpRequest;
  let agent: { fp: string; agent: http.Agent } | undefined;

  const agentFor = (c: Credentials): http.Agent => {
    const fp = tlsFingerprint(c);
    if (agent?.fp === fp) return agent.agent;
    agent?.agent.destroy();
    const a = secure
      ? new HttpsAgent({
          keepAlive: true,
          rejectUnauthorized: c.rejectUnauthorized,
          ...(c.ca === undefined ? {} : { ca: c.ca }),
          ...(c.cert === undefined ? {} : { cert: c.cert }),
          ...(c.key === undefined ? {} : { key: c.key }),
          ...(c.servername === undefined ? {} : { servername: c.servername }),
        })
      : new HttpAgent({ keepAlive: true });
    agent = { fp, agent: a };
    return a;
  };

  return {
    send(p: PreparedRequest, tls: Credentials, consumer: ExchangeEvents): void {
      const events = settleOnce(consumer);
      // Aborted before it was sent (a caller's signal): nothing goes out.
      if (p.signal?.aborted === true) {
        events.fail(abortedRequest(cluster, p.describe));
        return;
      }
      const r = request({
        protocol: base.protocol,
        hostname: base.hostname.replace(/^\[|\]$/g, ''),
        port: base.port === '' ? undefined : Number(base.port),
        method: p.method,
        path: p.path,
        headers: p.headers,
        agent: agentFor(tls),
      });
      // The error that ended the request on purpose, reported instead of the destroy's own.
      let ended: KubeError | undefined;
      const end = (e: KubeError): void => {
        ended ??= e;
        r.destroy(new Error(e.message));
      };
      if (p.fence !== undefined) {
        const fence = p.fence;
        // An agent may hand out the socket a tick later: the headers are flushed right after
        // 'socket', so a second look here closes that gap.
        r.once('socket', () => {
          const fenced = fence();
          if (fenced !== undefined) end(fenced);
        });
      }
      armHeadersDeadline(r, p.bounds, (stage, ms) => {
        end(headersTimeout(cluster, p.describe, ms, stage));
      });
      // Not the request's own \`signal\` option: aborting after the response ended would destroy a
      // socket already back in the agent's pool, with an AbortError nobody listens to (an uncaught
      // exception when a watch ends with an ERROR event and is torn down in the same turn).
      const signal = p.signal;
      if (signal !== undefined) {
        const onAbort = (): void => {
          if (events.settled()) return;
          events.fail(abortedRequest(cluster, p.describe));
          r.destroy();
        };
        signal.addEventListener('abort', onAbort, { once: true });
        r.once('close', () => {
          signal.removeEventListener('abort', onAbort);
        });
      }
      // Signs of life. Before the headers their deadline decides; after a busy loop, what came meanwhile is read first (io-timeout.ts).
      let heard = 0;
      if (p.idleMs !== undefined) {
        // After the headers, the body: a server that stops sending mid-body is cut after this long idle.
        r.setTimeout(p.idleMs, () => {
          const before = heard;
          afterPendingIo(() => {
            if (heard > 0 && heard === before && !r.destroyed) r.destroy(Object.assign(new Error('request timed out'), { code: 'ETIMEDOUT' }));
          });
        });
      }
      r.on('error', (err) => {
        events.fail(ended ?? fromTransport(cluster, err, p.describe));
      });
      r.on('response', (res) => {
        heard += 1;
        const retryAfter = res.headers['retry-after'];
        events.response(res.statusCode ?? 0, { contentType: res.headers['content-type'], retryAfter: typeof retryAfter === 'string' ? retryAfter : undefined });
        res.on('data', (c: Buffer) => {
          heard += 1;
          events.data(c);
        });
        res.on('error', (err) => {
          events.fail(fromTransport(cluster, err, p.describe));
        });
        res.on('close', () => {
          // 'close' without a complete body: the connection was cut (server killed, proxy reset).
          if (!res.complete) events.fail(kubeError('Transient', cluster, 'the connection was cut before the stream ended', { request: p.describe }));
        });
        res.on('end', () => {
          events.end();
        });
      });
      r.end(p.body);
    },
    close(): void {
      agent?.agent.destroy();
      agent = undefined;
    },
  };
}
