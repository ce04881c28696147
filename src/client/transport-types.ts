// The shapes of the per-cluster HTTP transport: a request, a buffered response, the options, and
// the transport itself (transport.ts builds it).
import type { Observable } from 'rxjs';
import type { ClusterName } from '../core/cluster.js';
import type { KubeError } from '../core/errors.js';
import type { Verb } from '../core/verb.js';
import type { Either } from '../internal/fp.js';
import type { RequestRecorder } from './request-count.js';

/**
 * One HTTP request, relative to the cluster's server URL.
 *
 * @example
 * ```ts
 * const req: HttpRequest = { method: 'GET', path: '/api/v1/namespaces' };
 * ```
 */
export interface HttpRequest {
  /** HTTP verb; a PATCH needs the `contentType` of its patch format. */
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Path and query, appended to the server URL's own path. */
  readonly path: string;
  /** Request body, already serialized; absent sends none. */
  readonly body?: string;
  /** Content-Type of `body`; default `application/json`, unused without a body. */
  readonly contentType?: string;
  /**
   * The Accept header; default `application/json`. Content negotiation that still answers JSON, e.g.
   * aggregated discovery: `'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json'`.
   */
  readonly accept?: string;
  /**
   * This request's bound on the wait for the response headers (connect and TLS handshake included,
   * those also within the transport's `headersTimeoutMs`) and, for a buffered request, the socket
   * idle timeout of its body. Default: see {@link TransportOptions}. A stream's body has no idle
   * timeout (the watch layer runs its own inactivity timer).
   */
  readonly timeoutMs?: number;
  /** Aborts the request when signalled; the call then ends with a KubeError. */
  readonly signal?: AbortSignal;
  /**
   * Asked synchronously right before the request is handed to a socket (and again when it gets
   * one): an error returned here is the call's result and not one byte is sent. Leader election
   * and sharding use it so that a replica that lost its lease never writes; see `WriteOptions.fence`.
   */
  readonly fence?: () => KubeError | undefined;
  /**
   * The verb the request is counted under (`rxfleet_requests_total`); default from the method and
   * content type (`verbOfRequest`): the client's `list` says `list`, a raw GET counts as `get`.
   */
  readonly verb?: Verb;
}

/**
 * A buffered response with its JSON body parsed.
 *
 * @example
 * ```ts
 * const res: HttpResponse = { status: 200, body: { kind: 'ConfigMap' } };
 * ```
 */
export interface HttpResponse {
  /** HTTP status code, always 2xx (other codes come back as KubeErrors). */
  readonly status: number;
  /** The body parsed as JSON when it looks like JSON, else the raw text; `undefined` when empty. */
  readonly body: unknown;
}

/**
 * Settings of a transport.
 *
 * @example
 * ```ts
 * const t = createTransport(clusterName('east'), 'https://127.0.0.1:6443', auth, { userAgent: 'my-controller' });
 * ```
 */
export interface TransportOptions {
  /** User-Agent header of every request; default `rxfleet`. */
  readonly userAgent?: string;
  /**
   * Socket idle timeout of buffered requests, in ms, when the request sets none; default 60 000. It
   * is also how long a write (POST, PUT, PATCH, DELETE) waits for its response headers, since
   * admission webhooks may hold it. Streams have none.
   */
  readonly timeoutMs?: number;
  /**
   * How long a request may wait for its response headers, in ms, when it sets no `timeoutMs`: the
   * TCP connect, the TLS handshake and the server's answer for reads and watch streams; the connect
   * and handshake alone for writes. A server or proxy that accepts the connection and never
   * answers then fails the request with a retryable KubeError: `ClusterUnreachable` before the
   * connection was up, `Timeout` after it, the message saying `no response headers within N ms`.
   * Default 10 000.
   */
  readonly headersTimeoutMs?: number;
  /**
   * Speak HTTP/2 to https servers, on sessions shared by every cluster with the same server origin
   * and TLS identity (kcp workspaces, namespaces of one cluster): one TCP+TLS connection carries
   * their watches and requests, up to 100 streams per session (more sessions open past that), checked
   * with a PING every 30 s that must be answered within 15 s. A server that does not offer HTTP/2
   * gets HTTP/1.1. `false`: HTTP/1.1 keep-alive connections of this cluster's own. Default `true`.
   */
  readonly http2?: boolean;
  /**
   * Where this transport reports each request it sends: cluster, verb and result (see
   * {@link RequestRecorder}). Default: the recorder in effect where the transport is made, else
   * where each request is made (`countingRequests`; `run` puts its metrics' recorder in effect, so
   * what a run sends is counted in its `rxfleet_requests_total`). A closed transport counts nothing
   * more, so a departed cluster's series, once removed, do not come back.
   */
  readonly requests?: RequestRecorder;
  /**
   * Its request series live only while it is open: closing it removes them (its recorder's
   * `forget`, for the recorder it was made with or in effect where it was made). For a client named
   * by something that comes and goes and is no fleet cluster's name, such as a kcp endpoint's
   * wildcard URL (the endpoint leaves its slice, another shard's URL comes), whose series would
   * otherwise stay in /metrics for the life of the process. A fleet cluster's series go when it
   * leaves the fleet, whatever this says. Default `false`.
   */
  readonly countedWhileOpen?: boolean;
}

/**
 * The transport of one cluster.
 *
 * @example
 * ```ts
 * const res = await transport.request({ method: 'GET', path: '/version' });
 * ```
 */
export interface Transport {
  /** The fleet cluster this transport talks to (named in its errors). */
  readonly cluster: ClusterName;
  /** The server URL, without credentials. */
  readonly server: string;
  /** One request, its body read whole; HTTP errors are `Left` KubeErrors, never thrown. */
  request(req: HttpRequest): Promise<Either<KubeError, HttpResponse>>;
  /**
   * A cold stream of the lines of a response body. Errors (as a {@link KubeError} value) when the
   * server refuses the request, the connection fails, no response headers arrive within
   * `headersTimeoutMs`, or the body ends in the middle of a line;
   * completes when the server ends the body cleanly; unsubscribing aborts the request.
   */
  lines(req: HttpRequest): Observable<string>;
  /** Closes its connections (or leaves its shared HTTP/2 sessions, closing those no one else uses). */
  close(): void;
}
