// A watch torn down in the same turn as its last line (a 410 ERROR event the server ends the
// response with, as kube-apiserver does) must not destroy a socket already back in the agent's
// pool with an error nobody listens to: that was an uncaught exception, fatal to a controller.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { catchError, concatMap, defaultIfEmpty, firstValueFrom, throwError } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClusterClient } from '../../src/client/index.js';
import { E } from '../../src/fp/index.js';
import { clusterName, configMaps } from '../../src/index.js';

const gone = JSON.stringify({ type: 'ERROR', object: { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Expired', code: 410, message: 'too old resource version' } });
let server: http.Server;
let url = '';
let received = 0;

beforeAll(async () => {
  server = http.createServer((_req, res) => {
    received += 1;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(`${gone}\n`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});

describe('transport teardown', () => {
  it('ends a watch on its ERROR line twenty times in a row without an uncaught error', async () => {
    const uncaught: unknown[] = [];
    const onUncaught = (e: unknown): void => {
      uncaught.push(e);
    };
    process.on('uncaughtException', onUncaught);
    const yaml = JSON.stringify({ apiVersion: 'v1', kind: 'Config', clusters: [{ name: 'c', cluster: { server: url, 'insecure-skip-tls-verify': true } }], users: [{ name: 'u', user: {} }], contexts: [{ name: 'c', context: { cluster: 'c', user: 'u' } }], 'current-context': 'c' });
    const c = createClusterClient(clusterName('teardown'), { yaml });
    if (E.isLeft(c)) throw new Error(c.left.message);
    const ended: string[] = [];
    for (let i = 0; i < 20; i++) {
      // The first line ends the stream (as the watch machine does with an ERROR event), synchronously.
      const r = await firstValueFrom(
        c.right.watch(configMaps, { namespace: 'default', resourceVersion: '1' }).pipe(
          concatMap((line) => throwError(() => new Error(line.slice(0, 20)))),
          catchError((e: unknown) => [String(e)]),
          defaultIfEmpty('completed'),
        ),
      );
      ended.push(r);
    }
    // A request after them, over the same pool: the error of a pooled socket destroyed by a teardown
    // is emitted on the next tick, long before this round trip is done.
    await c.right.raw({ method: 'GET', path: '/version' });
    process.off('uncaughtException', onUncaught);
    c.right.close();
    expect(ended.filter((e) => e.startsWith('Error: {"type":"ERROR"'))).toHaveLength(20);
    expect(uncaught).toEqual([]);
  });

  it('sends nothing for a watch unsubscribed before its request left, and a request aborted before it was sent', async () => {
    const yaml = JSON.stringify({ apiVersion: 'v1', kind: 'Config', clusters: [{ name: 'c', cluster: { server: url, 'insecure-skip-tls-verify': true } }], users: [{ name: 'u', user: {} }], contexts: [{ name: 'c', context: { cluster: 'c', user: 'u' } }], 'current-context': 'c' });
    const c = createClusterClient(clusterName('early'), { yaml });
    if (E.isLeft(c)) throw new Error(c.left.message);
    const before = received;
    for (let i = 0; i < 5; i++) c.right.watch(configMaps, { namespace: 'default' }).subscribe().unsubscribe();
    const aborted = AbortSignal.abort();
    const r = await c.right.raw({ method: 'GET', path: '/version', signal: aborted });
    // A request that did go out, after them: the server has seen whatever was sent before it.
    await c.right.raw({ method: 'GET', path: '/version' });
    c.right.close();
    expect(E.isLeft(r) && r.left.message).toMatch(/aborted/);
    expect(received - before).toBe(1);
  });
});
