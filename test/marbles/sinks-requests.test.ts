// No hidden requests: every sink sends exactly the requests its name says (a read only when the
// caller asks for one, or when a read-modify-write has nothing to start from), and `changed` is
// told from what was known, or reported as 'unknown'. Each test counts the calls on a fake client.
import type { Observable } from 'rxjs';
import { defer, of } from 'rxjs';
import type { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import { E } from '../../src/fp/index.js';
import type { ConfigMap, KubeError, KubeObject } from '../../src/index.js';
import { clusterName, configMaps, objectKey } from '../../src/index.js';
import type { Either } from '../../src/internal/fp.js';
import type { WriteOutcome } from '../../src/sinks/index.js';
import { apply, create, ensureFinalizer, patch, deleteObject, removeFinalizer, sinkContext, update } from '../../src/sinks/index.js';
import { err, fakeClient, fakeFleet } from './sinks-fake.js';
import { testScheduler } from '../support/marbles.js';

const east = clusterName('east');
const key = objectKey(east, 'default', 'a');
const cm = (rv: string, data: Record<string, string> = { k: 'v' }, meta: Partial<KubeObject['metadata']> = {}): ConfigMap => ({
  metadata: { name: 'a', namespace: 'default', resourceVersion: rv, ...meta },
  data,
});

/** A fake server holding one ConfigMap at `rv`, recording every call by method. */
function server(stored: ConfigMap) {
  const calls: string[] = [];
  let current = stored;
  const answer = (method: string, result: () => Either<KubeError, KubeObject>): Observable<Either<KubeError, KubeObject>> =>
    defer(() => {
      calls.push(method);
      return of(result());
    });
  const client = fakeClient({
    get: () => answer('get', () => E.right(current)),
    apply: () => answer('apply', () => E.right(current)),
    patch: () => answer('patch', () => E.right(current)),
    create: (o) => answer('create', () => E.right({ ...o, metadata: { ...o.metadata, resourceVersion: '1' } })),
    delete: () => answer('delete', () => E.right(current)),
    update: (o) =>
      answer('update', () => {
        // A PUT with another resourceVersion than the stored one is refused, as the server does.
        if (o.metadata.resourceVersion !== current.metadata.resourceVersion) return E.left(err('Conflict', 'east', { code: 409 }));
        current = { ...(o as ConfigMap), metadata: { ...o.metadata, resourceVersion: String(Number(o.metadata.resourceVersion) + 1) } };
        return E.right(current);
      }),
  });
  return { client, calls };
}

function ctxOf(ts: TestScheduler, client: ReturnType<typeof fakeClient>) {
  return sinkContext({ clusters: fakeFleet({ east: client }), fieldManager: 'test', scheduler: ts, random: () => 0 });
}

const changedIs = (changed: boolean | 'unknown') => ({ x: E.right(expect.objectContaining({ changed })) as WriteOutcome });
const desired = { metadata: { name: 'a', namespace: 'default' }, data: { k: 'v' } };

describe('apply, of the object and of its status', () => {
  it('should send one PATCH and nothing else, reporting changed as unknown when nothing was known', () => {
    const ts = testScheduler();
    const s = server(cm('7'));
    ts.run(({ expectObservable }) => {
      expectObservable(apply(ctxOf(ts, s.client), { cluster: east, resource: configMaps, object: desired })).toBe('(x|)', {
        x: E.right(expect.objectContaining({ changed: 'unknown', attempts: 1, object: cm('7') })),
      });
    });
    expect(s.calls).toEqual(['apply']);
  });

  it('should tell changed from `current`: null is a create, the same resourceVersion is a no-op, other content a change', () => {
    const ts = testScheduler();
    const s = server(cm('7'));
    ts.run(({ expectObservable }) => {
      const ctx = ctxOf(ts, s.client);
      const w = { cluster: east, resource: configMaps, object: desired };
      expectObservable(apply(ctx, { ...w, current: null })).toBe('(x|)', changedIs(true));
      expectObservable(apply(ctx, { ...w, current: cm('7') })).toBe('(x|)', changedIs(false));
      expectObservable(apply(ctx, { ...w, current: cm('6', { k: 'old' }) })).toBe('(x|)', changedIs(true));
      expectObservable(apply(ctx, { ...w, current: cm('7'), subresource: 'status' })).toBe('(x|)', changedIs(false));
    });
    expect(s.calls).toEqual(['apply', 'apply', 'apply', 'apply']);
  });

  it('should read first only when asked with `readFirst`', () => {
    const ts = testScheduler();
    const s = server(cm('7'));
    ts.run(({ expectObservable }) => {
      expectObservable(apply(ctxOf(ts, s.client), { cluster: east, resource: configMaps, object: desired, readFirst: true })).toBe('(x|)', changedIs(false));
    });
    expect(s.calls).toEqual(['get', 'apply']);
  });
});

describe('patch of status, create, delete', () => {
  it('should each send the one request their name says', () => {
    const ts = testScheduler();
    const s = server(cm('7'));
    ts.run(({ expectObservable }) => {
      const ctx = ctxOf(ts, s.client);
      expectObservable(patch(ctx, { key, resource: configMaps, subresource: 'status', patch: { status: { ok: true } } })).toBe('(x|)', changedIs('unknown'));
      expectObservable(patch(ctx, { key, resource: configMaps, subresource: 'status', patch: { status: { ok: true } }, current: cm('7') })).toBe('(x|)', changedIs(false));
      expectObservable(create(ctx, { cluster: east, resource: configMaps, object: desired })).toBe('(x|)', changedIs(true));
      expectObservable(deleteObject(ctx, { key, resource: configMaps })).toBe('(x|)', changedIs(true));
    });
    expect(s.calls).toEqual(['patch', 'patch', 'create', 'delete']);
  });
});

describe('update and the finalizer sinks', () => {
  it('should read then write without `current`, and only write with it', () => {
    const ts = testScheduler();
    const s = server(cm('7'));
    const recipe = (c: { data?: Record<string, string> }): void => {
      c.data = { k: 'w' };
    };
    ts.run(({ expectObservable }) => {
      const ctx = ctxOf(ts, s.client);
      expectObservable(update(ctx, { key, resource: configMaps, recipe })).toBe('(x|)', changedIs(true)); // get, update -> rv 8
      expectObservable(update(ctx, { key, resource: configMaps, recipe: () => undefined, current: cm('8') })).toBe('(x|)', changedIs(false)); // nothing
      expectObservable(ensureFinalizer(ctx, { key, resource: configMaps, finalizer: 'x/y', current: cm('8', { k: 'w' }) })).toBe('(x|)', changedIs(true)); // update -> rv 9
      expectObservable(removeFinalizer(ctx, { key, resource: configMaps, finalizer: 'x/y', current: cm('9', { k: 'w' }, { finalizers: ['x/y'] }) })).toBe('(x|)', changedIs(true)); // update
    });
    expect(s.calls).toEqual(['get', 'update', 'update', 'update']);
  });

  it('should recover from a stale `current` with a 409, one read and one more write (9 ms later: 10 ms less 10% jitter)', () => {
    const ts = testScheduler();
    const s = server(cm('7'));
    ts.run(({ expectObservable }) => {
      expectObservable(ensureFinalizer(ctxOf(ts, s.client), { key, resource: configMaps, finalizer: 'x/y', current: cm('5') })).toBe('9ms (x|)', {
        x: E.right(expect.objectContaining({ changed: true, attempts: 2, object: cm('8', { k: 'v' }, { finalizers: ['x/y'] }) })),
      });
    });
    expect(s.calls).toEqual(['update', 'get', 'update']);
  });
});
