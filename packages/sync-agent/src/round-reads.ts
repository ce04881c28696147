// One check of the PublishedResources (a round) reads each server once. Its preflights differ only
// in the set they check (the config's entries, then each object with those accepted before it) and
// in the installation they check against, but they read the same things: the service cluster's
// CRDs and discovery, each provider workspace's APIExport, its schemas and discovery. Without this,
// a round over N installations and P PublishedResources sends (1+N)(1+P) of each read. The reads
// of a round are also one snapshot: no check in it sees a server change half-way through.
import type { ClusterClient } from 'rxfleet/client';
import { resourceId } from 'rxfleet/client';

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
  const answers = new Map<string, Promise<unknown>>();
  const once = <T>(key: string, read: () => Promise<T>): Promise<T> => {
    let got = answers.get(key);
    if (got === undefined) {
      got = read();
      answers.set(key, got);
    }
    return got as Promise<T>;
  };
  return {
    cluster: client.cluster,
    server: client.server,
    get: (r, name, opts) => once(`get ${resourceId(r)} ${name} ${JSON.stringify(opts ?? {})}`, () => client.get(r, name, opts)),
    listAll: (r, opts) => once(`listAll ${resourceId(r)} ${JSON.stringify(opts ?? {})}`, () => client.listAll(r, opts)),
    raw: (req) => (req.method === 'GET' ? once(`raw ${JSON.stringify(req)}`, () => client.raw(req)) : client.raw(req)),
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
