// A round's reads (round-reads.ts): each read asked exactly the same way is sent once, and only
// then. A caller's signal is its own: two callers with different signals share one request, one's
// abort ends only its own wait (the other gets the server's answer), and the request is aborted,
// then sent again for a later caller, only once every caller waiting for it aborted. A read with
// another option that is not data (a fence) is not another's; key order does not make two reads.
import { describe, expect, it } from 'vitest';
import type { ClusterClient, HttpRequest } from '../../src/client/index.js';
import { fromTransport } from '../../src/client/index.js';
import { clusterName, customResourceDefinitions } from '../../src/index.js';
import type { KubeError } from '../../src/index.js';
import type { Either } from '../../src/fp/index.js';
import { E } from '../../src/fp/index.js';
import { roundReads } from '../../packages/sync-agent/src/round-reads.js';

type Answer = Either<KubeError, unknown>;
interface Sent {
  readonly req: HttpRequest;
  readonly answer: (body: unknown) => void;
  aborted: boolean;
}

// A server that answers when told to, and a client of it that counts what it sends; a signal
// aborts a request as the real client does (its answer: an aborted Transient error).
function fakeServer(): { readonly client: ClusterClient; readonly sent: Sent[]; readonly calls: string[] } {
  const sent: Sent[] = [];
  const calls: string[] = [];
  const raw = (req: HttpRequest): Promise<Answer> =>
    new Promise((resolve) => {
      if (req.signal?.aborted === true) {
        resolve(E.left(fromTransport(clusterName('service'), Object.assign(new Error('The operation was aborted'), { code: 'ABORT_ERR' }))));
        return;
      }
      const s: Sent = { req, aborted: false, answer: (body) => { resolve(E.right(body)); } };
      req.signal?.addEventListener('abort', () => {
        s.aborted = true;
        resolve(E.left(fromTransport(clusterName('service'), Object.assign(new Error('The operation was aborted'), { code: 'ABORT_ERR' }))));
      });
      sent.push(s);
    });
  const client = {
    cluster: 'service',
    server: 'https://127.0.0.1:6443',
    raw,
    get: (_r: unknown, name: string) => {
      calls.push(`get ${name}`);
      return Promise.resolve(E.right({ metadata: { name } }));
    },
    listAll: () => {
      calls.push('listAll');
      return Promise.resolve(E.right({ items: [] }));
    },
  } as unknown as ClusterClient;
  return { client, sent, calls };
}

const isAborted = (r: Answer): boolean => E.isLeft(r) && r.left.message.includes('aborted');
const discovery: HttpRequest = { method: 'GET', path: '/apis' };

describe('sync agent, a round of reads', () => {
  it("shares a request between callers with different signals: one's abort ends only its own wait", async () => {
    const server = fakeServer();
    const reads = roundReads(server.client);
    const mine = new AbortController();
    const theirs = new AbortController();
    const a = reads.raw({ ...discovery, signal: mine.signal });
    const b = reads.raw({ ...discovery, signal: theirs.signal });
    expect(server.sent).toHaveLength(1);
    mine.abort();
    expect(isAborted(await a)).toBe(true);
    expect(server.sent[0]?.aborted).toBe(false);
    server.sent[0]?.answer({ kind: 'APIGroupList' });
    expect(await b).toEqual(E.right({ kind: 'APIGroupList' }));
    // Later callers, with a signal or without, get the same answer without a request.
    expect(await reads.raw({ ...discovery, signal: new AbortController().signal })).toEqual(E.right({ kind: 'APIGroupList' }));
    expect(await reads.raw(discovery)).toEqual(E.right({ kind: 'APIGroupList' }));
    expect(server.sent).toHaveLength(1);
  });

  it('gives an aborted caller no live answer, and aborts the request once every caller waiting aborted; a later read sends it again', async () => {
    const server = fakeServer();
    const reads = roundReads(server.client);
    const one = new AbortController();
    const two = new AbortController();
    const a = reads.raw({ ...discovery, signal: one.signal });
    const b = reads.raw({ ...discovery, signal: two.signal });
    one.abort();
    two.abort();
    expect([isAborted(await a), isAborted(await b)]).toEqual([true, true]);
    expect(server.sent[0]?.aborted).toBe(true);
    // The aborted request is not the round's answer: the next caller's read is sent.
    const c = reads.raw({ ...discovery, signal: new AbortController().signal });
    expect(server.sent).toHaveLength(2);
    server.sent[1]?.answer({ kind: 'APIGroupList' });
    expect(await c).toEqual(E.right({ kind: 'APIGroupList' }));
  });

  it('never aborts a request a caller without a signal waits for', async () => {
    const server = fakeServer();
    const reads = roundReads(server.client);
    const one = new AbortController();
    const a = reads.raw({ ...discovery, signal: one.signal });
    const b = reads.raw(discovery);
    one.abort();
    expect(isAborted(await a)).toBe(true);
    expect(server.sent[0]?.aborted).toBe(false);
    server.sent[0]?.answer('ok');
    expect(await b).toEqual(E.right('ok'));
  });

  it('sends nothing for a caller aborted before it asked', async () => {
    const server = fakeServer();
    const reads = roundReads(server.client);
    const a = reads.raw({ ...discovery, signal: AbortSignal.abort() });
    expect(isAborted(await a)).toBe(true);
    expect(server.sent).toHaveLength(0);
    // Nor is its abort the round's answer for the next caller.
    const b = reads.raw({ ...discovery, signal: new AbortController().signal });
    expect(server.sent).toHaveLength(1);
    server.sent[0]?.answer('ok');
    expect(await b).toEqual(E.right('ok'));
  });

  it('shares reads asked exactly the same way, whatever the order of their options, and not reads with different fences', async () => {
    const server = fakeServer();
    const reads = roundReads(server.client);
    void reads.raw({ method: 'GET', path: '/apis', accept: 'application/json' });
    void reads.raw({ accept: 'application/json', path: '/apis', method: 'GET' });
    expect(server.sent).toHaveLength(1);
    const fence = (): undefined => undefined;
    void reads.raw({ ...discovery, fence });
    void reads.raw({ ...discovery, fence });
    void reads.raw({ ...discovery, fence: () => undefined });
    expect(server.sent).toHaveLength(3);
    await Promise.all([reads.listAll(customResourceDefinitions, { labelSelector: 'a', limit: 5 }), reads.listAll(customResourceDefinitions, { limit: 5, labelSelector: 'a' }), reads.get(customResourceDefinitions, 'x'), reads.get(customResourceDefinitions, 'x', {})]);
    expect(server.calls).toEqual(['listAll', 'get x']);
  });
});
