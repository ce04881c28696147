// HTTP/2 sessions shared by every cluster whose transport has the same server origin and TLS
// identity (CA, client certificate and key, server name, verification), as client-go shares one
// connection per TLS configuration: kcp workspaces on one server, namespaces of one cluster, many
// clusters behind one gateway. Credentials that differ per cluster travel in each request's headers,
// and a client certificate is part of the identity, so no cluster ever sends another's credentials.
// Bounded: streams per session (a new session past the cap), sessions closed when idle or when
// their last transport closes, and a PING check so a dead connection fails its streams in seconds.
import type { ClientHttp2Session } from 'node:http2';
import type { TLSSocket } from 'node:tls';
import type { Credentials } from './auth.js';
import type { H2Lease, H2Settings, H2Slot } from './h2-types.js';
import { defaultH2Settings, noHttp2Code } from './h2-types.js';


// Taken with getBuiltinModule, not `import`, as in http1-carrier.ts: an ESM import builds the
// module's namespace by reading every export, and some are getters that load more of Node for
// nothing here (node:tls's `rootCertificates` parses the bundled CA list; node:util's and
// node:crypto's load their parseArgs, diff and webcrypto modules): 1.8 MiB of set-up RSS together.
const http2 = process.getBuiltinModule('node:http2');
const tls = process.getBuiltinModule('node:tls');
interface Live {
  readonly session: ClientHttp2Session;
  readonly socket: TLSSocket;
  streams: number;
  heard: boolean;
  pinging: boolean;
  /** A stream found no answer in time: no new stream goes here until the PING answers. */
  suspected: boolean;
  /** The handshake chose no h2 (ALPN): destroyed before its preface went out. */
  http1: boolean;
  idleSince: number;
  timer: NodeJS.Timeout;
}

interface Entry {
  users: number;
  http1: boolean;
  readonly sessions: Set<Live>;
}

/**
 * A pool of shared HTTP/2 sessions.
 *
 * @example
 * ```ts
 * const pool = new H2Pool({ ...defaultH2Settings, pingIntervalMs: 5_000 });
 * ```
 */
export class H2Pool {
  private readonly entries = new Map<string, Entry>();
  private readonly settings: H2Settings;

  /** @param settings - the limits. */
  constructor(settings: H2Settings = defaultH2Settings) {
    this.settings = settings;
  }

  /** Open sessions, for tests and metrics. @example `pool.sessionCount` @returns the count. */
  get sessionCount(): number {
    let n = 0;
    for (const e of this.entries.values()) n += e.sessions.size;
    return n;
  }

  /**
   * Joins the sessions of `origin` + `fingerprint` (the TLS identity of `tls`).
   *
   * @example
   * ```ts
   * const lease = pool.acquire(origin, creds, tlsFingerprint(creds));
   * ```
   * @param origin - `https://host:port`.
   * @param tls - the TLS material to connect with.
   * @param fingerprint - its {@link tlsFingerprint}.
   * @returns the lease.
   */
  acquire(origin: string, tls: Credentials, fingerprint: string): H2Lease {
    const key = `${origin}\0${fingerprint}`;
    let entry = this.entries.get(key);
    if (entry === undefined) {
      entry = { users: 0, http1: false, sessions: new Set() };
      this.entries.set(key, entry);
    }
    const e = entry;
    e.users += 1;
    let released = false;
    return {
      take: () => (e.http1 ? 'http1' : this.slot(e, origin, tls)),
      noHttp2: () => {
        e.http1 = true;
      },
      release: () => {
        if (released) return;
        released = true;
        e.users -= 1;
        if (e.users > 0) return;
        this.entries.delete(key);
        for (const live of e.sessions) this.end(e, live, true);
      },
    };
  }

  private slot(e: Entry, origin: string, tls: Credentials): H2Slot {
    let live: Live | undefined;
    for (const s of e.sessions) {
      const cap = Math.min(this.settings.maxStreamsPerSession, s.session.remoteSettings.maxConcurrentStreams ?? Infinity);
      // A routine liveness PING in flight does not stop new streams (as in client-go); a suspicion does.
      if (!s.session.closed && !s.session.destroyed && !s.suspected && s.streams < cap) {
        live = s;
        break;
      }
    }
    live ??= this.open(e, origin, tls);
    const l = live;
    // A session with streams keeps the process alive, as an HTTP/1.1 socket with a request does;
    // an idle one does not.
    if (l.streams === 0) l.session.ref();
    l.streams += 1;
    let given = false;
    return {
      session: l.session,
      heard: () => l.heard,
      suspect: () => {
        l.suspected = true;
        this.ping(l);
      },
      stage: () => (l.socket.connecting ? 'connect' : l.session.connecting ? 'tls' : 'up'),
      http1: () => l.http1,
      done: () => {
        if (given) return;
        given = true;
        l.streams -= 1;
        if (l.streams > 0) return;
        // A session whose server never spoke (no SETTINGS) is kept for no one: its connection goes
        // with its last stream, as an HTTP/1.1 socket of a request that got no answer does.
        if (!l.heard) {
          this.end(e, l, true);
          return;
        }
        l.idleSince = Date.now();
        if (!l.session.destroyed) l.session.unref();
      },
    };
  }

  private open(e: Entry, origin: string, c: Credentials): Live {
    const url = new URL(origin);
    // The socket is made here, not by http2.connect, so that its stages can be watched without
    // touching the session's socket proxy (which throws once the session lets go of it).
    const socket = tls.connect({
      host: url.hostname.replace(/^\[|\]$/g, ''),
      port: url.port === '' ? 443 : Number(url.port),
      // Both, as Go's transport offers them: a server without HTTP/2 then picks http/1.1 rather
      // than failing the handshake, and one that offers no ALPN at all picks nothing.
      ALPNProtocols: ['h2', 'http/1.1'],
      rejectUnauthorized: c.rejectUnauthorized,
      ...(c.ca === undefined ? {} : { ca: c.ca }),
      ...(c.cert === undefined ? {} : { cert: c.cert }),
      ...(c.key === undefined ? {} : { key: c.key }),
      ...(c.servername === undefined ? {} : { servername: c.servername }),
    });
    // Node's session sends the HTTP/2 preface whatever the handshake chose. This listener comes
    // before the session's own, so a server that chose no h2 is marked HTTP/1.1 (for every
    // transport of this key) and its session destroyed before the preface goes out; the requests
    // waiting for it see `http1()` and go over HTTP/1.1.
    socket.once('secureConnect', () => {
      if (socket.alpnProtocol === 'h2') return;
      live.http1 = true;
      e.http1 = true;
      const chose = socket.alpnProtocol === false ? 'no application protocol' : `"${socket.alpnProtocol}"`;
      session.destroy(Object.assign(new Error(`the TLS handshake with ${origin} chose ${chose} (ALPN), not h2`), { code: noHttp2Code }));
    });
    const session = http2.connect(origin, { createConnection: () => socket, settings: { enablePush: false } });
    const live: Live = { session, socket, streams: 0, heard: false, pinging: false, suspected: false, http1: false, idleSince: Date.now(), timer: setInterval(() => {
        this.check(e, live);
      }, this.settings.pingIntervalMs) };
    live.timer.unref();
    e.sessions.add(live);
    session.once('remoteSettings', () => {
      live.heard = true;
    });
    // Each request waiting for the connection listens for its outcome; the stream cap bounds them.
    session.setMaxListeners(this.settings.maxStreamsPerSession + 10);
    // Errors reach the streams (each request reports its own); the session only leaves the pool.
    session.on('error', () => undefined);
    session.on('close', () => {
      this.end(e, live, false);
    });
    // A server going away (restart, connection age limit) finishes what it has, and nothing new.
    session.on('goaway', () => {
      e.sessions.delete(live);
      session.close();
    });
    return live;
  }

  private check(e: Entry, live: Live): void {
    const { session } = live;
    if (session.connecting || session.destroyed) return;
    if (live.streams === 0) {
      if (Date.now() - live.idleSince >= this.settings.idleMs) this.end(e, live, false);
      return;
    }
    this.ping(live);
  }

  private ping(live: Live): void {
    const { session } = live;
    if (live.pinging || session.connecting || session.destroyed) return;
    live.pinging = true;
    const deadline = setTimeout(() => {
      session.destroy(Object.assign(new Error(`HTTP/2 PING not answered within ${this.settings.pingTimeoutMs} ms`), { code: 'ETIMEDOUT' }));
    }, this.settings.pingTimeoutMs);
    deadline.unref();
    session.ping((err) => {
      clearTimeout(deadline);
      live.pinging = false;
      live.suspected = false;
      if (err !== null && !session.destroyed) session.destroy(err);
    });
  }

  private end(e: Entry, live: Live, destroy: boolean): void {
    clearInterval(live.timer);
    e.sessions.delete(live);
    if (destroy) live.session.destroy();
    else if (!live.session.closed) live.session.close();
  }
}

/**
 * The process's pool: every transport with `http2` on shares it.
 *
 * @example
 * ```ts
 * sharedH2Sessions.sessionCount; // sessions open now
 * ```
 */
export const sharedH2Sessions = new H2Pool();
