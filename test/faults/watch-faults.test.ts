// A watch of the shared kube-apiserver through a TCP proxy (TLS end to end) under each network
// fault the proxy makes: a cut in the middle of a line, an RST, a blackhole, a slow drip, and a
// proxy that accepts connections and never answers. Objects are created, updated and deleted while
// the fault holds; once it clears, the store equals a fresh list, every write was delivered, each
// delete exactly once, and the watch resumed from its resourceVersion (no relist). The private-
// server faults (SIGKILL, SIGSTOP, 410 by compaction) are in test/integration/streams-faults.test.ts.
// Every fault runs on both transports: HTTP/2 (a shared session) and HTTP/1.1.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Cluster } from '../../src/index.js';
import { configMaps } from '../../src/index.js';
import type { WatchHealth } from '../../src/streams/index.js';
import { createInformers } from '../../src/streams/index.js';
import type { TcpProxy } from '../support/tcp-proxy.js';
import type { Recorder, Workload } from './faults-support.js';
import { proxiedServer, recorder, storeMatchesServer, workload } from './faults-support.js';
import { eventually, retrying } from '../support/wait.js';

const INACTIVITY_MS = 3_000;
const HEADERS_MS = 1_000;
// How much later than its bound a timeout may be felt: bounds the waits for it.
const SLACK = 2_000;
const quick = { initialMs: 100, factor: 2, maxMs: 1_000, resetAfterMs: 60_000 };

let proxy: TcpProxy;
let via: Cluster;
let direct: Cluster;
let namespace: string;


interface Fault {
  readonly name: string;
  /** The value of the `fault` label of this test's objects. */
  readonly label: string;
  /** Turns the fault on and waits (bounded) until the watch has felt it; `w` is the workload, written during the fault by the caller after this resolves unless `writesInside`. */
  enter(rec: Recorder, w: Workload): Promise<void>;
  /** The store must converge while the fault still holds (a slow connection is not a dead one). */
  readonly convergesDuring?: boolean;
  /** `enter` does the workload's writes itself. */
  readonly writesInside?: boolean;
}

const failingSince = (rec: Recorder): WatchHealth | undefined => rec.health.find((h) => h.failingSinceAt !== undefined);

const faults: readonly Fault[] = [
  {
    name: 'cut mid-line',
    label: 'cut',
    async enter(rec) {
      // 48 KiB of data: the event spans several 16 KiB TLS records, so a cut after 20,000 bytes
      // hands the client the first part of the line and then ends the stream.
      proxy.set({ type: 'cut', afterBytes: 20_000 });
      const cutsBefore = proxy.stats.cuts;
      await retrying('create the big object', () => direct.client.create(configMaps, { metadata: { name: 'big', namespace, labels: { fault: 'cut' } }, data: { v: '1', blob: 'x'.repeat(48 * 1024) } }));
      // Each reconnect resumes before the big event and is cut again: wait for a few.
      await eventually('three cuts', () => (proxy.stats.cuts >= cutsBefore + 3 ? true : undefined), { timeoutMs: 30_000, intervalMs: 20 });
      const cut = await eventually('the cut in health', () => rec.health.find((h) => h.lastError?.type === 'Transient'), { timeoutMs: 10_000, intervalMs: 20 });
      expect(cut.lastError?.message).toMatch(/cut before the stream ended|ended in the middle of a line|ECONNRESET/);
    },
  },
  {
    name: 'reset',
    label: 'reset',
    async enter(rec) {
      const resetsBefore = proxy.stats.resets;
      proxy.set({ type: 'reset' });
      // The open watch is reset, and so is its first reconnect.
      await eventually('the watch to fail', () => failingSince(rec), { timeoutMs: 10_000, intervalMs: 20 });
      await eventually('a reconnect reset too', () => (proxy.stats.resets >= resetsBefore + 2 ? true : undefined), { timeoutMs: 10_000, intervalMs: 20 });
    },
  },
  {
    name: 'blackhole',
    label: 'blackhole',
    writesInside: true,
    async enter(rec, w) {
      proxy.set({ type: 'blackhole' });
      // Written into the hole: the events are held by the proxy and never reach the client.
      await w.during();
      // Felt within the inactivity timeout and its slack, or the wait fails.
      const silent = await eventually('the inactivity timeout', () => rec.health.find((h) => h.lastError?.type === 'Timeout' && h.lastError.message.includes('no line from the watch')), { timeoutMs: INACTIVITY_MS + SLACK * 2, intervalMs: 20 });
      expect(silent.failingSinceAt).toBeDefined();
      // The reconnect is accepted and never handshakes: it fails at the headers deadline.
      await eventually('a reconnect to time out', () => rec.health.find((h) => h.lastError?.message.includes(`no response headers within ${HEADERS_MS} ms`) === true), { timeoutMs: HEADERS_MS + quick.maxMs + SLACK * 2, intervalMs: 20 });
    },
  },
  {
    name: 'drip',
    label: 'drip',
    convergesDuring: true,
    async enter() {
      // About 12 KB/s each way: far slower than the server, far faster than nothing.
      proxy.set({ type: 'drip', bytesPerTick: 256, tickMs: 20 });
      return Promise.resolve();
    },
  },
  {
    name: 'accept-no-answer',
    label: 'noanswer',
    async enter(rec) {
      proxy.set({ type: 'acceptNoAnswer' });
      const unansweredBefore = proxy.stats.unanswered;
      // The open watch is cut, so the next one meets a proxy that accepts and never answers:
      // felt within the headers deadline, a backoff and their slack, or the wait fails.
      proxy.resetAll();
      const stuck = await eventually('the headers deadline', () => rec.health.find((h) => h.lastError?.message.includes(`no response headers within ${HEADERS_MS} ms`) === true), { timeoutMs: HEADERS_MS + quick.maxMs + SLACK * 2, intervalMs: 20 });
      expect(stuck.lastError?.type).toBe('ClusterUnreachable');
      expect(proxy.stats.unanswered).toBeGreaterThan(unansweredBefore);
    },
  },
];

describe.each([
  { transport: 'HTTP/2', http2: true },
  { transport: 'HTTP/1.1', http2: false },
])('a watch through a TCP proxy over $transport, under each fault', ({ http2 }) => {
  beforeAll(async () => {
    ({ proxy, via, direct, namespace } = await proxiedServer(http2 ? 'proxied-h2' : 'proxied-h1', { headersTimeoutMs: HEADERS_MS, http2 }));
  });
  afterAll(async () => {
    via.client.close();
    direct.client.close();
    await proxy.close();
  });

  it.each(faults)('keeps an exact store and sees every write, each delete once, without relisting: $name', async (fault) => {
    const w = workload(direct, namespace, fault.label);
    proxy.set({ type: 'pass' });
    await w.prepare();
    const informers = createInformers({ backoff: quick, inactivityTimeoutMs: INACTIVITY_MS });
    const inf = informers.informer(via, configMaps, { namespace, labelSelector: w.label });
    const rec = recorder();
    const hsub = inf.health.subscribe(rec.onHealth);
    const sub = inf.events.subscribe(rec.onEvent);
    try {
      await storeMatchesServer(inf.store, direct.client, namespace, 30_000, w.label);
      rec.health.length = 0;
      await fault.enter(rec, w);
      if (fault.writesInside !== true) await w.during();
      if (fault.convergesDuring === true) {
        await storeMatchesServer(inf.store, direct.client, namespace, 30_000, w.label);
        expect(failingSince(rec), 'a failure while the connection was only slow').toBeUndefined();
      }
      proxy.set({ type: 'pass' });
      await storeMatchesServer(inf.store, direct.client, namespace, 30_000, w.label);
      w.verify(rec);
      expect(rec.latest()?.relists ?? 0, 'relists').toBe(0);
    } finally {
      sub.unsubscribe();
      hsub.unsubscribe();
      proxy.set({ type: 'pass' });
    }
  });
});
