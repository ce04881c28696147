// What the TLS handshake chose decides the protocol: a local HTTP/1.1 server behind TLS that offers
// no ALPN (the handshake chooses nothing), and one that offers only http/1.1, both get HTTP/1.1
// from the default (HTTP/2) transport, and never see the HTTP/2 preface.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTransport } from '../../src/client/index.js';
import { clusterName } from '../../src/index.js';
import { E } from '../../src/fp/index.js';

let key: Buffer;
let cert: Buffer;
beforeAll(() => {
  const dir = mkdtempSync(join(tmpdir(), 'rxfleet-alpn-'));
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'), '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
  key = readFileSync(join(dir, 'key.pem'));
  cert = readFileSync(join(dir, 'cert.pem'));
  rmSync(dir, { recursive: true, force: true });
});

interface Served {
  readonly port: number;
  /** What each request's HTTP version was, and each connection's handshake chose. */
  readonly versions: string[];
  readonly chosen: (string | false | null)[];
  /** Bytes a connection began with that were not HTTP/1.1 (the HTTP/2 preface). */
  readonly prefaces: number;
  close(): Promise<void>;
}

/** An HTTP/1.1 server behind a TLS server with `alpn` protocols (none: no ALPN at all). */
async function serve(alpn: readonly string[] | undefined): Promise<Served> {
  const versions: string[] = [];
  const chosen: (string | false | null)[] = [];
  let prefaces = 0;
  const http = createServer((req, res) => {
    versions.push(req.httpVersion);
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ major: '1', minor: '36' }));
  });
  http.on('clientError', (_err, socket) => {
    prefaces += 1;
    socket.destroy();
  });
  const server = tls.createServer({ key, cert, ...(alpn === undefined ? {} : { ALPNProtocols: [...alpn] }) }, (socket) => {
    chosen.push(socket.alpnProtocol);
    http.emit('connection', socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    versions,
    chosen,
    get prefaces() {
      return prefaces;
    },
    close: () => new Promise((resolve) => {
      http.closeAllConnections();
      server.close(() => { resolve(); });
    }),
  };
}

describe('the transport reads the protocol the TLS handshake chose', () => {
  const servers: Served[] = [];
  afterAll(async () => {
    for (const s of servers) await s.close();
  });

  for (const [what, alpn, expected] of [
    ['offers no ALPN at all', undefined, false],
    ['offers only http/1.1', ['http/1.1'], 'http/1.1'],
  ] as const) {
    it(`speaks HTTP/1.1 to a server that ${what}, for concurrent first requests and later ones`, async () => {
      const s = await serve(alpn);
      servers.push(s);
      const auth = { dynamic: false, invalidate: () => undefined, credentials: () => Promise.resolve({ headers: { Authorization: 'Bearer not-a-real-token' }, ca: cert, rejectUnauthorized: true }) };
      const t = createTransport(clusterName(`alpn-${String(expected)}`), `https://127.0.0.1:${s.port}`, auth);
      try {
        const first = await Promise.all([t.request({ method: 'GET', path: '/version' }), t.request({ method: 'GET', path: '/version' })]);
        const later = await t.request({ method: 'GET', path: '/version' });
        for (const r of [...first, later]) expect(E.isRight(r) ? r.right.body : r.left.message).toEqual({ major: '1', minor: '36' });
        expect(s.versions).toEqual(['1.1', '1.1', '1.1']);
        expect(s.prefaces).toBe(0);
        // The first connection is the HTTP/2 attempt (the second request waited for the same one);
        // the HTTP/1.1 carrier's own connections offer no ALPN.
        expect(s.chosen[0]).toBe(expected);
      } finally {
        t.close();
      }
    });
  }
});
