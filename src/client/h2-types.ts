// What the shared HTTP/2 sessions (h2-pool.ts) hand out, and their limits: a session's share for one
// request, one transport's hold on the sessions of its server and TLS identity.
import type http2 from 'node:http2';

/** The code of the error a session is destroyed with when its handshake chose no h2. */
export const noHttp2Code = 'ERR_RXFLEET_NO_HTTP2';

/**
 * The limits of shared HTTP/2 sessions.
 *
 * @example
 * ```ts
 * const settings: H2Settings = { maxStreamsPerSession: 100, pingIntervalMs: 30_000, pingTimeoutMs: 15_000, idleMs: 90_000 };
 * ```
 */
export interface H2Settings {
  /** Streams one session carries at most (fewer if the server says so); past it a new session opens. */
  readonly maxStreamsPerSession: number;
  /** How often a session with streams is checked with a PING (client-go: 30 s). */
  readonly pingIntervalMs: number;
  /** How long a PING may go unanswered before the session is destroyed (client-go: 15 s). */
  readonly pingTimeoutMs: number;
  /** How long a session without streams is kept for reuse. */
  readonly idleMs: number;
}

/**
 * The defaults: 100 streams per session, PING every 30 s answered within 15 s, idle for 90 s.
 *
 * @example
 * ```ts
 * const settings: H2Settings = { ...defaultH2Settings, maxStreamsPerSession: 250 };
 * ```
 */
export const defaultH2Settings: H2Settings = Object.freeze({ maxStreamsPerSession: 100, pingIntervalMs: 30_000, pingTimeoutMs: 15_000, idleMs: 90_000 });

/**
 * One session's share given to one request: the session, and `done()` once its stream closed.
 *
 * @example
 * ```ts
 * const slot = lease.take(); if (slot !== 'http1') { const s = slot.session.request({ ':path': '/version' }); s.on('close', slot.done); }
 * ```
 */
export interface H2Slot {
  /** The session (possibly still connecting). */
  readonly session: http2.ClientHttp2Session;
  /** Gives the stream's place back; call once. */
  readonly done: () => void;
  /** Whether the server has spoken on the session yet (its SETTINGS frame). */
  readonly heard: () => boolean;
  /**
   * Says a stream of this session got no answer in time: the session is PINGed at once and gets
   * no new stream until the PING is answered (a dead one is destroyed when it is not), so retries
   * go to a fresh connection instead of the same dead one.
   */
  readonly suspect: () => void;
  /** How far the session's connection got: TCP connecting, TLS handshake, or up. */
  readonly stage: () => 'connect' | 'tls' | 'up';
  /**
   * Whether the TLS handshake chose a protocol other than h2 (an HTTP/1.1-only server, or one that
   * offers no ALPN at all, such as a plain TLS-terminating proxy): the session was destroyed before
   * anything was sent on it, and the request goes over HTTP/1.1 instead.
   */
  readonly http1: () => boolean;
}

/**
 * One transport's hold on the sessions of its (origin, TLS identity).
 *
 * @example
 * ```ts
 * const lease = sharedH2Sessions.acquire('https://127.0.0.1:6443', creds, tlsFingerprint(creds));
 * lease.release(); // when the transport closes or its TLS material changes
 * ```
 */
export interface H2Lease {
  /** A session with room for one more stream, or `'http1'` once the server was found not to speak HTTP/2. */
  take(): H2Slot | 'http1';
  /** Marks the server as not speaking HTTP/2, for every transport of this key (nothing was sent). */
  noHttp2(): void;
  /** Ends this transport's hold; the last one closes the sessions. */
  release(): void;
}
