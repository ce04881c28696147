// A plain TLS-terminating proxy in front of the real kube-apiserver, of the kind that offers no
// ALPN at all (the handshake chooses no application protocol): HTTP/2 cannot be spoken through it,
// so the client must speak HTTP/1.1, as client-go does, instead of sending the HTTP/2 preface and
// failing every request with a transient "Protocol error".
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import tls from 'node:tls';
import { firstValueFrom, take, toArray } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConfigMap } from '../../src/index.js';
import { configMaps } from '../../src/index.js';
import { E } from '../../src/fp/index.js';
import { sharedH2Sessions } from '../../src/client/h2-pool.js';
import { clusterOf, serverCaPem } from '../faults/faults-support.js';
import { sharedKubeApiserver } from '../support/context.js';

interface NoAlpnProxy {
  readonly url: string;
  readonly ca: Buffer;
  /** What each accepted connection's handshake chose: `false` is no protocol. */
  readonly chosen: (string | false | null)[];
  close(): Promise<void>;
}

/** A TLS server with no ALPN configured, piping every connection to kube-apiserver over its own TLS (HTTP/1.1). */
async function noAlpnProxy(): Promise<NoAlpnProxy> {
  const dir = mkdtempSync(join(tmpdir(), 'rxfleet-no-alpn-'));
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'), '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
  const key = readFileSync(join(dir, 'key.pem'));
  const ca = readFileSync(join(dir, 'cert.pem'));
  rmSync(dir, { recursive: true, force: true });
  const upstream = new URL(sharedKubeApiserver().baseUrl);
  const serverCa = serverCaPem();
  const chosen: (string | false | null)[] = [];
  const sockets = new Set<Socket>();
  const server = tls.createServer({ key, cert: ca }, (front) => {
    chosen.push(front.alpnProtocol);
    const back = tls.connect({ host: '127.0.0.1', port: Number(upstream.port), ca: serverCa, ALPNProtocols: ['http/1.1'] });
    for (const s of [front, back]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => { front.destroy(); back.destroy(); });
    }
    front.pipe(back).pipe(front);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `https://127.0.0.1:${port}`,
    ca,
    chosen,
    close: () => new Promise((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => { resolve(); });
    }),
  };
}

/** The shared server's admin (token) kubeconfig, pointed at `url` and trusting `ca`. */
function kubeconfigThrough(url: string, ca: Buffer): string {
  const doc = JSON.parse(sharedKubeApiserver().kubeconfigYaml('admin')) as { clusters: { cluster: Record<string, unknown> }[] };
  for (const c of doc.clusters) {
    c.cluster.server = url;
    delete c.cluster['certificate-authority'];
    c.cluster['certificate-authority-data'] = ca.toString('base64');
  }
  return JSON.stringify(doc);
}

describe('a TLS-terminating proxy that offers no ALPN', () => {
  let proxy: NoAlpnProxy;
  let namespace: string;
  beforeAll(async () => {
    proxy = await noAlpnProxy();
    namespace = await sharedKubeApiserver().createNamespace('no-alpn');
  });
  afterAll(async () => {
    await proxy.close();
  });

  it('is spoken to in HTTP/1.1 with the default (HTTP/2) client: reads, writes and watches succeed, and no session stays', async () => {
    const sessionsBefore = sharedH2Sessions.sessionCount;
    const cluster = clusterOf('behind-no-alpn', kubeconfigThrough(proxy.url, proxy.ca));
    try {
      // Two requests at once while the first connection is still being made, then more.
      const [a, b] = await Promise.all([cluster.client.list(configMaps, { namespace }), cluster.client.list(configMaps, { namespace })]);
      for (const r of [a, b]) expect(E.isRight(r) ? 'listed' : r.left.message).toBe('listed');

      const applied = await cluster.client.apply(configMaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'through-proxy', namespace }, data: { a: '1' } }, { fieldManager: 'no-alpn-test' });
      expect(E.isRight(applied) ? applied.right.data : applied.left.message).toEqual({ a: '1' });

      const lines = firstValueFrom(cluster.client.watch(configMaps, { namespace, resourceVersion: '0', timeoutSeconds: 30 }).pipe(take(1), toArray()));
      const line = (await lines)[0] ?? '';
      const event = JSON.parse(line) as { type: string; object: ConfigMap };
      expect([event.type, event.object.metadata.name]).toEqual(['ADDED', 'through-proxy']);

      // The handshake really chose nothing, and no HTTP/2 session was kept for this server.
      expect(proxy.chosen.length).toBeGreaterThan(0);
      expect(new Set(proxy.chosen)).toEqual(new Set([false]));
      expect(sharedH2Sessions.sessionCount).toBe(sessionsBefore);
    } finally {
      cluster.client.close();
    }
  });
});
