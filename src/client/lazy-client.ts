// A client made on its first request: what a provider gives each of thousands of clusters whose
// reads are served from shared watches (kcp workspaces behind one endpoint), so that a cluster
// that never sends a request costs no transport, carrier or method closures of its own (~4 KiB
// each, measured: 10,000 kcp workspaces held 40 MiB of clients the controller never called).
import type { Observable } from 'rxjs';
import { defer, throwError } from 'rxjs';
import type { ClusterClient } from './client.js';
import type { ClusterName } from '../core/cluster.js';
import type { KubeError } from '../core/errors.js';
import type { Either } from '../internal/fp.js';
import { E } from '../internal/fp.js';

/**
 * A {@link ClusterClient} of `cluster` at `server` that calls `make` on its first request and
 * sends every request through what it made. Closing it before any request makes nothing; a
 * request after `close` gets the made client's answer to a closed client (it is made and closed at
 * once). A `make` that fails answers every request with its error.
 *
 * @example
 * ```ts
 * const client = lazyClient(clusterName('2x9k'), url, () => kcpClientWith(clusterName('2x9k'), url, auth));
 * ```
 * @param cluster - the client's cluster name, readable before it is made.
 * @param server - its server URL, readable before it is made.
 * @param make - builds the real client (once).
 * @returns the client.
 */
export function lazyClient(cluster: ClusterName, server: string, make: () => Either<KubeError, ClusterClient>): ClusterClient {
  let made: Either<KubeError, ClusterClient> | undefined;
  let closed = false;
  const real = (): Either<KubeError, ClusterClient> => {
    if (made === undefined) {
      made = make();
      if (closed && E.isRight(made)) made.right.close();
    }
    return made;
  };
  const call = async <T>(f: (c: ClusterClient) => Promise<Either<KubeError, T>>): Promise<Either<KubeError, T>> => {
    const c = real();
    return E.isLeft(c) ? c : f(c.right);
  };
  const lines = (f: (c: ClusterClient) => Observable<string>): Observable<string> =>
    defer(() => {
      const c = real();
      return E.isLeft(c) ? throwError(() => c.left) : f(c.right);
    });
  return {
    cluster,
    server,
    get: (r, name, opts) => call((c) => c.get(r, name, opts)),
    list: (r, opts) => call((c) => c.list(r, opts)),
    listAll: (r, opts) => call((c) => c.listAll(r, opts)),
    watch: (r, opts) => lines((c) => c.watch(r, opts)),
    create: (r, obj, opts) => call((c) => c.create(r, obj, opts)),
    update: (r, obj, opts) => call((c) => c.update(r, obj, opts)),
    apply: (r, obj, opts) => call((c) => c.apply(r, obj, opts)),
    patch: (r, name, patch, opts) => call((c) => c.patch(r, name, patch, opts)),
    delete: (r, name, opts) => call((c) => c.delete(r, name, opts)),
    raw: (req) => call((c) => c.raw(req)),
    close: () => {
      closed = true;
      if (made !== undefined && E.isRight(made)) made.right.close();
    },
  };
}
