// A watch of the shared kube-apiserver through an HTTP proxy that answers for the server: a 429
// whose Retry-After asks for an hour, and a 410 Gone (as an HTTP status and as an ERROR event in a
// watch stream). Objects are created, updated and deleted while the watch is held off; afterwards
// the store equals a fresh list, every write was delivered and each delete seen exactly once. The
// 429 must be waited out within `maxRetryAfterMs`, shown in health, and never relist; the 410 must
// relist, and the relist must turn the deletes made while the stream was down into one delete each.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Cluster, ConfigMap } from '../../src/index.js';
import { configMaps } from '../../src/index.js';
import type { StoreView } from '../../src/streams/index.js';
import { createInformers } from '../../src/streams/index.js';
import type { HttpFaultProxy, Injection } from '../support/http-fault-proxy.js';
import type { Recorder, Workload } from './faults-support.js';
import { httpProxiedServer, recorder, storeMatchesServer, workload } from './faults-support.js';
import { eventually, retrying } from '../support/wait.js';

const MAX_RETRY_AFTER_MS = 1_000;
const quick = { initialMs: 100, factor: 2, maxMs: 1_000, resetAfterMs: 60_000 };
// Far below the hour the server asked for, far above any scheduling delay.
const WELL_BELOW_AN_HOUR_MS = 60_000;

let proxy: HttpFaultProxy;
let via: Cluster;
let direct: Cluster;
let namespace: string;

beforeAll(async () => {
  // A held relist must outlast the writes made while it is held, without timing out on its headers.
  ({ proxy, via, direct, namespace } = await httpProxiedServer('http-faults', { headersTimeoutMs: 30_000 }));
});
afterAll(async () => {
  via.client.close();
  direct.client.close();
  await proxy.close();
});

/** Starts an informer through the proxy over the workload's objects and waits until its store is exact. */
async function watchedThroughProxy(w: Workload, rec: Recorder): Promise<{ store: StoreView<ConfigMap>; stop: () => void }> {
  const informers = createInformers({ backoff: quick, maxRetryAfterMs: MAX_RETRY_AFTER_MS });
  const inf = informers.informer(via, configMaps, { namespace, labelSelector: w.label });
  const hsub = inf.health.subscribe(rec.onHealth);
  const sub = inf.events.subscribe(rec.onEvent);
  await storeMatchesServer(inf.store, direct.client, namespace, 30_000, w.label);
  // endWatches() ends only a watch whose headers came back: wait for it, or the fault would miss it.
  await eventually('the watch open through the proxy', () => (proxy.openWatches() === 1 ? true : undefined), { timeoutMs: 10_000, intervalMs: 20 });
  return {
    store: inf.store,
    stop: () => {
      sub.unsubscribe();
      hsub.unsubscribe();
    },
  };
}

describe('a watch through an HTTP proxy that answers 429 with Retry-After: 3600', () => {
  it('waits at most maxRetryAfterMs, shows the wait in health, resumes without a relist, and loses nothing', async () => {
    const w = workload(direct, namespace, 'toomany');
    await w.prepare();
    const rec = recorder();
    const watch = await watchedThroughProxy(w, rec);
    try {
      rec.health.length = 0;
      // Twice in a row: the retry after the first wait meets another 429.
      const tooMany = proxy.inject({
        kinds: ['watch'],
        resource: 'configmaps',
        times: 2,
        injection: { type: 'status', code: 429, reason: 'TooManyRequests', message: 'injected: slow down', headers: { 'retry-after': '3600' } },
      });
      // The open watch ends as a server timeout ends it; its resumption meets the 429.
      proxy.endWatches();
      const waiting = await eventually('the 429 in health', () => rec.health.find((h) => h.state === 'backingOff' && h.lastError?.type === 'TooManyRequests'), { timeoutMs: 10_000, intervalMs: 20 });
      expect(waiting.lastError?.retryAfterSeconds).toBe(3600);
      expect(waiting.failingSinceAt, 'failingSince while waiting').toBeDefined();
      expect(waiting.nextAttemptAt, 'nextAttemptAt while waiting').toBeDefined();
      const waitMs = (waiting.nextAttemptAt ?? 0) - (waiting.failingSinceAt ?? 0);
      // The wait is the cap (the backoff is below it), not the hour.
      expect(waitMs).toBeGreaterThanOrEqual(MAX_RETRY_AFTER_MS);
      expect(waitMs).toBeLessThan(WELL_BELOW_AN_HOUR_MS);

      await w.during();
      await eventually('both 429s answered', () => (tooMany.spent ? true : undefined), { timeoutMs: 4 * MAX_RETRY_AFTER_MS + 10_000, intervalMs: 20 });
      await eventually('a watch passed through again', () => (proxy.seen.at(-1)?.outcome === 'passed' && proxy.seen.at(-1)?.kind === 'watch' ? true : undefined), { timeoutMs: 2 * MAX_RETRY_AFTER_MS + 10_000, intervalMs: 20 });
      await storeMatchesServer(watch.store, direct.client, namespace, 30_000, w.label);
      w.verify(rec);
      const tooManyWaits = rec.health.filter((h) => h.state === 'backingOff' && h.lastError?.type === 'TooManyRequests');
      expect(tooManyWaits.length, 'waits shown in health').toBeGreaterThanOrEqual(2);
      for (const h of tooManyWaits) expect((h.nextAttemptAt ?? 0) - (h.failingSinceAt ?? 0)).toBeLessThan(2 * WELL_BELOW_AN_HOUR_MS);
      const last = await eventually('health back to connected', () => (rec.latest()?.state === 'connected' && rec.latest()?.failingSinceAt === undefined ? rec.latest() : undefined), { timeoutMs: 10_000, intervalMs: 20 });
      expect(last.relists, 'relists after a 429').toBe(0);
    } finally {
      watch.stop();
      proxy.clear();
    }
  });
});

interface GoneForm {
  readonly name: string;
  readonly label: string;
  readonly injection: Injection;
}

const gone: readonly GoneForm[] = [
  { name: 'HTTP 410', label: 'gone-http', injection: { type: 'status', code: 410, reason: 'Expired', message: 'too old resource version: 1 (2)' } },
  { name: 'ERROR event with code 410', label: 'gone-event', injection: { type: 'watchError', code: 410, reason: 'Expired', message: 'too old resource version: 1 (2)' } },
];

describe('a watch through an HTTP proxy that answers 410 Gone', () => {
  it.each(gone)('relists, keeps an exact store and turns deletes made while it was down into one delete each: $name', async (form) => {
    const w = workload(direct, namespace, form.label, 12, 10, { transient: false });
    await w.prepare();
    const rec = recorder();
    const watch = await watchedThroughProxy(w, rec);
    try {
      rec.health.length = 0;
      const goneRule = proxy.inject({ kinds: ['watch'], resource: 'configmaps', times: 1, injection: form.injection });
      // The relist is held until the writes are done, so the stream is down for all of them.
      const held = proxy.inject({ kinds: ['list'], resource: 'configmaps', times: 1, injection: { type: 'hold' } });
      proxy.endWatches();
      await eventually('the 410 answered', () => (goneRule.spent ? true : undefined), { timeoutMs: 10_000, intervalMs: 20 });
      const failed = await eventually('the 410 in health', () => rec.health.find((h) => h.lastError?.type === 'Gone'), { timeoutMs: 10_000, intervalMs: 20 });
      expect(failed.lastError?.code).toBe(410);
      await eventually('the relist to be held', () => (held.spent && proxy.held() === 1 ? true : undefined), { timeoutMs: 10_000, intervalMs: 20 });

      await w.during();
      proxy.release();
      await eventually('a relist in health', () => ((rec.latest()?.relists ?? 0) >= 1 ? true : undefined), { timeoutMs: 10_000, intervalMs: 20 });
      await eventually('the watch connected again', () => (rec.latest()?.state === 'connected' ? true : undefined), { timeoutMs: 10_000, intervalMs: 20 });
      // The watch resumes after the relist: a write now is delivered as an event, not a listing.
      const after = `${form.label}-after`;
      await retrying(`create ${after}`, () => direct.client.create(configMaps, { metadata: { name: after, namespace, labels: { fault: form.label } }, data: { v: '1' } }));
      await eventually(`${after} seen`, () => (rec.seen.has(after) ? true : undefined), { timeoutMs: 10_000, intervalMs: 20 });
      await storeMatchesServer(watch.store, direct.client, namespace, 30_000, w.label);
      w.verify(rec);
      expect(rec.latest()?.relists, 'relists').toBe(1);
    } finally {
      watch.stop();
      proxy.clear();
      proxy.release();
    }
  });
});
