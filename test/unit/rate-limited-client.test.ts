// The rate-limited client over a fake transport that counts what reaches the wire: reads, writes,
// raw calls and each page of a list share one bucket per cluster; a request that cannot get a token
// within its own timeout is not sent; a 429's Retry-After pauses the cluster (capped). Time is a
// VirtualTimeScheduler stepped by hand, the client's promises settled between steps.
import { EMPTY, VirtualTimeScheduler } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { HttpRequest, Transport } from '../../src/client/index.js';
import { checkClientRateLimit, clientOver, kubeError, rateLimitedClient } from '../../src/client/index.js';
import { ConfigError } from '../../src/core/config-error.js';
import { E } from '../../src/fp/index.js';
import type { KubeError } from '../../src/index.js';
import { clusterName, configMaps } from '../../src/index.js';
import type { Either } from '../../src/internal/fp.js';

const east = clusterName('east');

/** A transport that records every request sent and answers with `answer` (an empty object by default). */
function countingTransport(answer: (req: HttpRequest, n: number) => Either<KubeError, unknown> = () => E.right({})) {
  const sent: HttpRequest[] = [];
  const transport: Transport = {
    cluster: east,
    server: 'https://fake.invalid',
    request: (req) => {
      sent.push(req);
      const a = answer(req, sent.length);
      return Promise.resolve(E.isLeft(a) ? a : E.right({ status: 200, body: a.right }));
    },
    lines: () => EMPTY,
    close: () => undefined,
  };
  return { sent, transport };
}

/** Virtual time, advanced by hand; promise callbacks run between steps. */
function virtualClock() {
  const scheduler = new VirtualTimeScheduler(undefined, Infinity);
  const settle = () => new Promise<void>((resolve) => setImmediate(resolve));
  return {
    scheduler,
    settle,
    async advanceTo(ms: number) {
      await settle();
      // An action at `ms` itself, so that the clock reads `ms` even when nothing else is due then.
      scheduler.schedule(() => undefined, ms - scheduler.now());
      scheduler.maxFrames = ms;
      scheduler.flush();
      await settle();
    },
  };
}

const cm = (name: string) => ({ metadata: { name, namespace: 'default' } });

describe('rateLimitedClient', () => {
  it('should make reads, writes and raw calls of a cluster share one bucket', async () => {
    const clock = virtualClock();
    const { sent, transport } = countingTransport();
    const waits: number[] = [];
    const client = rateLimitedClient(clientOver(transport), { qps: 10, burst: 2 }, { scheduler: clock.scheduler, hooks: { onThrottled: (_c, ms) => waits.push(ms) } });
    const calls = [
      client.get(configMaps, 'a', { namespace: 'default' }),
      client.create(configMaps, cm('b')),
      client.list(configMaps, { namespace: 'default' }),
      client.delete(configMaps, 'c', { namespace: 'default' }),
      client.raw({ method: 'GET', path: '/version' }),
    ];
    await clock.settle();
    expect(sent.map((r) => r.method)).toEqual(['GET', 'POST']); // the burst
    await clock.advanceTo(99);
    expect(sent).toHaveLength(2);
    await clock.advanceTo(100);
    expect(sent.map((r) => r.method)).toEqual(['GET', 'POST', 'GET']);
    await clock.advanceTo(200);
    expect(sent.map((r) => r.method)).toEqual(['GET', 'POST', 'GET', 'DELETE']);
    await clock.advanceTo(300);
    expect(sent.at(-1)?.path).toBe('/version');
    for (const r of await Promise.all(calls)) expect(E.isRight(r)).toBe(true);
    expect(waits).toEqual([100, 200, 300]);
  });

  it('should take a token for every page of listAll', async () => {
    const clock = virtualClock();
    const pages = ['p2', 'p3', ''];
    const { sent, transport } = countingTransport((_req, n) => E.right({ kind: 'ConfigMapList', metadata: { resourceVersion: '7', continue: pages[n - 1] }, items: [cm(`item-${n}`)] }));
    const client = rateLimitedClient(clientOver(transport), { qps: 10, burst: 1 }, { scheduler: clock.scheduler });
    const all = client.listAll(configMaps, { namespace: 'default' });
    await clock.settle();
    expect(sent).toHaveLength(1);
    await clock.advanceTo(100);
    expect(sent).toHaveLength(2);
    expect(sent[1]?.path).toContain('continue=p2');
    await clock.advanceTo(200);
    expect(sent).toHaveLength(3);
    const list = await all;
    expect(E.isRight(list) && list.right.items.map((i) => i.metadata.name)).toEqual(['item-1', 'item-2', 'item-3']);
  });

  it('should resolve a request that cannot get a token within its own timeout to a Timeout naming the cluster, unsent', async () => {
    const clock = virtualClock();
    const { sent, transport } = countingTransport();
    const client = rateLimitedClient(clientOver(transport), { qps: 1, burst: 1 }, { scheduler: clock.scheduler });
    await client.get(configMaps, 'a', { namespace: 'default' });
    const refused = await client.get(configMaps, 'b', { namespace: 'default', timeoutMs: 500 });
    expect(E.isLeft(refused) && refused.left).toMatchObject({ type: 'Timeout', cluster: east });
    expect(E.isLeft(refused) && refused.left.message).toMatch(/^.*east.*rate-limit token \(1 qps, burst 1\) within 500 ms.*not sent/);
    expect(sent).toHaveLength(1);
    // One that can wait gets the token at 1000 ms and is sent with what is left of its timeout.
    const patient = client.apply(configMaps, cm('c'), { fieldManager: 'test', timeoutMs: 5_000 });
    await clock.advanceTo(1_000);
    expect(E.isRight(await patient)).toBe(true);
    expect(sent[1]).toMatchObject({ method: 'PATCH', timeoutMs: 4_000 });
  });

  it("should pause the cluster's requests for a 429's Retry-After, capped at maxPauseMs", async () => {
    const clock = virtualClock();
    const { sent, transport } = countingTransport((_req, n) => (n === 1 ? E.left(kubeError('TooManyRequests', east, 'slow down', { code: 429, retryAfterSeconds: 120 })) : E.right({})));
    const paused: number[] = [];
    const client = rateLimitedClient(clientOver(transport), { qps: 10, burst: 5, maxPauseMs: 10_000 }, { scheduler: clock.scheduler, hooks: { onPaused: (_c, ms) => paused.push(ms) } });
    const first = await client.create(configMaps, cm('a'));
    expect(E.isLeft(first) && first.left.type).toBe('TooManyRequests');
    expect(paused).toEqual([10_000]);
    const read = client.get(configMaps, 'a', { namespace: 'default' });
    await clock.advanceTo(9_999);
    expect(sent).toHaveLength(1); // four tokens left, but the server asked the cluster to wait
    await clock.advanceTo(10_000);
    expect(sent).toHaveLength(2);
    expect(E.isRight(await read)).toBe(true);
  });

  it('should refuse limits out of range with a ConfigError naming the option', () => {
    expect(() => checkClientRateLimit({ qps: 5, burst: 10, maxPauseMs: -1 }, 'run: clusterRateLimit')).toThrow(ConfigError);
    expect(() => checkClientRateLimit({ qps: 5, burst: 10, maxWaitMs: 0 }, 'run: clusterRateLimit')).toThrow(/clusterRateLimit\.maxWaitMs/);
    expect(() => rateLimitedClient(clientOver(countingTransport().transport), { qps: 5, burst: 0 })).toThrow(/burst must be at least 1/);
    expect(checkClientRateLimit({ qps: 5, burst: 10, maxPauseMs: 0 }, 'x')).toEqual({ qps: 5, burst: 10, maxPauseMs: 0 });
  });
});
