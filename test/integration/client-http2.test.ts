// HTTP/2 against the real kube-apiserver: clusters of one server and TLS identity share one
// connection, a session past its stream cap makes another, a dead connection is found by PING, and
// a server without HTTP/2 is spoken to in HTTP/1.1. Connections are counted by a TCP proxy in front
// of the server (one accepted connection = one TCP+TLS connection from this process).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { firstValueFrom, take, toArray } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';
import type { ClusterClientOptions } from '../../src/client/index.js';
import { authFromKubeconfig, createTransport, loadKubeconfig } from '../../src/client/index.js';
import type { KubeError } from '../../src/index.js';
import { clusterName, configMaps } from '../../src/index.js';
import { E } from '../../src/fp/index.js';
import { H2Pool, sharedH2Sessions } from '../../src/client/h2-pool.js';
import { http2Carrier } from '../../src/client/h2-carrier.js';
import { http1Carrier } from '../../src/client/http1-carrier.js';
import { clusterOf, kubeconfigVia } from '../faults/faults-support.js';
import { sharedKubeApiserver } from '../support/context.js';
import type { TcpProxy } from '../support/tcp-proxy.js';
import { startTcpProxy } from '../support/tcp-proxy.js';
import { eventually } from '../support/wait.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function proxy(): Promise<TcpProxy> {
  const p = await startTcpProxy(Number(new URL(sharedKubeApiserver().baseUrl).port));
  cleanups.push(() => p.close());
  return p;
}

// Two clusters over the same kubeconfig (same server, same TLS identity), each with a watch and a read.
async function twoClusters(p: TcpProxy, options: ClusterClientOptions): Promise<void> {
  const yaml = kubeconfigVia(`https://127.0.0.1:${p.port}`);
  for (const name of ['h2-a', 'h2-b']) {
    const c = clusterOf(name, yaml, options);
    cleanups.push(() => { c.client.close(); });
    const watching = c.client.watch(configMaps, { namespace: 'default', timeoutSeconds: 60 }).subscribe();
    cleanups.push(() => { watching.unsubscribe(); });
    const r = await c.client.list(configMaps, { namespace: 'default' });
    expect(E.isRight(r)).toBe(true);
  }
}

describe('HTTP/2 transport', () => {
  it('carries the watches and reads of two clusters with one TCP connection; HTTP/1.1 needs one per cluster and request in flight', async () => {
    const shared = await proxy();
    await twoClusters(shared, {});
    expect(shared.stats.accepted).toBe(1);
    expect(sharedH2Sessions.sessionCount).toBe(1);

    const own = await proxy();
    await twoClusters(own, { http2: false });
    // Each cluster's watch holds a connection and its list needs another.
    expect(own.stats.accepted).toBeGreaterThanOrEqual(2);
  });

  it('closes the shared session when the last cluster using it closes, and not before', async () => {
    const p = await proxy();
    const yaml = kubeconfigVia(`https://127.0.0.1:${p.port}`);
    const a = clusterOf('close-a', yaml);
    const b = clusterOf('close-b', yaml);
    expect(E.isRight(await a.client.list(configMaps, { namespace: 'default' }))).toBe(true);
    expect(E.isRight(await b.client.list(configMaps, { namespace: 'default' }))).toBe(true);
    const before = sharedH2Sessions.sessionCount;
    a.client.close();
    expect(E.isRight(await b.client.list(configMaps, { namespace: 'default' }))).toBe(true);
    expect(p.stats.accepted).toBe(1);
    b.client.close();
    expect(sharedH2Sessions.sessionCount).toBe(before - 1);
    await expect.poll(() => p.open(), { timeout: 5_000 }).toBe(0);
  });

  it('opens another session when one carries its stream cap, and fails the streams of a connection that stops answering PINGs', async () => {
    const p = await proxy();
    const name = clusterName('h2-ping');
    const loaded = loadKubeconfig(name, { yaml: kubeconfigVia(`https://127.0.0.1:${p.port}`) });
    if (E.isLeft(loaded)) throw new Error(loaded.left.message);
    const auth = authFromKubeconfig(loaded.right);
    const tls = await auth.credentials();
    const pool = new H2Pool({ maxStreamsPerSession: 2, pingIntervalMs: 300, pingTimeoutMs: 300, idleMs: 60_000 });
    const base = new URL(`https://127.0.0.1:${p.port}`);
    const carrier = http2Carrier(name, base, pool, http1Carrier(name, base));
    cleanups.push(() => { carrier.close(); });
    const failures: KubeError[] = [];
    const responses: number[] = [];
    for (let i = 0; i < 3; i++) {
      carrier.send(
        { method: 'GET', path: '/api/v1/namespaces/default/configmaps?watch=true&timeoutSeconds=60', headers: { ...tls.headers, accept: 'application/json' }, bounds: { connectMs: 5_000, headersMs: 5_000 }, describe: 'GET watch' },
        tls,
        { response: (s) => responses.push(s), data: () => undefined, end: () => undefined, fail: (e) => failures.push(e) },
      );
    }
    await expect.poll(() => responses.length, { timeout: 10_000 }).toBe(3);
    expect(pool.sessionCount).toBe(2);
    expect(p.stats.accepted).toBe(2);
    p.set({ type: 'blackhole' });
    await expect.poll(() => failures.length, { timeout: 10_000 }).toBe(3);
    for (const f of failures) expect(f.message).toMatch(/PING not answered within 300 ms|cut before the stream ended/);
    expect(failures.some((f) => f.message.includes('PING not answered'))).toBe(true);
    await expect.poll(() => pool.sessionCount, { timeout: 5_000 }).toBe(0);
  });

  it('keeps new streams on a session whose routine liveness PING is in flight (no second connection)', async () => {
    const p = await proxy();
    const name = clusterName('h2-routine-ping');
    const loaded = loadKubeconfig(name, { yaml: kubeconfigVia(`https://127.0.0.1:${p.port}`) });
    if (E.isLeft(loaded)) throw new Error(loaded.left.message);
    const tls = await authFromKubeconfig(loaded.right).credentials();
    // A PING every 200 ms that nothing answers for 10 s: from the first tick on, one is always in flight.
    const pool = new H2Pool({ maxStreamsPerSession: 10, pingIntervalMs: 200, pingTimeoutMs: 10_000, idleMs: 60_000 });
    const base = new URL(`https://127.0.0.1:${p.port}`);
    const carrier = http2Carrier(name, base, pool, http1Carrier(name, base));
    cleanups.push(() => { carrier.close(); });
    const responses: number[] = [];
    const get = (path: string): void => {
      carrier.send(
        { method: 'GET', path, headers: { ...tls.headers, accept: 'application/json' }, bounds: { connectMs: 5_000, headersMs: 5_000 }, describe: `GET ${path}` },
        tls,
        { response: (st) => responses.push(st), data: () => undefined, end: () => undefined, fail: () => undefined },
      );
    };
    get('/api/v1/namespaces/default/configmaps?watch=true&timeoutSeconds=60');
    await expect.poll(() => responses.length, { timeout: 10_000 }).toBe(1);
    p.set({ type: 'blackhole' });
    // A routine PING in flight, unanswered: the next one goes into the blackhole (the idle watch
    // sends nothing else), or the answer to one sent just before is held there (the idle server sends nothing else).
    const [sent, answered] = [p.stats.received, p.stats.receivedUpstream];
    await eventually('a routine PING in flight', () => p.stats.received > sent || p.stats.receivedUpstream > answered, { timeoutMs: 5_000, intervalMs: 10 });
    const pinged = p.stats.received;
    get('/version');
    get('/api');
    // Their streams go out on the pinging session: bytes after the PING's. A session skipped for its
    // routine PING would have been replaced by a new one as the requests were given their slots.
    await eventually('the two requests sent', () => p.stats.received > pinged, { timeoutMs: 5_000, intervalMs: 10 });
    expect(pool.sessionCount).toBe(1);
    expect(p.stats.accepted).toBe(1);
  });

  it('speaks HTTP/1.1 to a TLS server that does not offer HTTP/2, for every request after the first too', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rxfleet-h1-'));
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'), '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
    const cert = readFileSync(join(dir, 'cert.pem'));
    const versions: string[] = [];
    const server = https.createServer({ key: readFileSync(join(dir, 'key.pem')), cert }, (req, res) => {
      versions.push(req.httpVersion);
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ major: '1', minor: '36' }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => server.close(resolve)));
    const port = (server.address() as AddressInfo).port;
    const auth = { dynamic: false, invalidate: () => undefined, credentials: () => Promise.resolve({ headers: { Authorization: 'Bearer not-a-real-token' }, ca: cert, rejectUnauthorized: true }) };
    const t = createTransport(clusterName('old-server'), `https://127.0.0.1:${port}`, auth);
    cleanups.push(() => { t.close(); });
    const answers = await Promise.all([t.request({ method: 'GET', path: '/version' }), t.request({ method: 'GET', path: '/version' })]);
    const third = await t.request({ method: 'GET', path: '/version' });
    for (const r of [...answers, third]) expect(E.isRight(r) && r.right.body).toEqual({ major: '1', minor: '36' });
    expect(versions).toEqual(['1.1', '1.1', '1.1']);
  });

  it('streams watch lines over HTTP/2 exactly as over HTTP/1.1', async () => {
    const server = sharedKubeApiserver();
    const linesOf = async (options: ClusterClientOptions): Promise<string[]> => {
      // A namespace per transport, and a watch without a resourceVersion: its initial events are
      // the current state (a watch from "0" may be served by a watch cache that has not seen the
      // create yet, or sees the other transport's object first).
      const ns = await server.createNamespace(`h2-lines-${String(options.http2)}`);
      const c = clusterOf(`lines-${String(options.http2)}`, server.kubeconfigYaml('admin'), options);
      cleanups.push(() => { c.client.close(); });
      const r = await c.client.create(configMaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${String(options.http2)}`, namespace: ns }, data: { k: 'v' } });
      expect(E.isRight(r)).toBe(true);
      const lines = await firstValueFrom(c.client.watch(configMaps, { namespace: ns }).pipe(take(1), toArray()));
      return lines.map((l) => {
        const e = JSON.parse(l) as { type: string; object: { metadata: { name?: string } } };
        return `${e.type} ${e.object.metadata.name ?? ''}`;
      });
    };
    expect(await linesOf({ http2: true })).toEqual(['ADDED cm-true']);
    expect(await linesOf({ http2: false })).toEqual(['ADDED cm-false']);
  });
});
