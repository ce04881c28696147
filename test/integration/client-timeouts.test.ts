// Servers that accept a connection and never answer, on 127.0.0.1: a plain TCP server (as an
// http:// target, and as an https:// one whose TLS handshake never completes) and a TLS server that
// completes the handshake and never sends response headers. Every request fails within its bound
// with an error naming the cluster, the request and the wait; a watch fails the same way, retries
// with backoff (the servers count the connections) and its health says it is failing, then degraded.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { Server, Socket } from 'node:net';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer as createTlsServer } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClusterClient, ClusterClientOptions } from '../../src/client/index.js';
import { createClusterClient } from '../../src/client/index.js';
import { E } from '../../src/fp/index.js';
import type { Either, KubeError } from '../../src/index.js';
import { ConfigError, clusterName, configMaps } from '../../src/index.js';
import type { WatchHealth } from '../../src/streams/index.js';
import { createInformers } from '../../src/streams/index.js';
import { eventually } from '../support/wait.js';

// Short bounds keep the file fast; the rules are those of the 10 s default.
const BOUND = 300;
// How much later than its bound a deadline may be felt: a bound on the wait, not a measurement.
const SLACK = 1_500;
// A request that is not bound waits for the 60 s idle timeout: fail such a regression sooner.
const TEST_MS = 15_000;

/** A server that accepts connections and never writes a byte; it counts them and tracks the open ones. */
interface Silent {
  readonly port: number;
  readonly open: Set<Socket>;
  connections: number;
}

function listen(server: Server, silent: { open: Set<Socket>; connections: number }): Promise<Silent> {
  server.on('connection', (s: Socket) => {
    silent.connections++;
    silent.open.add(s);
    s.on('error', () => undefined);
    s.on('close', () => silent.open.delete(s));
    // Read and drop what comes: a socket nobody reads never notices that the client closed it.
    s.resume();
  });
  // The TLS server's sockets are read through their TLS layer, once the handshake is done.
  server.on('secureConnection', (s: Socket) => {
    s.on('error', () => undefined);
    s.resume();
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      resolve(Object.assign(silent, { port: typeof address === 'object' && address !== null ? address.port : 0 }));
    });
  });
}

const servers: Server[] = [];
let dir = '';
let caData = '';
let tcp: Silent;
let tlsSilent: Silent;

beforeAll(async () => {
  // A self-signed serving certificate for 127.0.0.1 (the openssl CLI, as the kube-apiserver harness uses).
  dir = mkdtempSync(join(tmpdir(), 'rxfleet-timeouts-'));
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', 'key.pem', '-out', 'cert.pem', '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { cwd: dir, stdio: 'ignore' });
  const cert = readFileSync(join(dir, 'cert.pem'));
  caData = cert.toString('base64');
  const plain = createServer();
  const secure = createTlsServer({ key: readFileSync(join(dir, 'key.pem')), cert });
  servers.push(plain, secure);
  tcp = await listen(plain, { open: new Set(), connections: 0 });
  tlsSilent = await listen(secure, { open: new Set(), connections: 0 });
});

afterAll(() => {
  for (const s of servers) s.close();
  for (const s of [...tcp.open, ...tlsSilent.open]) s.destroy();
  rmSync(dir, { recursive: true, force: true });
});

function kubeconfig(server: string): string {
  // Plain http is refused unless the kubeconfig says so (and then no credentials are sent).
  const cluster = server.startsWith('https:') ? { server, 'certificate-authority-data': caData } : { server, 'insecure-skip-tls-verify': true };
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'c', cluster }],
    users: [{ name: 'u', user: { token: 'not-a-secret' } }],
    contexts: [{ name: 'c', context: { cluster: 'c', user: 'u' } }],
    'current-context': 'c',
  });
}

function clientOf(name: string, server: string, options: ClusterClientOptions = { headersTimeoutMs: BOUND }): ClusterClient {
  const c = createClusterClient(clusterName(name), { yaml: kubeconfig(server) }, options);
  if (E.isLeft(c)) throw new Error(c.left.message);
  return c.right;
}

/** Where a call's failure came among two timers armed just before the call. */
interface Order {
  /** The timer of `notBeforeMs` had fired: the call did not fail earlier. */
  readonly afterNotBefore: boolean;
  /** The timer of `byMs` had not fired: the call failed first. */
  readonly beforeBy: boolean;
}

/**
 * The call's error, and where its failure came among two timers armed just before it. Timers fire
 * in the order they expire, however late a loaded machine runs them, and a deadline's failure is
 * reported from its own timer's callback: "after the first, before the second" bounds the deadline
 * by ordering, not by reading a clock.
 */
async function failure(call: () => Promise<Either<KubeError, unknown>>, window: { readonly notBeforeMs?: number; readonly byMs: number }): Promise<{ error: KubeError; order: Order }> {
  let early = window.notBeforeMs === undefined;
  let late = false;
  const timers = [
    setTimeout(() => {
      early = true;
    }, window.notBeforeMs ?? 0),
    setTimeout(() => {
      late = true;
    }, window.byMs),
  ];
  const r = await call();
  const order = { afterNotBefore: early, beforeBy: !late };
  for (const t of timers) clearTimeout(t);
  if (E.isRight(r)) throw new Error('the call succeeded against a server that never answers');
  return { error: r.left, order };
}
const inOrder: Order = { afterNotBefore: true, beforeBy: true };

// `connections`: TCP connections the get opens. The TLS server offers no ALPN, so the first contact
// makes two: the HTTP/2 attempt, whose handshake chooses no protocol and which is closed before
// anything is sent on it, then the HTTP/1.1 connection that carries the request.
const plainHttp = { what: 'a plain TCP server (http)', name: 'silent-http', url: () => `http://127.0.0.1:${tcp.port}`, server: () => tcp, connections: 1 };
const silentTls = { what: 'a TLS server that never sends headers', name: 'silent-tls', url: () => `https://127.0.0.1:${tlsSilent.port}`, server: () => tlsSilent, connections: 2 };
const targets = [plainHttp, silentTls];
const watchPath = 'GET /api/v1/namespaces/default/configmaps';

describe('request deadlines', () => {
  it.each(targets)('should fail a get within headersTimeoutMs against $what, naming the cluster, the request and the wait', async ({ name, url, server, connections }) => {
    const client = clientOf(name, url());
    const before = server().connections;
    const { error, order } = await failure(() => client.get(configMaps, 'settings', { namespace: 'default' }), { notBeforeMs: BOUND - 5, byMs: BOUND + SLACK });
    expect(error).toMatchObject({ type: 'Timeout', cluster: name, request: 'GET /api/v1/namespaces/default/configmaps/settings', cause: 'ETIMEDOUT' });
    expect(error.message).toBe(
      `cluster "${name}" GET /api/v1/namespaces/default/configmaps/settings: no response headers within ${BOUND} ms (the request was sent and the server did not answer)`,
    );
    expect(order).toEqual(inOrder);
    expect(server().connections).toBe(before + connections);
    // The connection is closed, not left open nor handed back to the agent.
    await eventually('the connection to close', () => (server().open.size === 0 ? true : undefined), { timeoutMs: 5_000, intervalMs: 20 });
    client.close();
  }, TEST_MS);

  it('should fail a request whose TLS handshake never completes as ClusterUnreachable within headersTimeoutMs', async () => {
    const client = clientOf('no-handshake', `https://127.0.0.1:${tcp.port}`);
    const { error, order } = await failure(() => client.get(configMaps, 'settings', { namespace: 'default' }), { byMs: BOUND + SLACK });
    expect(error).toMatchObject({ type: 'ClusterUnreachable', cluster: 'no-handshake', cause: 'ETIMEDOUT' });
    expect(error.message).toContain(`no response headers within ${BOUND} ms (the server accepted the connection but did not complete the TLS handshake)`);
    expect(order).toEqual(inOrder);
    client.close();
  }, TEST_MS);

  it('should let a write wait for its headers up to timeoutMs (admission webhooks), but its connection only up to headersTimeoutMs', async () => {
    const writeBound = 1_200;
    const sent = clientOf('slow-write', `https://127.0.0.1:${tlsSilent.port}`, { headersTimeoutMs: BOUND, timeoutMs: writeBound });
    const slow = await failure(() => sent.create(configMaps, { metadata: { name: 'a', namespace: 'default' } }), { notBeforeMs: writeBound - 5, byMs: writeBound + SLACK });
    expect(slow.error.type).toBe('Timeout');
    expect(slow.error.message).toContain(`POST /api/v1/namespaces/default/configmaps: no response headers within ${writeBound} ms`);
    expect(slow.order).toEqual(inOrder);
    const unsent = clientOf('no-handshake-write', `https://127.0.0.1:${tcp.port}`, { headersTimeoutMs: BOUND, timeoutMs: writeBound });
    const refused = await failure(() => unsent.create(configMaps, { metadata: { name: 'a', namespace: 'default' } }), { byMs: BOUND + SLACK });
    // Nothing was sent: the write can be sent again without doubt.
    expect(refused.error.type).toBe('ClusterUnreachable');
    expect(refused.order).toEqual(inOrder);
    // A call's own timeoutMs is its bound on the headers too.
    const own = await failure(() => sent.get(configMaps, 'settings', { namespace: 'default', timeoutMs: 800 }), { notBeforeMs: 795, byMs: 800 + SLACK });
    expect(own.error.message).toContain('no response headers within 800 ms');
    expect(own.order).toEqual(inOrder);
    sent.close();
    unsent.close();
  }, TEST_MS);

  it('should refuse a headersTimeoutMs that is not a positive number', () => {
    expect(() => createClusterClient(clusterName('bad'), { yaml: kubeconfig('https://127.0.0.1:1') }, { headersTimeoutMs: 0 })).toThrow(ConfigError);
    expect(() => createClusterClient(clusterName('bad'), { yaml: kubeconfig('https://127.0.0.1:1') }, { headersTimeoutMs: Number.NaN })).toThrow(
      /`headersTimeoutMs` must be a positive number of milliseconds/,
    );
  });
});

describe('watches against a server that never answers', () => {
  it.each([...targets.map((t) => ({ ...t, streamingList: true })), { ...plainHttp, streamingList: false }])(
    'should report failing health within the bound, retry with backoff, and turn degraded: $what, streamingList $streamingList',
    async ({ name, url, server, streamingList }) => {
      const client = clientOf(`${name}-watch`, url());
      const cluster = { name: client.cluster, client };
      const informers = createInformers({ streamingList, backoff: { initialMs: 100, factor: 2, maxMs: 400 }, degradedAfterMs: 1_500 });
      const informer = informers.informer(cluster, configMaps, { namespace: 'default' });
      const health: { h: WatchHealth }[] = [];
      const before = server().connections;
      const hs = informer.health.subscribe((h) => health.push({ h }));
      const sub = informer.events.subscribe();
      try {
        // Bounded by its deadline: failing within the bound and its slack, or the wait fails.
        const failing = await eventually('failing health', () => health.find(({ h }) => h.failingSinceAt !== undefined), { timeoutMs: BOUND + SLACK, intervalMs: 10 });
        expect(failing.h).toMatchObject({ state: 'backingOff', synced: false, lastError: { type: 'Timeout', request: expect.stringContaining(watchPath) as unknown } });
        expect(failing.h.lastError?.message).toContain(`cluster "${name}-watch" ${watchPath}`);
        expect(failing.h.lastError?.message).toContain(`no response headers within ${BOUND} ms`);
        const degraded = await eventually('degraded health', () => health.find(({ h }) => h.degraded === true), { timeoutMs: 1_500 + SLACK * 2, intervalMs: 20 });
        expect(degraded.h.failingSinceAt).toBe(failing.h.failingSinceAt);
        // It kept retrying, with backoff in between: several attempts, each one a new connection.
        expect(server().connections - before).toBeGreaterThanOrEqual(3);
        const waits = health.filter(({ h }) => h.state === 'backingOff');
        expect(waits.length).toBeGreaterThanOrEqual(2);
        for (const { h } of waits) expect(h.nextAttemptAt).toBeGreaterThan(h.failingSinceAt ?? Infinity);
      } finally {
        sub.unsubscribe();
        hs.unsubscribe();
      }
      // Stopping the watch closes its connection.
      await eventually('the connections to close', () => (server().open.size === 0 ? true : undefined), { timeoutMs: 5_000, intervalMs: 20 });
      client.close();
    },
  );
});
