// One request/response exchange with a server, whatever carries it: an HTTP/1.1 connection of the
// cluster's own (http1-exchange.ts) or a stream of a shared HTTP/2 session (h2-exchange.ts). The
// transport (transport.ts) prepares the request (credentials, headers, bounds) and reads the answer
// through these events, so buffering, line splitting and status handling exist once.
import type { ClusterName } from '../core/cluster.js';
import type { KubeError } from '../core/errors.js';
import { fromTransport } from '../core/errors.js';
import type { Credentials } from './auth.js';
import type { HeadersBounds } from './headers-deadline.js';
import type { HttpRequest } from './transport-types.js';

/**
 * A request ready to send: the full path, every header (credentials included), the bounds.
 *
 * @example
 * ```ts
 * const p: PreparedRequest = { method: 'GET', path: '/api/v1/namespaces', headers: { Accept: 'application/json' }, bounds: { connectMs: 10_000, headersMs: 10_000 }, describe: 'GET /api/v1/namespaces' };
 * ```
 */
export interface PreparedRequest {
  /** The HTTP verb. */
  readonly method: HttpRequest['method'];
  /** Path and query, the server URL's own path prefix included. */
  readonly path: string;
  /** Every request header, Content-Type and Content-Length included when there is a body. */
  readonly headers: Readonly<Record<string, string>>;
  /** The serialized body, if any. */
  readonly body?: string;
  /** When the connection must be up and the response headers back. */
  readonly bounds: HeadersBounds;
  /** Idle timeout of the response body (buffered requests); absent for streams. */
  readonly idleMs?: number;
  /** Asked again at the last moment before the request is handed to the connection. */
  readonly fence?: () => KubeError | undefined;
  /** Aborts the exchange. */
  readonly signal?: AbortSignal;
  /** `METHOD path` without the query, for errors. */
  readonly describe: string;
}

/**
 * What an exchange reports, in this order: `response` once, then `data` any number of times, then
 * `end`; or `fail` at any point, after which nothing more comes.
 *
 * @example
 * ```ts
 * const events: ExchangeEvents = { response: () => undefined, data: () => undefined, end: () => undefined, fail: (e: KubeError) => console.error(e.message) };
 * ```
 */
export interface ExchangeEvents {
  /** The response headers arrived. */
  response(status: number, headers: ResponseHeaders): void;
  /** A chunk of the body. */
  data(chunk: Buffer): void;
  /** The body ended cleanly. */
  end(): void;
  /** The exchange failed: no connection, a deadline, a fence, a cut or reset stream, an abort. */
  fail(error: KubeError): void;
}

/**
 * The response headers a transport reads.
 *
 * @example
 * ```ts
 * const h: ResponseHeaders = { contentType: 'application/json', retryAfter: '5' };
 * ```
 */
export interface ResponseHeaders {
  /** Content-Type. */
  readonly contentType?: string | undefined;
  /** Retry-After, as sent. */
  readonly retryAfter?: string | undefined;
}

/**
 * What carries the requests of one transport to its server: HTTP/1.1 connections of its own, or
 * streams of HTTP/2 sessions shared with other clusters of the same server and TLS identity.
 *
 * @example
 * ```ts
 * carrier.send(prepared, await auth.credentials(), events);
 * carrier.close(); // when the cluster's client is closed
 * ```
 */
export interface Carrier {
  /** Sends one request with the TLS material of `tls` (its headers are already in `request`). */
  send(request: PreparedRequest, tls: Credentials, events: ExchangeEvents): void;
  /** Releases the connections (or this transport's share of the sessions). */
  close(): void;
}

/**
 * Wraps events so that only the first `fail` or `end` is passed on, and nothing after it.
 *
 * @example
 * ```ts
 * const safe = settleOnce(events); safe.fail(e1); safe.fail(e2); // only e1 reaches events
 * ```
 * @param events - the consumer's events.
 * @returns the guarded events.
 */
export function settleOnce(events: ExchangeEvents): ExchangeEvents & { readonly settled: () => boolean } {
  let settled = false;
  return {
    settled: () => settled,
    response: (status, headers) => {
      if (!settled) events.response(status, headers);
    },
    data: (chunk) => {
      if (!settled) events.data(chunk);
    },
    end: () => {
      if (settled) return;
      settled = true;
      events.end();
    },
    fail: (error) => {
      if (settled) return;
      settled = true;
      events.fail(error);
    },
  };
}

/**
 * The error of a request its caller aborted (its `signal`), as both carriers report it.
 *
 * @example
 * ```ts
 * events.fail(abortedRequest(clusterName('east'), 'GET /api/v1/pods'));
 * ```
 * @param cluster - the cluster.
 * @param request - `METHOD path`.
 * @returns the error value.
 */
export function abortedRequest(cluster: ClusterName, request: string): KubeError {
  return fromTransport(cluster, Object.assign(new Error('The operation was aborted'), { code: 'ABORT_ERR' }), request);
}
