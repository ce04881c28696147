// The per-cluster client-side rate limit in virtual time: the one token bucket (burst, refill, a
// server's pause that the queue leaves at the bucket's rate, the bounded take), a client whose
// watches take tokens and whose 429s pause it (capped), and the run's per-cluster limiters: two
// clusters never share a bucket, and a cluster that leaves takes its bucket with it.
import type { Observable } from 'rxjs';
import { asyncScheduler, defer, map, merge, mergeAll, mergeMap, of, Subject, timer } from 'rxjs';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import type { ClusterClient } from '../../src/client/index.js';
import { kubeError, rateLimitedClient } from '../../src/client/index.js';
import { E } from '../../src/fp/index.js';
import type { Cluster, ClusterName, KubeError, KubeObject } from '../../src/index.js';
import type { FleetEvent } from '../../src/streams/index.js';
import { clusterName, configMaps } from '../../src/index.js';
import { clusterRateLimits } from '../../src/runtime/cluster-rate-limit.js';
import { disengaged, engaged } from '../../src/streams/cluster.js';
import { sinkContext } from '../../src/sinks/index.js';
import { send } from '../../src/sinks/send.js';
import { tokenBucket } from '../../src/core/token-bucket.js';
import { testScheduler } from '../support/marbles.js';
import { fakeClient, fakeFleet } from './sinks-fake.js';

const a = clusterName('a');
const b = clusterName('b');

/** A client whose only working call is `watch`, answering with the next of `streams`. */
function watchOnly(cluster: ClusterName, streams: Observable<string>[]): ClusterClient {
  const unused = (): never => {
    throw new Error('not used in this test');
  };
  return { cluster, server: 'https://unused', get: unused, list: unused, listAll: unused, create: unused, update: unused, apply: unused, patch: unused, delete: unused, raw: unused, close: () => undefined, watch: () => streams.shift() ?? unused() };
}

describe('tokenBucket', () => {
  it('should grant its burst at once, then one token per 1/qps seconds, in order', () => {
    const ts = testScheduler();
    ts.run(({ expectObservable }) => {
      const bucket = tokenBucket({ qps: 10, burst: 2 }, ts);
      const takes = merge(...[0, 1, 2, 3, 4].map((i) => bucket.take().pipe(map(() => String(i)))));
      expectObservable(takes).toBe('(01) 96ms 2 99ms 3 99ms (4|)');
    });
  });

  it('should refill at qps up to its burst while idle, and no further', () => {
    const ts = testScheduler();
    ts.run(({ expectObservable }) => {
      const bucket = tokenBucket({ qps: 10, burst: 2 }, ts);
      bucket.take().subscribe();
      bucket.take().subscribe();
      // 5 s idle would be 50 tokens; the bucket holds 2.
      const later = timer(5_000).pipe(map(() => merge(...[0, 1, 2].map((i) => bucket.take().pipe(map(() => String(i)))))));
      expectObservable(later.pipe(mergeAll())).toBe('5000ms (01) 96ms (2|)');
    });
  });

  it('should hold every grant during a pause and let the queue leave at its rate after it, not in a burst', () => {
    const ts = testScheduler();
    ts.run(({ expectObservable, cold }) => {
      const bucket = tokenBucket({ qps: 10, burst: 2 }, ts);
      const takes = merge(...[0, 1, 2, 3].map((i) => bucket.take().pipe(map(() => String(i)))));
      cold('50ms a').subscribe(() => {
        bucket.pause(500);
        expect(bucket.delayMs()).toBe(500);
      });
      // 2 and 3 were due at 100 and 200, inside the pause (50–550): they go at 550 and 650.
      expectObservable(takes).toBe('(01) 546ms 2 99ms (3|)');
    });
  });

  it('should ignore a pause that ends before the one under way', () => {
    const ts = testScheduler();
    ts.run(({ expectObservable }) => {
      const bucket = tokenBucket({ qps: 10, burst: 1 }, ts);
      bucket.take().subscribe();
      bucket.pause(1_000);
      bucket.pause(200);
      expect(bucket.delayMs()).toBe(1_000);
      expectObservable(bucket.take().pipe(map(() => 'x'))).toBe('1000ms (x|)');
    });
  });

  it('should say false at once when no token is due within the bound, and give its reservation back', () => {
    const ts = testScheduler();
    ts.run(({ expectObservable }) => {
      const bucket = tokenBucket({ qps: 1, burst: 1 }, ts);
      bucket.take().subscribe();
      expectObservable(bucket.takeWithin(500)).toBe('(f|)', { f: false });
      // Due at 1000 ms, as if the refused take had never reserved.
      expectObservable(bucket.takeWithin(1_000)).toBe('1000ms (t|)', { t: true });
    });
  });

  it('should give a token back when a waiting take is unsubscribed', () => {
    const ts = testScheduler();
    ts.run(({ expectObservable }) => {
      const bucket = tokenBucket({ qps: 10, burst: 1 }, ts);
      bucket.take().subscribe();
      const abandoned = bucket.take().subscribe(); // due at 100
      abandoned.unsubscribe();
      expectObservable(bucket.take().pipe(map(() => 'x'))).toBe('100ms (x|)');
    });
  });
});

describe('rateLimitedClient', () => {
  it('should take a token for every watch it opens, in order', () => {
    const ts = testScheduler();
    ts.run(({ cold, expectObservable, expectSubscriptions }) => {
      const streams = [cold('a|'), cold('b|'), cold('c|')] as const;
      const client = rateLimitedClient(watchOnly(a, [...streams]), { qps: 2, burst: 1 }, { scheduler: ts });
      expectObservable(merge(client.watch(configMaps), client.watch(configMaps), client.watch(configMaps))).toBe('a 499ms b 499ms c|');
      const [first, second, third] = streams;
      expectSubscriptions(first.subscriptions).toBe('^!');
      expectSubscriptions(second.subscriptions).toBe('500ms ^!');
      expectSubscriptions(third.subscriptions).toBe('1000ms ^!');
    });
  });

  it("should pause the cluster's bucket on a 429's Retry-After, capped at maxPauseMs", () => {
    const paused: number[] = [];
    const ts = testScheduler();
    ts.run(({ cold, expectObservable, expectSubscriptions }) => {
      const tooMany = kubeError('TooManyRequests', a, 'slow down', { code: 429, retryAfterSeconds: 3_600 });
      const second = cold('a|');
      const client = rateLimitedClient(watchOnly(a, [cold('#', undefined, tooMany), second]), { qps: 10, burst: 5, maxPauseMs: 30_000 }, { scheduler: ts, hooks: { onPaused: (_c, ms) => paused.push(ms) } });
      expectObservable(client.watch(configMaps)).toBe('#', undefined, tooMany);
      // Four tokens were left; the gateway asked for an hour: the cluster waits 30 s, not 3,600.
      expectObservable(cold('10ms (x|)').pipe(map(() => client.watch(configMaps)), mergeAll())).toBe('30000ms a|');
      expectSubscriptions(second.subscriptions).toBe('30000ms ^!');
    });
    expect(paused).toEqual([30_000]);
  });

  it('should fail a watch that cannot get a token within maxWaitMs with a Timeout naming the cluster, without opening it', () => {
    const waits: [number, boolean][] = [];
    const ts = testScheduler();
    ts.run(({ cold, expectObservable, expectSubscriptions }) => {
      const never = cold('a|');
      const client = rateLimitedClient(watchOnly(a, [cold('(a|)'), never]), { qps: 1, burst: 1, maxWaitMs: 500 }, { scheduler: ts, hooks: { onThrottled: (_c, ms, ok) => waits.push([ms, ok]) } });
      expectObservable(client.watch(configMaps)).toBe('(a|)');
      expectObservable(client.watch(configMaps)).toBe('#', undefined, expect.objectContaining({ type: 'Timeout', cluster: a, message: expect.stringContaining('rate-limit') as unknown }));
      expectSubscriptions(never.subscriptions).toBe([]);
    });
    expect(waits).toEqual([[0, false]]);
  });
});

describe('clusterRateLimits', () => {
  function fleetOf(limits: NonNullable<ReturnType<typeof clusterRateLimits>>, events: Observable<FleetEvent>): Map<ClusterName, Cluster> {
    const clusters = new Map<ClusterName, Cluster>();
    limits.provider(events).subscribe((e) => {
      if (e.type === 'engaged') clusters.set(e.cluster.name, e.cluster);
      if (e.type === 'disengaged') clusters.delete(e.cluster);
    });
    return clusters;
  }

  it("should give each cluster its own bucket: a throttled cluster never delays another's requests", () => {
    const ts = testScheduler();
    const opened: { a: number[]; b: number[] } = { a: [], b: [] };
    ts.run(({ cold }) => {
      const aWatches = [0, 1, 2].map(() => cold('a|'));
      const bWatches = [0, 1].map(() => cold('b|'));
      const limits = clusterRateLimits({ qps: 1, burst: 1 }, undefined, { scheduler: ts });
      if (limits === undefined) throw new Error('a limit was given');
      const clusters = fleetOf(limits, of(engaged({ name: a, client: watchOnly(a, [...aWatches]) }), engaged({ name: b, client: watchOnly(b, [...bWatches]) })));
      for (let i = 0; i < 3; i++) clusters.get(a)?.client.watch(configMaps).subscribe();
      expect(limits.delayMs(a)).toBe(3_000);
      expect(limits.delayMs(b)).toBe(0);
      for (let i = 0; i < 2; i++) clusters.get(b)?.client.watch(configMaps).subscribe();
      // Read once the virtual time has run.
      ts.schedule(() => {
        opened.a = aWatches.flatMap((w) => w.subscriptions.map((s) => s.subscribedFrame));
        opened.b = bWatches.flatMap((w) => w.subscriptions.map((s) => s.subscribedFrame));
      }, 10_000);
    });
    expect(opened).toEqual({ a: [0, 1_000, 2_000], b: [0, 1_000] });
  });

  it('should choose a limit per cluster, and drop a bucket when its cluster leaves', () => {
    const ts = testScheduler();
    ts.run(({ cold }) => {
      const events = new Subject<FleetEvent>();
      const limits = clusterRateLimits((c: Cluster) => (c.name === a ? { qps: 1, burst: 1 } : undefined), undefined, { scheduler: ts });
      if (limits === undefined) throw new Error('a limit was given');
      const clusters = fleetOf(limits, events);
      const bClient = watchOnly(b, [cold('b|')]);
      events.next(engaged({ name: a, client: watchOnly(a, [cold('a|'), cold('a|')]) }));
      events.next(engaged({ name: b, client: bClient }));
      expect(clusters.get(b)?.client).toBe(bClient); // unlimited: handed out as it came
      clusters.get(a)?.client.watch(configMaps).subscribe();
      clusters.get(a)?.client.watch(configMaps).subscribe();
      expect(limits.size()).toBe(1);
      expect(limits.delayMs(a)).toBe(2_000);
      events.next(disengaged(a));
      expect(limits.size()).toBe(0);
      expect(limits.delayMs(a)).toBe(0);
    });
  });

  it("should count a cluster's waits and 429 pauses, and remove its series when it leaves", async () => {
    const ts = testScheduler();
    const registry = new Registry();
    const events = new Subject<FleetEvent>();
    ts.run(({ cold }) => {
      const tooMany = kubeError('TooManyRequests', a, 'slow down', { code: 429, retryAfterSeconds: 2 });
      const limits = clusterRateLimits({ qps: 1, burst: 1 }, undefined, { scheduler: ts, registry });
      if (limits === undefined) throw new Error('a limit was given');
      const clusters = fleetOf(limits, events);
      events.next(engaged({ name: a, client: watchOnly(a, [cold('#', undefined, tooMany), cold('a|')]) }));
      clusters.get(a)?.client.watch(configMaps).subscribe({ error: () => undefined });
      clusters.get(a)?.client.watch(configMaps).subscribe(); // waits 2 s: the server's pause
    });
    const text = await registry.metrics();
    expect(text).toContain('rxfleet_client_throttled_requests_total{cluster="a",result="sent"} 1');
    expect(text).toContain('rxfleet_client_throttled_seconds_total{cluster="a"} 2');
    expect(text).toContain('rxfleet_client_rate_limit_pauses_total{cluster="a"} 1');
    events.next(disengaged(a));
    expect(await registry.metrics()).not.toContain('cluster="a"');
  });

  it('should refuse the deprecated sinks.rateLimit beside clusterRateLimit, and be off when neither is set', () => {
    const scheduler = asyncScheduler;
    expect(() => clusterRateLimits({ qps: 1, burst: 1 }, { qps: 2, burst: 2 }, { scheduler })).toThrow(/clusterRateLimit.*sinks\.rateLimit/);
    expect(() => clusterRateLimits({ qps: 0, burst: 1 }, undefined, { scheduler })).toThrow(/clusterRateLimit\.qps/);
    expect(clusterRateLimits(undefined, undefined, { scheduler })).toBeUndefined();
    expect(clusterRateLimits(undefined, { qps: 2, burst: 2 }, { scheduler })).toBeDefined();
  });
});

describe('sinkContext rateLimit (deprecated)', () => {
  it("should hold the cluster's next sink request for a 429's Retry-After, even with no retry left", () => {
    const ts = testScheduler();
    const sent: number[] = [];
    ts.run(({ cold, expectObservable }) => {
      const tooMany = kubeError('TooManyRequests', a, 'slow down', { code: 429, retryAfterSeconds: 3 });
      const answers = [E.left<KubeError, KubeObject>(tooMany), E.right<KubeError, KubeObject>({ metadata: { name: 'x' } })];
      const client = fakeClient({
        get: () =>
          defer(() => {
            sent.push(ts.now());
            return cold('(a|)', { a: answers.shift() ?? E.right<KubeError, KubeObject>({ metadata: { name: 'x' } }) });
          }),
      });
      // eslint-disable-next-line @typescript-eslint/no-deprecated -- the deprecated option is what is tested
      const ctx = sinkContext({ clusters: fakeFleet({ a: client }), fieldManager: 'test', scheduler: ts, rateLimit: { qps: 10, burst: 5 }, retryAfter: { attempts: 1 } });
      expectObservable(send(ctx, a, 'read x', (c) => c.get(configMaps, 'x')).pipe(map((s) => String(s.attempts)))).toBe('(1|)');
      expectObservable(cold('10ms (x|)').pipe(mergeMap(() => send(ctx, a, 'read x', (c) => c.get(configMaps, 'x'))), map((s) => String(s.attempts)))).toBe('3000ms (1|)');
    });
    expect(sent).toEqual([0, 3_000]);
  });
});

