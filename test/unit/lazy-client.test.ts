// lazyClient: a cluster's client made on its first request (a kcp workspace served by shared
// watches sends none), closed correctly whether or not it was ever made.
import { describe, expect, it } from 'vitest';
import { firstValueFrom, of, toArray } from 'rxjs';
import type { ClusterClient } from '../../src/client/index.js';
import { kubeError } from '../../src/client/index.js';
import { lazyClient } from '../../src/client/lazy-client.js';
import { clusterName, namespaces } from '../../src/index.js';
import { E } from '../../src/fp/index.js';

const name = clusterName('ws');
/** A fake client that records its calls and answers NotEngaged once closed. */
function fake(log: string[]): ClusterClient {
  let closed = false;
  const answer = (what: string): Promise<E.Either<never, never>> => {
    log.push(closed ? `${what} (closed)` : what);
    return Promise.resolve(closed ? (E.left(kubeError('NotEngaged', name, 'closed')) as never) : (E.right({}) as never));
  };
  const c: ClusterClient = {
    cluster: name,
    server: 'https://x/clusters/ws',
    get: async () => answer('get'),
    list: async () => answer('list'),
    listAll: async () => answer('listAll'),
    watch: () => {
      log.push('watch');
      return of('line');
    },
    create: async () => answer('create'),
    update: async () => answer('update'),
    apply: async () => answer('apply'),
    patch: async () => answer('patch'),
    delete: async () => answer('delete'),
    raw: async () => answer('raw'),
    close: () => {
      closed = true;
      log.push('close');
    },
  };
  return c;
}

describe('lazyClient', () => {
  it('makes its client on the first request, once, and sends every request through it', async () => {
    const log: string[] = [];
    let made = 0;
    const c = lazyClient(name, 'https://x/clusters/ws', () => {
      made++;
      return E.right(fake(log));
    });
    expect(c.cluster).toBe(name);
    expect(c.server).toBe('https://x/clusters/ws');
    expect(made).toBe(0);
    expect(E.isRight(await c.get(namespaces, 'default'))).toBe(true);
    expect(await firstValueFrom(c.watch(namespaces).pipe(toArray()))).toEqual(['line']);
    expect(E.isRight(await c.list(namespaces))).toBe(true);
    c.close();
    expect(made).toBe(1);
    expect(log).toEqual(['get', 'watch', 'list', 'close']);
  });

  it('closed before any request makes nothing; a request after close gets the closed answer', async () => {
    const log: string[] = [];
    let made = 0;
    const c = lazyClient(name, 'https://x/clusters/ws', () => {
      made++;
      return E.right(fake(log));
    });
    c.close();
    expect(made).toBe(0);
    const r = await c.get(namespaces, 'default');
    expect(E.isLeft(r) && r.left.type).toBe('NotEngaged');
    expect(log).toEqual(['close', 'get (closed)']);
  });

  it('answers every request with the error of a make that failed', async () => {
    const failed = kubeError('InvalidConfig', name, 'invalid server URL');
    const c = lazyClient(name, 'bad', () => E.left(failed));
    expect(await c.get(namespaces, 'default')).toEqual(E.left(failed));
    await expect(firstValueFrom(c.watch(namespaces))).rejects.toBe(failed);
  });

  it('serves methods read off it (detached) and off a spread copy, as any client does', async () => {
    const log: string[] = [];
    let made = 0;
    const c = lazyClient(name, 'https://x/clusters/ws', () => (made++, E.right(fake(log))));
    // eslint-disable-next-line @typescript-eslint/unbound-method -- detaching is what this test proves works
    const { get, close } = c;
    const copy = { ...c };
    expect(await get(namespaces, 'default')).toEqual(E.right({}));
    expect(await copy.list(namespaces)).toEqual(E.right({}));
    close();
    expect(await copy.get(namespaces, 'default')).toEqual(E.left(kubeError('NotEngaged', name, 'closed')));
    expect(made).toBe(1);
    expect(log).toEqual(['get', 'list', 'close', 'get (closed)']);
  });
});
