// The time and flow behaviour of the sinks, in virtual time: rate limiting per cluster, 429
// Retry-After, bounded concurrency of the operators, failures as values, and apply/status results.
import type { Observable } from 'rxjs';
import { defer, of } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import { E } from '../../src/fp/index.js';
import type { ConfigMap, KubeError, KubeObject } from '../../src/index.js';
import { clusterName, configMaps, objectKey } from '../../src/index.js';
import type { Either } from '../../src/internal/fp.js';
import type { ApplyWrite, SinkContextOptions, WriteClient } from '../../src/sinks/index.js';
import { apply, applyEach, patch, sinkContext } from '../../src/sinks/index.js';
import { tokenBucket } from '../../src/core/token-bucket.js';
import { err, fakeClient, fakeFleet, throwingClient } from './sinks-fake.js';
import { testScheduler } from '../support/marbles.js';


const obj = (name: string, rv = '1'): ConfigMap => ({ metadata: { name, namespace: 'default', resourceVersion: rv }, data: { k: 'v' } });
const write = (cluster: string, name: string): ApplyWrite<ConfigMap> => ({
  cluster: clusterName(cluster),
  resource: configMaps,
  object: { metadata: { name, namespace: 'default' } },
  current: null, // known absent: no read first, so only the apply is timed
});

function ctxOf(ts: TestScheduler, clients: Readonly<Record<string, WriteClient>>, extra: Partial<SinkContextOptions> = {}) {
  return sinkContext({ clusters: fakeFleet(clients), fieldManager: 'test', scheduler: ts, random: () => 0, ...extra });
}

/** A client whose applies answer after `latency` (a marble), recording when each was sent. */
function timedApplies(ts: TestScheduler, latency: string, sent: number[], cold: TestScheduler['createColdObservable']) {
  return fakeClient({
    apply: (o) =>
      defer(() => {
        sent.push(ts.now());
        return cold(latency, { a: E.right<KubeError, KubeObject>(obj(o.metadata.name ?? '', '2')) });
      }),
  });
}

describe('tokenBucket', () => {
  /** Subscribes to `take()` at each of the given times and records when each was granted. */
  function grants(ts: TestScheduler, bucket: ReturnType<typeof tokenBucket>, at: readonly number[]): number[] {
    const granted: number[] = [];
    for (const t of at) ts.schedule(() => bucket.take().subscribe(() => granted.push(ts.now())), t);
    return granted;
  }

  it('should let a burst through at once, then space requests by 1/qps', () => {
    const ts = testScheduler();
    ts.run(({ expectObservable }) => {
      const bucket = tokenBucket({ qps: 10, burst: 2 }, ts);
      expectObservable(bucket.take()).toBe('(x|)', { x: undefined });
      expectObservable(bucket.take()).toBe('(x|)', { x: undefined });
      expectObservable(bucket.take()).toBe('100ms (x|)', { x: undefined });
      expectObservable(bucket.take()).toBe('200ms (x|)', { x: undefined });
      expectObservable(bucket.take()).toBe('300ms (x|)', { x: undefined });
    });
  });

  it('should refill while idle, but never beyond the burst', () => {
    const ts = testScheduler();
    let granted: number[] = [];
    ts.run(({ flush }) => {
      granted = grants(ts, tokenBucket({ qps: 10, burst: 2 }, ts), [0, 0, 1000, 1000, 1000, 1000]);
      flush();
    });
    expect(granted).toEqual([0, 0, 1000, 1000, 1100, 1200]);
  });

  it('should give the token back when a waiting caller unsubscribes', () => {
    const ts = testScheduler();
    ts.run(({ expectObservable }) => {
      const bucket = tokenBucket({ qps: 10, burst: 1 }, ts);
      expectObservable(bucket.take()).toBe('(x|)', { x: undefined });
      // Waits for the 100 ms slot, gives up at 50 ms: the next caller gets that slot.
      expectObservable(bucket.take(), '^ 49ms !').toBe('');
      ts.schedule(() => {
        const grantedAt: number[] = [];
        bucket.take().subscribe(() => grantedAt.push(ts.now()));
        ts.schedule(() => {
          expect(grantedAt).toEqual([100]);
        }, 60);
      }, 60);
    });
  });
});

describe('rate limiting in the sinks', () => {
  it('should be off by default', () => {
    const ts = testScheduler();
    const sent: number[] = [];
    ts.run(({ cold, hot, expectObservable }) => {
      const ctx = ctxOf(ts, { a: timedApplies(ts, '(a|)', sent, cold) });
      const writes = hot('(abcd)', { a: write('a', '1'), b: write('a', '2'), c: write('a', '3'), d: write('a', '4') });
      expectObservable(writes.pipe(applyEach(ctx, { concurrency: 10 }))).toBe('(abcd)', {
        a: expect.anything() as unknown,
        b: expect.anything() as unknown,
        c: expect.anything() as unknown,
        d: expect.anything() as unknown,
      });
    });
    expect(sent).toEqual([0, 0, 0, 0]);
  });

  it('should space one cluster by its bucket and leave another cluster alone', () => {
    const ts = testScheduler();
    const sentA: number[] = [];
    const sentB: number[] = [];
    ts.run(({ cold, hot, flush }) => {
      const ctx = ctxOf(ts, { a: timedApplies(ts, '(a|)', sentA, cold), b: timedApplies(ts, '(a|)', sentB, cold) }, { rateLimit: { qps: 10, burst: 1 } });
      hot('(abcde)', { a: write('a', '1'), b: write('a', '2'), c: write('a', '3'), d: write('b', '1'), e: write('b', '2') })
        .pipe(applyEach(ctx, { concurrency: 10 }))
        .subscribe();
      flush();
    });
    expect(sentA).toEqual([0, 100, 200]);
    expect(sentB).toEqual([0, 100]);
  });
});

describe('Retry-After', () => {
  function throttled(ts: TestScheduler, answers: Either<KubeError, KubeObject>[], sent: number[]) {
    return fakeClient({
      apply: () =>
        defer((): Observable<Either<KubeError, KubeObject>> => {
          sent.push(ts.now());
          return of(answers.shift() ?? E.right(obj('x', '2')));
        }),
    });
  }

  it("should retry a 429 after the server's Retry-After and count the attempt", () => {
    const ts = testScheduler();
    const sent: number[] = [];
    ts.run(({ expectObservable }) => {
      const ctx = ctxOf(ts, { a: throttled(ts, [E.left(err('TooManyRequests', 'a', { code: 429, retryAfterSeconds: 2 }))], sent) });
      expectObservable(apply(ctx, write('a', 'x'))).toBe('2000ms (x|)', { x: E.right(expect.objectContaining({ attempts: 2, changed: true })) });
    });
    expect(sent).toEqual([0, 2000]);
  });

  it('should give up after the configured attempts and report the 429 as a value', () => {
    const ts = testScheduler();
    const sent: number[] = [];
    const tooMany = () => E.left<KubeError, KubeObject>(err('TooManyRequests', 'a', { code: 429 }));
    ts.run(({ expectObservable }) => {
      const ctx = ctxOf(ts, { a: throttled(ts, [tooMany(), tooMany(), tooMany(), tooMany()], sent) }, { retryAfter: { attempts: 3, backoff: { initialMs: 500 } } });
      expectObservable(apply(ctx, write('a', 'x'))).toBe('1000ms (x|)', {
        x: E.left(expect.objectContaining({ type: 'TooManyRequests', attempts: 3, verb: 'apply' })),
      });
    });
    // No Retry-After header: the default delay is used.
    expect(sent).toEqual([0, 500, 1000]);
  });

  it("should cap a long Retry-After at the backoff's maxMs", () => {
    const ts = testScheduler();
    const sent: number[] = [];
    ts.run(({ flush }) => {
      const ctx = ctxOf(ts, { a: throttled(ts, [E.left(err('TooManyRequests', 'a', { code: 429, retryAfterSeconds: 3600 }))], sent) }, { retryAfter: { backoff: { maxMs: 5000 } } });
      apply(ctx, write('a', 'x')).subscribe();
      flush();
    });
    expect(sent).toEqual([0, 5000]);
  });
});

describe('applyEach', () => {
  it('should keep at most `concurrency` writes in flight and emit as they finish', () => {
    const ts = testScheduler();
    const sent: number[] = [];
    ts.run(({ cold, hot, expectObservable }) => {
      const ctx = ctxOf(ts, { a: timedApplies(ts, '----------(a|)', sent, cold) });
      const writes = hot('(abcde)', { a: write('a', '1'), b: write('a', '2'), c: write('a', '3'), d: write('a', '4'), e: write('a', '5') });
      const done = (name: string) => E.right(expect.objectContaining({ key: objectKey(clusterName('a'), 'default', name) }));
      expectObservable(writes.pipe(applyEach(ctx, { concurrency: 2 }))).toBe('10ms (ab) 6ms (cd) 6ms e', {
        a: done('1'),
        b: done('2'),
        c: done('3'),
        d: done('4'),
        e: done('5'),
      });
    });
    expect(sent).toEqual([0, 0, 10, 10, 20]);
  });

  it('should turn failures into values and keep writing to the other clusters', () => {
    const ts = testScheduler();
    ts.run(({ cold, hot, expectObservable }) => {
      const forbidden = fakeClient({ apply: () => cold('-(a|)', { a: E.left(err('Forbidden', 'limited', { code: 403 })) }) });
      const ctx = ctxOf(ts, { ok: timedApplies(ts, '-(a|)', [], cold), limited: forbidden, broken: throwingClient() });
      const writes = hot('a-b-c-d-e-|', { a: write('ok', '1'), b: write('gone', '1'), c: write('limited', '1'), d: write('broken', '1'), e: write('ok', '2') });
      expectObservable(writes.pipe(applyEach(ctx))).toBe('-ab--cd--e|', {
        a: E.right(expect.objectContaining({ cluster: 'ok' })),
        b: E.left(expect.objectContaining({ type: 'NotEngaged', cluster: 'gone', message: expect.stringContaining('cluster "gone"') as unknown })),
        c: E.left(expect.objectContaining({ type: 'Forbidden', cluster: 'limited', code: 403 })),
        d: E.left(expect.objectContaining({ type: 'Unknown', cluster: 'broken', message: expect.stringContaining('socket exploded') as unknown })),
        e: E.right(expect.objectContaining({ cluster: 'ok' })),
      });
    });
  });
});

describe('apply and status results', () => {
  it('should report no change when the resourceVersion did not move, without reading when `current` is given', () => {
    const ts = testScheduler();
    ts.run(({ expectObservable }) => {
      const client = fakeClient({ apply: () => of(E.right<KubeError, KubeObject>(obj('x', '7'))) });
      const ctx = ctxOf(ts, { a: client });
      expectObservable(apply(ctx, { ...write('a', 'x'), current: obj('x', '7') })).toBe('(x|)', { x: E.right(expect.objectContaining({ changed: false, attempts: 1 })) });
      expectObservable(apply(ctx, { ...write('a', 'x'), current: obj('x', '6') })).toBe('(x|)', { x: E.right(expect.objectContaining({ changed: false })) });
      expectObservable(apply(ctx, { ...write('a', 'x'), current: { ...obj('x', '6'), data: { k: 'old' } } })).toBe('(x|)', {
        x: E.right(expect.objectContaining({ changed: true })),
      });
    });
  });

  it('should report no change only from what it knew: `current`, or a read asked for with `readFirst`', () => {
    const ts = testScheduler();
    const calls: string[] = [];
    ts.run(({ expectObservable }) => {
      const client = fakeClient({
        get: () => (calls.push('get'), of(E.right<KubeError, KubeObject>(obj('x', '7')))),
        apply: () => (calls.push('apply'), of(E.right<KubeError, KubeObject>(obj('x', '7')))),
      });
      const { current: _c, ...w } = write('a', 'x');
      expectObservable(apply(ctxOf(ts, { a: client }), w)).toBe('(x|)', { x: E.right(expect.objectContaining({ changed: 'unknown' })) });
      expectObservable(apply(ctxOf(ts, { a: client }), { ...w, readFirst: true })).toBe('(x|)', { x: E.right(expect.objectContaining({ changed: false })) });
    });
    expect(calls).toEqual(['apply', 'get', 'apply']);
  });

  it('should tell a missing status subresource from a missing object by the 404 alone', () => {
    const ts = testScheduler();
    ts.run(({ expectObservable }) => {
      const key = objectKey(clusterName('a'), 'default', 'x');
      // The router's 404 names nothing; a missing object's Status names it (details.name).
      const noSubresource = fakeClient({ patch: () => of(E.left(err('NotFound', 'a', { code: 404 }))) });
      const missing = fakeClient({ patch: () => of(E.left(err('NotFound', 'a', { code: 404, details: { name: 'x', kind: 'configmaps' } }))) });
      expectObservable(patch(ctxOf(ts, { a: noSubresource }), { key, resource: configMaps, subresource: 'status', patch: { status: { ok: true } } })).toBe('(x|)', {
        x: E.left(expect.objectContaining({ type: 'NoStatusSubresource', code: 404, message: expect.stringContaining('configmaps has no status subresource') as unknown })),
      });
      expectObservable(patch(ctxOf(ts, { a: missing }), { key, resource: configMaps, subresource: 'status', patch: { status: { ok: true } } })).toBe('(x|)', {
        x: E.left(expect.objectContaining({ type: 'NotFound', attempts: 1 })),
      });
    });
  });
});
