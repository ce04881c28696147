// Conflict retry of `update` and the finalizer sinks, in virtual time: spacing, jitter bounds,
// attempt counts, re-reading before each retry, and the refusals.
import type { Observable } from 'rxjs';
import { defer, of } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import { E } from '../../src/fp/index.js';
import type { ConfigMap, KubeError, KubeObject } from '../../src/index.js';
import { clusterName, configMaps, objectKey } from '../../src/index.js';
import type { Either } from '../../src/internal/fp.js';
import type { SinkContextOptions } from '../../src/sinks/index.js';
import { ensureFinalizer, removeFinalizer, sinkContext, update } from '../../src/sinks/index.js';
import { backoffDelay } from '../../src/streams/backoff.js';
import { err, fakeClient, fakeFleet } from './sinks-fake.js';
import { testScheduler } from '../support/marbles.js';

const key = objectKey(clusterName('east'), 'default', 'counter');
const cm = (rv: number, n: number, meta: Partial<KubeObject['metadata']> = {}): ConfigMap => ({
  metadata: { name: 'counter', namespace: 'default', resourceVersion: String(rv), uid: 'u-1', ...meta },
  data: { n: String(n) },
});
const bump = (c: { data?: Record<string, string> }): void => {
  c.data = { n: String(Number(c.data?.n ?? '0') + 1) };
};


/** A server holding one object: reads answer at once; writes fail with Conflict `conflicts` times, then succeed. */
function conflictingServer(ts: TestScheduler, conflicts: number, start: ConfigMap = cm(1, 0)) {
  let current = start;
  const reads: number[] = [];
  const writes: { at: number; obj: KubeObject }[] = [];
  let left = conflicts;
  const client = fakeClient({
    get: () =>
      defer(() => {
        reads.push(ts.now());
        return of(E.right(current));
      }),
    update: (obj) =>
      defer((): Observable<Either<KubeError, KubeObject>> => {
        writes.push({ at: ts.now(), obj });
        if (left > 0) {
          left -= 1;
          // Someone else wrote in between: the next read sees a newer object.
          const rv = String(Number(current.metadata.resourceVersion) + 1);
          current = { ...current, metadata: { ...current.metadata, resourceVersion: rv }, data: { n: String(Number(current.data?.n ?? 0) + 10) } };
          return of(E.left(err('Conflict', 'east', { code: 409 })));
        }
        current = { ...(obj as ConfigMap), metadata: { ...obj.metadata, resourceVersion: String(Number(obj.metadata.resourceVersion) + 1) } };
        return of(E.right(current));
      }),
  });
  return { client, reads, writes };
}

function ctxWith(ts: TestScheduler, client: ReturnType<typeof fakeClient>, extra: Partial<SinkContextOptions> = {}) {
  return sinkContext({ clusters: fakeFleet({ east: client }), fieldManager: 'test', scheduler: ts, random: () => 0.5, ...extra });
}

describe('update', () => {
  it('should retry a Conflict 5 times by default, 10 ms apart with jitter, then report the Conflict with its attempts', () => {
    const ts = testScheduler();
    const server = conflictingServer(ts, 100);
    ts.run(({ expectObservable }) => {
      const ctx = ctxWith(ts, server.client);
      // random 0.5 → each wait is 10 × (1 − 0.1 + 0.1 × 0.5) = 9.5 ms; 4 waits between 5 attempts.
      expectObservable(update(ctx, { key, resource: configMaps, recipe: bump })).toBe('38ms (x|)', {
        x: E.left(expect.objectContaining({ type: 'Conflict', attempts: 5, verb: 'update', key })),
      });
    });
    expect(server.writes.map((w) => w.at)).toEqual([0, 9.5, 19, 28.5, 38]);
    expect(server.reads).toEqual([0, 9.5, 19, 28.5, 38]);
  });

  it('should re-read and re-apply the recipe to the latest object after each Conflict', () => {
    const ts = testScheduler();
    const server = conflictingServer(ts, 2);
    let outcome: unknown;
    ts.run(({ flush }) => {
      update(ctxWith(ts, server.client), { key, resource: configMaps, recipe: bump }).subscribe((o) => (outcome = o));
      flush();
    });
    // Two other writers each added 10 before our third attempt landed: 0 → 10 → 20 → ours: 21.
    expect(server.writes.map((w) => (w.obj as ConfigMap).data?.n)).toEqual(['1', '11', '21']);
    expect(server.writes.map((w) => w.obj.metadata.resourceVersion)).toEqual(['1', '2', '3']);
    expect(outcome).toMatchObject({ _tag: 'Right', right: { changed: true, attempts: 3, verb: 'update', object: { data: { n: '21' } } } });
  });

  it('should take the number of attempts and the spacing from the context', () => {
    const ts = testScheduler();
    const server = conflictingServer(ts, 100);
    ts.run(({ flush }) => {
      update(ctxWith(ts, server.client, { conflictRetry: { attempts: 3, backoff: { initialMs: 100, maxMs: 100, jitter: 0 } } }), { key, resource: configMaps, recipe: bump }).subscribe();
      flush();
    });
    expect(server.writes.map((w) => w.at)).toEqual([0, 100, 200]);
  });

  it('should keep every jittered wait within [maxMs × (1 − jitter), maxMs]', () => {
    const ts = testScheduler();
    const server = conflictingServer(ts, 100);
    ts.run(({ flush }) => {
      update(ctxWith(ts, server.client, { random: Math.random, conflictRetry: { attempts: 50 } }), { key, resource: configMaps, recipe: bump }).subscribe();
      flush();
    });
    const gaps = server.writes.slice(1).map((w, i) => w.at - (server.writes[i]?.at ?? 0));
    expect(gaps).toHaveLength(49);
    for (const g of gaps) {
      expect(g).toBeGreaterThanOrEqual(9);
      expect(g).toBeLessThanOrEqual(10);
    }
    const { backoff } = ctxWith(ts, server.client).conflictRetry;
    expect(backoffDelay(backoff, 0, () => 0)).toBe(9);
    expect(backoffDelay(backoff, 7, () => 0.999999)).toBeCloseTo(9.99999, 4);
  });

  it('should write nothing and report no change when the recipe changes nothing', () => {
    const ts = testScheduler();
    const server = conflictingServer(ts, 0);
    ts.run(({ expectObservable }) => {
      expectObservable(update(ctxWith(ts, server.client), { key, resource: configMaps, recipe: () => undefined })).toBe('(x|)', {
        x: E.right(expect.objectContaining({ changed: false, attempts: 0, verb: 'update' })),
      });
    });
    expect(server.writes).toEqual([]);
  });

  it('should report a recipe that throws as RecipeFailed instead of erroring', () => {
    const ts = testScheduler();
    const server = conflictingServer(ts, 0);
    ts.run(({ expectObservable }) => {
      const recipe = (): void => {
        throw new Error('bad recipe');
      };
      expectObservable(update(ctxWith(ts, server.client), { key, resource: configMaps, recipe })).toBe('(x|)', {
        x: E.left(expect.objectContaining({ type: 'RecipeFailed', message: expect.stringContaining('bad recipe') as unknown })),
      });
    });
  });

  it('should report a missing object as NotFound without writing', () => {
    const ts = testScheduler();
    const client = fakeClient({ get: () => of(E.left(err('NotFound', 'east', { code: 404 }))) });
    ts.run(({ expectObservable }) => {
      expectObservable(update(ctxWith(ts, client), { key, resource: configMaps, recipe: bump })).toBe('(x|)', {
        x: E.left(expect.objectContaining({ type: 'NotFound', attempts: 0 })),
      });
    });
  });
});

describe('finalizers', () => {
  const finalizer = 'test.rxfleet.dev/cleanup';

  it('should refuse to add a finalizer to an object with a deletionTimestamp, without writing', () => {
    const ts = testScheduler();
    const server = conflictingServer(ts, 0, cm(5, 0, { deletionTimestamp: '2026-01-01T00:00:00Z', finalizers: ['other/x'] }));
    ts.run(({ expectObservable }) => {
      expectObservable(ensureFinalizer(ctxWith(ts, server.client), { key, resource: configMaps, finalizer })).toBe('(x|)', {
        x: E.left(expect.objectContaining({ type: 'Terminating', verb: 'update', attempts: 0 })),
      });
    });
    expect(server.writes).toEqual([]);
  });

  it('should re-check the deletionTimestamp on the re-read after a Conflict', () => {
    const ts = testScheduler();
    let reads = 0;
    const client = fakeClient({
      get: () => of(E.right(reads++ === 0 ? cm(1, 0) : cm(2, 0, { deletionTimestamp: '2026-01-01T00:00:00Z', finalizers: ['other/x'] }))),
      update: () => of(E.left(err('Conflict', 'east', { code: 409 }))),
    });
    ts.run(({ expectObservable }) => {
      expectObservable(ensureFinalizer(ctxWith(ts, client), { key, resource: configMaps, finalizer })).toBe('9.5ms (x|)', {
        x: E.left(expect.objectContaining({ type: 'Terminating', attempts: 1 })),
      });
    });
  });

  it('should add a finalizer once and report no change when it is already there', () => {
    const ts = testScheduler();
    const server = conflictingServer(ts, 0, cm(1, 0, { finalizers: ['other/x'] }));
    const outcomes: unknown[] = [];
    ts.run(({ flush }) => {
      const ctx = ctxWith(ts, server.client);
      ensureFinalizer(ctx, { key, resource: configMaps, finalizer }).subscribe((o) => outcomes.push(o));
      flush();
      ensureFinalizer(ctx, { key, resource: configMaps, finalizer }).subscribe((o) => outcomes.push(o));
      flush();
    });
    expect(server.writes.map((w) => w.obj.metadata.finalizers)).toEqual([['other/x', finalizer]]);
    expect(outcomes).toMatchObject([{ right: { changed: true, attempts: 1 } }, { right: { changed: false, attempts: 0 } }]);
  });

  it('should remove only its own finalizer, and treat a missing object as done', () => {
    const ts = testScheduler();
    const server = conflictingServer(ts, 1, cm(1, 0, { finalizers: ['a/x', finalizer, 'b/y'] }));
    const gone = fakeClient({ get: () => of(E.left(err('NotFound', 'east', { code: 404 }))) });
    ts.run(({ expectObservable }) => {
      expectObservable(removeFinalizer(ctxWith(ts, server.client), { key, resource: configMaps, finalizer })).toBe('9.5ms (x|)', {
        x: E.right(expect.objectContaining({ changed: true, attempts: 2 })),
      });
      expectObservable(removeFinalizer(ctxWith(ts, gone), { key, resource: configMaps, finalizer })).toBe('(x|)', {
        x: E.right(expect.objectContaining({ changed: false, object: undefined })),
      });
    });
    expect(server.writes.map((w) => w.obj.metadata.finalizers)).toEqual([
      ['a/x', 'b/y'],
      ['a/x', 'b/y'],
    ]);
  });
});
