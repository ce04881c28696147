// HTTP/2 for one cluster's transport: each request is a stream of a session shared with the other
// clusters of the same server and TLS identity (h2-pool.ts). The same bounds as HTTP/1.1: the
// session must be up within `connectMs` and the response headers back within `headersMs`; a fence
// is asked right before the stream's headers are handed to the session; a server that does not
// speak HTTP/2 sends this transport (and every other of the key) to HTTP/1.1, with nothing sent.
import type { ClientHttp2Stream, OutgoingHttpHeaders } from 'node:http2';
import type { ClusterName } from '../core/cluster.js';
import type { KubeError } from '../core/errors.js';
import { fromTransport, kubeError } from '../core/errors.js';
import type { Credentials } from './auth.js';
import type { Carrier, ExchangeEvents, PreparedRequest } from './exchange.js';
import { abortedRequest, settleOnce } from './exchange.js';
import type { H2Pool } from './h2-pool.js';
import type { H2Lease, H2Slot } from './h2-types.js';
import { noHttp2Code } from './h2-types.js';
import { headersTimeout } from './headers-deadline.js';
import { afterPendingIo, ioTimeout } from './io-timeout.js';
import { tlsFingerprint } from './http1-carrier.js';

// From getBuiltinModule, not `import`: see h2-pool.ts.
const { NGHTTP2_CANCEL, NGHTTP2_NO_ERROR } = process.getBuiltinModule('node:http2').constants;
// What a TLS server that does not offer h2 answers (ALPN), Node's word for a non-h2 peer, or the
// pool's when the handshake chose another protocol or none.
const noHttp2 = new RegExp(`NO_APPLICATION_PROTOCOL|ERR_HTTP2_ERROR|${noHttp2Code}`);

function errorCode(err: unknown): string {
  return typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'string' ? err.code : '';
}

/**
 * The HTTP/2 carrier of one cluster's transport, with `fallback` for servers without HTTP/2.
 *
 * @example
 * ```ts
 * const base = new URL('https://127.0.0.1:6443');
 * const carrier = http2Carrier(clusterName('east'), base, sharedH2Sessions, http1Carrier(clusterName('east'), base));
 * ```
 * @param cluster - the cluster (named in errors).
 * @param base - the server URL (https).
 * @param pool - the shared sessions.
 * @param fallback - the HTTP/1.1 carrier used when the server does not speak HTTP/2.
 * @returns the carrier.
 */
export function http2Carrier(cluster: ClusterName, base: URL, pool: H2Pool, fallback: Carrier): Carrier {
  const origin = base.origin;
  let lease: { fp: string; lease: H2Lease } | undefined;

  const leaseFor = (tls: Credentials): H2Lease => {
    const fp = tlsFingerprint(tls);
    if (lease?.fp === fp) return lease.lease;
    lease?.lease.release();
    lease = { fp, lease: pool.acquire(origin, tls, fp) };
    return lease.lease;
  };

  const stream = (p: PreparedRequest, slot: H2Slot, events: ReturnType<typeof settleOnce>, startedAt: number): void => {
    const refused = p.fence?.();
    if (refused !== undefined) {
      slot.done();
      events.fail(refused);
      return;
    }
    const headers: OutgoingHttpHeaders = { ':method': p.method, ':path': p.path };
    for (const [k, v] of Object.entries(p.headers)) headers[k.toLowerCase()] = v;
    let s: ClientHttp2Stream;
    try {
      s = slot.session.request(headers, { endStream: p.body === undefined });
    } catch (err) {
      slot.done();
      events.fail(fromTransport(cluster, err, p.describe));
      return;
    }
    let ended: KubeError | undefined;
    const cancel = (e: KubeError): void => {
      ended ??= e;
      events.fail(e);
      if (!s.closed) s.close(NGHTTP2_CANCEL);
    };
    const left = Math.max(0, p.bounds.headersMs - (Date.now() - startedAt));
    // Decided once the headers that came while the loop was busy have been read (io-timeout.ts).
    const deadline = ioTimeout(() => {
      cancel(headersTimeout(cluster, p.describe, p.bounds.headersMs, 'headers'));
      // A server that never even sent its SETTINGS is not speaking to anyone on this session; one
      // that did is asked with a PING whether the connection still lives.
      if (!slot.heard()) slot.session.destroy();
      else slot.suspect();
    }, left);
    const onAbort = (): void => {
      cancel(abortedRequest(cluster, p.describe));
    };
    p.signal?.addEventListener('abort', onAbort, { once: true });
    // Any sign of life: an idle timeout that fires after a busy loop first reads what came meanwhile.
    // Before the response headers, their deadline decides (it is armed from the start, with its own words).
    let heard = 0;
    if (p.idleMs !== undefined) {
      s.setTimeout(p.idleMs, () => {
        const before = heard;
        afterPendingIo(() => {
          if (responded && heard === before && !s.closed) cancel(fromTransport(cluster, Object.assign(new Error('request timed out'), { code: 'ETIMEDOUT' }), p.describe));
        });
      });
    }
    let responded = false;
    s.on('response', (h) => {
      responded = true;
      heard += 1;
      deadline.clear();
      const retryAfter = h['retry-after'];
      const contentType = h['content-type'];
      events.response(h[':status'] ?? 0, { contentType: typeof contentType === 'string' ? contentType : undefined, retryAfter: typeof retryAfter === 'string' ? retryAfter : undefined });
    });
    s.on('data', (c: Buffer) => {
      heard += 1;
      events.data(c);
    });
    s.on('end', () => {
      // A stream can end without any response when its session goes down under it (the server
      // killed): that is a cut connection, retryable, not an answer.
      if (!responded) {
        events.fail(ended ?? kubeError('Transient', cluster, 'the connection was cut before the response headers', { request: p.describe }));
        return;
      }
      // Node ends a stream's readable side too when its session goes down under it (the connection
      // cut, no END_STREAM from the server), the stream cancelled: a cut, as over HTTP/1.1, not an end.
      // (rstCode is undefined while the stream is not closed, whatever @types/node says.)
      const rst = s.rstCode as number | undefined;
      if (rst !== undefined && rst !== NGHTTP2_NO_ERROR) {
        events.fail(ended ?? kubeError('Transient', cluster, 'the connection was cut before the stream ended', { request: p.describe }));
        return;
      }
      events.end();
    });
    s.on('error', (err) => {
      events.fail(ended ?? fromTransport(cluster, err, p.describe));
    });
    s.on('close', () => {
      deadline.clear();
      p.signal?.removeEventListener('abort', onAbort);
      slot.done();
      // Every stream closes, most after their end: the error is built only for one that did not
      // (building it scrubs its text, a few µs per request for nothing).
      if (events.settled()) return;
      // Closed before its end: reset by the server, or the session went down under it.
      const how = s.rstCode === NGHTTP2_NO_ERROR ? '' : ` (HTTP/2 RST_STREAM ${s.rstCode})`;
      events.fail(ended ?? kubeError('Transient', cluster, `the connection was cut before the stream ended${how}`, { request: p.describe }));
    });
    if (p.body !== undefined) s.end(p.body);
  };

  return {
    send(p: PreparedRequest, tls: Credentials, consumer: ExchangeEvents): void {
      // Aborted before it was sent (a caller's signal): nothing goes out, no stream is taken.
      if (p.signal?.aborted === true) {
        consumer.fail(abortedRequest(cluster, p.describe));
        return;
      }
      const l = leaseFor(tls);
      const slot = l.take();
      if (slot === 'http1') {
        fallback.send(p, tls, consumer);
        return;
      }
      const events = settleOnce(consumer);
      const startedAt = Date.now();
      const { session } = slot;
      if (!session.connecting) {
        stream(p, slot, events, startedAt);
        return;
      }
      // Connecting: the fence is asked once the session is up, right before the stream is opened.
      const cleanup = (): void => {
        clearTimeout(deadline);
        session.off('connect', onConnect);
        session.off('error', onError);
        session.off('close', onClose);
        p.signal?.removeEventListener('abort', onAbort);
      };
      const onConnect = (): void => {
        cleanup();
        // Node emits 'connect' even for a session the pool destroyed for choosing no h2.
        if (slot.http1()) {
          slot.done();
          l.noHttp2();
          fallback.send(p, tls, events);
          return;
        }
        stream(p, slot, events, startedAt);
      };
      const onError = (err: unknown): void => {
        cleanup();
        slot.done();
        if (slot.http1() || noHttp2.test(errorCode(err))) {
          l.noHttp2();
          fallback.send(p, tls, events);
          return;
        }
        events.fail(fromTransport(cluster, err, p.describe));
      };
      const onClose = (): void => {
        cleanup();
        slot.done();
        events.fail(kubeError('ClusterUnreachable', cluster, 'the HTTP/2 connection closed before it was up', { request: p.describe }));
      };
      const onAbort = (): void => {
        cleanup();
        slot.done();
        events.fail(abortedRequest(cluster, p.describe));
      };
      const connectMs = Math.min(p.bounds.connectMs, p.bounds.headersMs);
      const deadline = setTimeout(() => {
        cleanup();
        slot.done();
        events.fail(headersTimeout(cluster, p.describe, connectMs, slot.stage() === 'connect' ? 'connect' : 'tls'));
        // A session that cannot connect in time is no use to anyone: the next request opens another.
        session.destroy();
      }, connectMs);
      deadline.unref();
      session.once('connect', onConnect);
      session.once('error', onError);
      session.once('close', onClose);
      p.signal?.addEventListener('abort', onAbort, { once: true });
    },
    close(): void {
      lease?.lease.release();
      lease = undefined;
      fallback.close();
    },
  };
}
