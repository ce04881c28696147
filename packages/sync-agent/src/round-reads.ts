// One check of the PublishedResources (a round) reads each server once. Its preflights differ only
// in the set they check (the config's entries, then each object with those accepted before it) and
// in the installation they check against, but they read the same things: the service cluster's
// CRDs and discovery, each provider workspace's APIExport, its schemas and discovery. Without this,
// a round over N installations and P PublishedResources sends (1+N)(1+P) of each read. The reads
// of a round are also one snapshot: no check in it sees a server change half-way through.
//
// Two reads share one request only when they ask exactly the same thing (read-key.ts: an option
// that is not data, a fence function, counts by identity). A caller's `signal` is its own: it is
// not part of what is asked, so callers with different signals share the request, but an abort
// ends only that caller's wait; the request itself is aborted (and forgotten, so a later read sends
// it again) once every caller waiting for it has aborted.
import type { ClusterClient } from 'rxfleet/client';
import { fromTransport, resourceId } from 'rxfleet/client';
import type { KubeError } from 'rxfleet';
import type { Either } from 'rxfleet/fp';
import { E } from 'rxfleet/fp';
import { readKeys } from './read-key.js';

/** One request of the round and who waits for it. */
interface Shared {
  readonly answer: Promise<Either<KubeError, unknown>>;
  readonly abort: () => void;
  /** Callers with a signal still waiting. */
  waiting: number;
  /** A caller without a signal waits: the request is never aborted. */
  kept: boolean;
  settled: boolean;
}

/**
 * A client whose reads (`get`, `listAll`, a `raw` GET) are sent once and answered from then on with
 * the first answer (a failure too); writes, `list` and `watch` go through. Made for one round and
 * dropped after it: it never closes `client`, which belongs to whoever made it.
 *
 * @example
 * ```ts
 * const service = roundReads(serviceClient);
 * await Promise.all([service.listAll(customResourceDefinitions), service.listAll(customResourceDefinitions)]); // one request
 * ```
 * @param client - the client of one cluster, with one identity.
 * @returns the same cluster's client, its reads shared.
 */
export function roundReads(client: ClusterClient): ClusterClient {
  const answers = new Map<string, Shared>();
  const keyOf = readKeys();
  const aborted = (request: string): Either<KubeError, never> => E.left(fromTransport(client.cluster, Object.assign(new Error('The operation was aborted'), { code: 'ABORT_ERR' }), request));
  const once = <T>(asked: unknown, request: string, signal: AbortSignal | undefined, read: (signal: AbortSignal) => Promise<Either<KubeError, T>>): Promise<Either<KubeError, T>> => {
    // Aborted before it was asked: nothing is sent, as the client itself does.
    if (signal?.aborted === true) return Promise.resolve(aborted(request));
    const key = keyOf(asked);
    let s = answers.get(key);
    if (s === undefined) {
      const controller = new AbortController();
      const made: Shared = { answer: read(controller.signal), waiting: 0, kept: false, settled: false, abort: () => { controller.abort(); } };
      void made.answer.finally(() => {
        made.settled = true;
      });
      answers.set(key, made);
      s = made;
    }
    const shared = s;
    if (signal === undefined) {
      shared.kept = true;
      return shared.answer as Promise<Either<KubeError, T>>;
    }
    shared.waiting += 1;
    return new Promise((resolve) => {
      const onAbort = (): void => {
        shared.waiting -= 1;
        resolve(aborted(request));
        if (shared.kept || shared.waiting > 0 || shared.settled) return;
        if (answers.get(key) === shared) answers.delete(key);
        shared.abort();
      };
      signal.addEventListener('abort', onAbort, { once: true });
      void shared.answer.then((r) => {
        signal.removeEventListener('abort', onAbort);
        resolve(r as Either<KubeError, T>);
      });
    });
  };
  return {
    cluster: client.cluster,
    server: client.server,
    get: (r, name, opts) => once(['get', resourceId(r), name, opts ?? {}], `GET ${resourceId(r)} ${name}`, undefined, () => client.get(r, name, opts)),
    listAll: (r, opts) => once(['listAll', resourceId(r), opts ?? {}], `LIST ${resourceId(r)}`, undefined, () => client.listAll(r, opts)),
    raw: (req) => {
      if (req.method !== 'GET') return client.raw(req);
      const { signal, ...asked } = req;
      return once(['raw', asked], `GET ${req.path}`, signal, (own) => client.raw({ ...asked, signal: own }));
    },
    list: (r, opts) => client.list(r, opts),
    watch: (r, opts) => client.watch(r, opts),
    create: (r, obj, opts) => client.create(r, obj, opts),
    update: (r, obj, opts) => client.update(r, obj, opts),
    apply: (r, obj, opts) => client.apply(r, obj, opts),
    patch: (r, name, patch, opts) => client.patch(r, name, patch, opts),
    delete: (r, name, opts) => client.delete(r, name, opts),
    // The round does not own the connection: whoever made `client` closes it.
    close: () => undefined,
  };
}
