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

// Its state, on the client itself (and on a spread copy of it, which shares the same state object).
const lazy = Symbol('lazyClient');
interface LazyState {
  made: Either<KubeError, ClusterClient> | undefined;
  closed: boolean;
  readonly make: () => Either<KubeError, ClusterClient>;
}
type LazyClient = ClusterClient & { readonly [lazy]: LazyState };

function real(s: LazyState): Either<KubeError, ClusterClient> {
  if (s.made === undefined) {
    s.made = s.make();
    if (s.closed && E.isRight(s.made)) s.made.right.close();
  }
  return s.made;
}
async function call<T>(client: ClusterClient, f: (c: ClusterClient) => Promise<Either<KubeError, T>>): Promise<Either<KubeError, T>> {
  const c = real((client as LazyClient)[lazy]);
  return E.isLeft(c) ? c : f(c.right);
}
function lines(client: ClusterClient, f: (c: ClusterClient) => Observable<string>): Observable<string> {
  return defer(() => {
    const c = real((client as LazyClient)[lazy]);
    return E.isLeft(c) ? throwError(() => c.left) : f(c.right);
  });
}

// The methods, one set for every lazy client (each reads its state from \`this\`): a closure per
// method per client was ~1 KiB for each of 10,000 workspaces that never sends a request.
const methods: Omit<ClusterClient, 'cluster' | 'server'> = {
  get(r, name, opts) {
    return call(this as ClusterClient, (c) => c.get(r, name, opts));
  },
  list(r, opts) {
    return call(this as ClusterClient, (c) => c.list(r, opts));
  },
  listAll(r, opts) {
    return call(this as ClusterClient, (c) => c.listAll(r, opts));
  },
  watch(r, opts) {
    return lines(this as ClusterClient, (c) => c.watch(r, opts));
  },
  create(r, obj, opts) {
    return call(this as ClusterClient, (c) => c.create(r, obj, opts));
  },
  update(r, obj, opts) {
    return call(this as ClusterClient, (c) => c.update(r, obj, opts));
  },
  apply(r, obj, opts) {
    return call(this as ClusterClient, (c) => c.apply(r, obj, opts));
  },
  patch(r, name, patch, opts) {
    return call(this as ClusterClient, (c) => c.patch(r, name, patch, opts));
  },
  delete(r, name, opts) {
    return call(this as ClusterClient, (c) => c.delete(r, name, opts));
  },
  raw(req) {
    return call(this as ClusterClient, (c) => c.raw(req));
  },
  close() {
    const s = (this as LazyClient)[lazy];
    s.closed = true;
    if (s.made !== undefined && E.isRight(s.made)) s.made.right.close();
  },
};

/**
 * A {@link ClusterClient} of `cluster` at `server` that calls `make` on its first request and
 * sends every request through what it made. Closing it before any request makes nothing; a
 * request after `close` gets the made client's answer to a closed client (it is made and closed at
 * once). A `make` that fails answers every request with its error. Its methods are shared by every
 * lazy client and bound to it when read, so they may be called detached, as any client's.
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
  const client = { cluster, server, [lazy]: { made: undefined, closed: false, make } };
  Object.defineProperties(client, accessors);
  return client as LazyClient;
}

// Each method as an own accessor with the same getter for every lazy client (V8 keeps one shape
// for all of them: 185 B per client measured, against 305 B with the methods as data properties),
// returning the shared method bound to the client it is read from: `const { get } = client` and a
// spread copy (`{ ...client }`, whose methods stay bound to the original and its state) work as on
// any other client.
const accessors: PropertyDescriptorMap = Object.fromEntries(
  (Object.keys(methods) as (keyof typeof methods)[]).map((name) => [
    name,
    {
      enumerable: true,
      get(this: LazyClient): unknown {
        return methods[name].bind(this);
      },
    },
  ]),
);
