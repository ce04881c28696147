// A watch of a cluster that cannot be reached, for real: a port nothing listens on (reserved, so no
// other test takes it), and the shared kube-apiserver seen through a proxy that is then stopped.
// Every failed attempt to open the watch is a failure of the request (counted by the transport as
// `watch ClusterUnreachable`, and in the watch's health: failing, so its cluster is unhealthy),
// never an interruption: a cluster that stays down counts none, however many attempts it refuses.
// An open watch that is cut is one interruption, once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RequestRecorder } from '../../src/client/index.js';
import type { Cluster } from '../../src/index.js';
import { configMaps } from '../../src/index.js';
import { reservePorts } from '../../src/envtest/ports.js';
import type { PortReservation } from '../../src/envtest/ports.js';
import { createInformers } from '../../src/streams/index.js';
import type { TcpProxy } from '../support/tcp-proxy.js';
import { startTcpProxy } from '../support/tcp-proxy.js';
import { sharedKubeApiserver } from '../support/context.js';
import { eventually } from '../support/wait.js';
import { clusterOf, kubeconfigVia, recorder } from './faults-support.js';

const ATTEMPTS = 6;
const quick = { initialMs: 50, factor: 2, maxMs: 400 };

/** The transport's count of this cluster's requests, as `verb result`. */
function counted(): { readonly record: RequestRecorder; readonly seen: () => readonly string[]; readonly failedWatches: () => number } {
  const seen: string[] = [];
  return { record: (_c, verb, result) => void seen.push(`${verb} ${result}`), seen: () => seen, failedWatches: () => seen.filter((s) => s === 'watch ClusterUnreachable').length };
}

describe('a watch of a cluster nothing answers', () => {
  let held: PortReservation;
  beforeAll(async () => {
    held = await reservePorts(1);
  });
  afterAll(() => {
    held.release();
  });

  it(`counts ${ATTEMPTS} refused attempts as failed requests and an unhealthy watch, never as interruptions`, async () => {
    const requests = counted();
    const down: Cluster = clusterOf('nothing-listens', kubeconfigVia(`https://127.0.0.1:${held.ports[0] ?? 0}`), { requests: requests.record });
    // Streaming lists by default: each attempt is a watch request, refused at connect.
    const inf = createInformers({ backoff: quick, degradedAfterMs: 500 }).informer(down, configMaps, { namespace: 'default' });
    const rec = recorder();
    const hsub = inf.health.subscribe(rec.onHealth);
    const sub = inf.events.subscribe(rec.onEvent);
    try {
      await eventually(`${ATTEMPTS} refused watch requests`, () => (requests.failedWatches() >= ATTEMPTS ? true : undefined), { timeoutMs: 30_000, intervalMs: 20 });
      await eventually('degraded (its cluster unhealthy)', () => rec.health.find((h) => h.degraded === true), { timeoutMs: 10_000, intervalMs: 20 });
      // A backing-off report after the last counted attempt: the sentinel that it was judged.
      const seen = rec.health.length;
      const last = await eventually('a backing-off report after them', () => rec.health.slice(seen).find((h) => h.state === 'backingOff'), { timeoutMs: 10_000, intervalMs: 20 });
      expect(last).toMatchObject({ state: 'backingOff', synced: false, interruptions: 0, lastError: { type: 'ClusterUnreachable', cause: 'ECONNREFUSED' } });
      expect(rec.health.filter((h) => h.interruptions > 0), 'reports with an interruption').toEqual([]);
    } finally {
      sub.unsubscribe();
      hsub.unsubscribe();
      down.client.close();
    }
  });
});

describe.each([
  { transport: 'HTTP/2', http2: true },
  { transport: 'HTTP/1.1', http2: false },
])('a watch of a server that stops, over $transport', ({ http2 }) => {
  let proxy: TcpProxy;
  let via: Cluster;
  const requests = counted();
  beforeAll(async () => {
    proxy = await startTcpProxy(Number(new URL(sharedKubeApiserver().baseUrl).port));
    via = clusterOf(`stopped-server-h${http2 ? 2 : 1}`, kubeconfigVia(`https://127.0.0.1:${proxy.port}`), { requests: requests.record, http2 });
  });
  afterAll(() => {
    via.client.close();
  });

  it(`counts the cut of its open watch as one interruption, and ${ATTEMPTS} refused attempts after it as failed requests only`, async () => {
    const namespace = await sharedKubeApiserver().createNamespace('unreachable');
    // List, then watch: the watch of an empty namespace is open (its 200 counted) without a line.
    const inf = createInformers({ backoff: quick, degradedAfterMs: 500, streamingList: false }).informer(via, configMaps, { namespace });
    const rec = recorder();
    const hsub = inf.health.subscribe(rec.onHealth);
    const sub = inf.events.subscribe(rec.onEvent);
    try {
      await eventually('synced and the watch open', () => (inf.store.synced(via.name) && requests.seen().includes('watch 2xx') ? true : undefined), { timeoutMs: 30_000, intervalMs: 20 });
      // Only the server's 200 says the watch was open: the transport keeps it on the error of the cut.
      expect(rec.latest()).toMatchObject({ state: 'connected', interruptions: 0 });
      expect(rec.latest()?.lastEventAt, 'a line on the watch').toBeUndefined();
      // Stopped: its connections destroyed, its port closed, so every reconnect is refused.
      await proxy.close();
      await eventually(`${ATTEMPTS} refused watch requests`, () => (requests.failedWatches() >= ATTEMPTS ? true : undefined), { timeoutMs: 30_000, intervalMs: 20 });
      const seen = rec.health.length;
      const last = await eventually('a backing-off report after them', () => rec.health.slice(seen).find((h) => h.state === 'backingOff'), { timeoutMs: 10_000, intervalMs: 20 });
      expect(last).toMatchObject({ state: 'backingOff', synced: true, interruptions: 1, lastError: { type: 'ClusterUnreachable' } });
      // The cut is a cut of an open watch on either transport (Node ends an HTTP/2 stream whose
      // session went down; that is no answer from the server): a failure that keeps its 200.
      const first = rec.health.find((h) => h.failingSinceAt !== undefined);
      expect(first?.lastError, 'the first failure').toMatchObject({ type: 'Transient', code: 200 });
      expect(last.failingSinceAt, 'failing (its cluster unhealthy)').toBeDefined();
    } finally {
      sub.unsubscribe();
      hsub.unsubscribe();
    }
  });
});
