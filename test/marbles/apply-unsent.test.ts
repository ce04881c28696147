// `apply` with a cache, in virtual time: what it leaves unsent, what it still sends (a cache older
// than its own last apply, no cache, a dry run), and how long it waits for a cache to list.
import type { Observable } from 'rxjs';
import { defer, NEVER, of } from 'rxjs';
import type { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import { E } from '../../src/fp/index.js';
import type { ConfigMap, KubeError, KubeObject } from '../../src/index.js';
import { clusterName, configMaps } from '../../src/index.js';
import type { Either } from '../../src/internal/fp.js';
import type { SinkCache, WriteOutcome } from '../../src/sinks/index.js';
import { apply, sinkContext } from '../../src/sinks/index.js';
import { atLeast } from '../../src/sinks/apply-cache.js';
import { fakeClient, fakeFleet } from './sinks-fake.js';
import { testScheduler } from '../support/marbles.js';

const east = clusterName('east');
const FM = 'ctl';
const desired = { metadata: { name: 'a', namespace: 'default' }, data: { k: 'v' } };
const cached = (rv: string, k = 'v'): ConfigMap => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'a', namespace: 'default', resourceVersion: rv, managedFields: [{ manager: FM, operation: 'Apply', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:k': {} } } }] },
  data: { k },
});

function setup(ts: TestScheduler, cache: SinkCache | undefined, answerRv = '12') {
  const calls: string[] = [];
  const unsent: string[] = [];
  const client = fakeClient({
    apply: () =>
      defer((): Observable<Either<KubeError, KubeObject>> => {
        calls.push('apply');
        return of(E.right(cached(answerRv)));
      }),
  });
  const ctx = sinkContext({ clusters: fakeFleet({ east: client }), fieldManager: FM, scheduler: ts, ...(cache === undefined ? {} : { cache }), onUnsent: (c, verb) => unsent.push(`${c}/${verb}`) });
  return { ctx, calls, unsent };
}
const write = { cluster: east, resource: configMaps, object: desired };
const outcome = (fields: object) => ({ x: E.right(expect.objectContaining(fields)) as WriteOutcome });

describe('apply with a cache', () => {
  it('sends nothing when the cache proves nothing would change, and says so', () => {
    const ts = testScheduler();
    const s = setup(ts, { get: () => cached('10') as never });
    ts.run(({ expectObservable }) => {
      expectObservable(apply(s.ctx, write)).toBe('(x|)', outcome({ changed: false, sent: false, attempts: 0, object: cached('10') }));
    });
    expect(s.calls).toEqual([]);
    expect(s.unsent).toEqual(['east/apply']);
  });

  it('sends when the cache differs, has no object, or the write is a dry run', () => {
    const ts = testScheduler();
    const drifted = setup(ts, { get: () => cached('10', 'drifted') as never });
    const empty = setup(ts, { get: () => undefined });
    const dry = setup(ts, { get: () => cached('10') as never });
    const none = setup(ts, undefined);
    ts.run(({ expectObservable }) => {
      expectObservable(apply(drifted.ctx, write)).toBe('(x|)', outcome({ sent: true, attempts: 1 }));
      expectObservable(apply(empty.ctx, write)).toBe('(x|)', outcome({ sent: true }));
      expectObservable(apply(dry.ctx, { ...write, dryRun: true })).toBe('(x|)', outcome({ sent: true, dryRun: true }));
      expectObservable(apply(none.ctx, write)).toBe('(x|)', outcome({ sent: true }));
    });
    expect([drifted.calls, empty.calls, dry.calls, none.calls]).toEqual([['apply'], ['apply'], ['apply'], ['apply']]);
    expect([...drifted.unsent, ...empty.unsent, ...dry.unsent, ...none.unsent]).toEqual([]);
  });

  it('sends again while the cache has not seen its own last apply, and not once it has', () => {
    const ts = testScheduler();
    let inCache: ConfigMap = cached('10', 'old');
    const s = setup(ts, { get: () => inCache as never }, '12');
    ts.run(({ expectObservable }) => {
      // Sent (the cache differs); the server answers resourceVersion 12.
      expectObservable(apply(s.ctx, write)).toBe('(x|)', outcome({ sent: true }));
    });
    // The cache shows the wanted state, but older than the apply just sent: it may be stale.
    inCache = cached('11');
    ts.run(({ expectObservable }) => {
      expectObservable(apply(s.ctx, write)).toBe('(x|)', outcome({ sent: true }));
    });
    inCache = cached('12');
    ts.run(({ expectObservable }) => {
      expectObservable(apply(s.ctx, write)).toBe('(x|)', outcome({ sent: false }));
    });
    expect(s.calls).toEqual(['apply', 'apply']);
  });

  it('waits for a cache that has not listed, then decides from it', () => {
    const ts = testScheduler();
    let listedYet = false;
    ts.run(({ cold, expectObservable }) => {
      const s = setup(ts, { get: () => (listedYet ? (cached('10') as never) : undefined), listed: () => cold('---l') });
      // Listed after 3 ms: then the cache holds the object and proves it.
      ts.schedule(() => {
        listedYet = true;
      }, 2);
      expectObservable(apply(s.ctx, write)).toBe('---(x|)', outcome({ sent: false }));
    });
  });

  it('waits at most 10 s for a cache that never lists, then sends', () => {
    const ts = testScheduler();
    ts.run(({ expectObservable }) => {
      const s = setup(ts, { get: () => undefined, listed: () => NEVER });
      expectObservable(apply(s.ctx, write)).toBe('10s (x|)', outcome({ sent: true }));
    });
  });

  it('compares resourceVersions as decimal revisions, and proves nothing with any other', () => {
    expect([atLeast('10', '9'), atLeast('9', '10'), atLeast('12', '12'), atLeast('123', '124')]).toEqual([true, false, true, false]);
    expect([atLeast(undefined, '1'), atLeast('0x1', '1'), atLeast('01', '1'), atLeast('5', 'unknown')]).toEqual([undefined, undefined, undefined, undefined]);
  });
});
