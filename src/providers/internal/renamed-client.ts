// A client under the name of the cluster the fleet knows: the same requests, the same answers, but
// `cluster` and every error name that cluster (the runtime labels a failure's logs and metric
// series with its error's cluster, and forgets a cluster's series by its fleet name when it
// leaves). For a cluster renamed on its way to the fleet (withPrefix), and for a cluster that
// borrows another's client (a namespace-cluster's calls go through the hub's). Its requests are
// counted under that name too (`rxfleet_requests_total`), so they leave with its series.
import { catchError, Observable, throwError } from 'rxjs';
import { countingAs } from '../../client/request-count.js';
import type { ClusterClient } from '../../client/client.js';
import type { ClusterName } from '../../core/cluster.js';
import type { KubeError } from '../../core/errors.js';
import type { Either } from '../../internal/fp.js';
import { E } from '../../internal/fp.js';
import { isKubeError } from '../../streams/watch-failing.js';

/**
 * An error about cluster `from` as one about `to`: its `cluster`, and the `cluster "<from>"` its
 * message starts with (as `kubeError` writes it). Errors about any other cluster are unchanged.
 *
 * @example
 * ```ts
 * renamedError(kubeError('NotFound', clusterName('east'), 'gone'), clusterName('east'), clusterName('prod#east')).message; // 'cluster "prod#east": gone'
 * ```
 * @param e - the error.
 * @param from - the name to replace.
 * @param to - the new name.
 * @returns the renamed error.
 */
export function renamedError(e: KubeError, from: ClusterName, to: ClusterName): KubeError {
  if (e.cluster !== from) return e;
  const was = `cluster "${from}"`;
  const message = e.message.startsWith(was) ? `cluster "${to}"${e.message.slice(was.length)}` : e.message;
  return Object.freeze({ ...e, cluster: to, message });
}

/**
 * The client with its cluster renamed `to`: `cluster` is `to`, and errors that named the client's
 * old name (answers of every call, a watch's error) name `to` instead. Requests are unchanged.
 *
 * @example
 * ```ts
 * const prod = renamedClient(east.client, clusterName('prod#east'));
 * prod.cluster; // 'prod#east'
 * ```
 * @param client - the client, as its provider named it.
 * @param to - the cluster's new name.
 * @returns the renamed client.
 */
export function renamedClient(client: ClusterClient, to: ClusterName): ClusterClient {
  const from = client.cluster;
  if (from === to) return client;
  // Each call counted under the fleet's name (countingAs), its errors renamed.
  const answer = async <T>(call: () => Promise<Either<KubeError, T>>): Promise<Either<KubeError, T>> => {
    const r = await countingAs(from, to, call);
    return E.isLeft(r) ? E.left(renamedError(r.left, from, to)) : r;
  };
  const watch = (lines: () => Observable<string>): Observable<string> =>
    new Observable<string>((subscriber) => countingAs(from, to, () => lines().subscribe(subscriber))).pipe(catchError((e: unknown) => throwError(() => (isKubeError(e) ? renamedError(e, from, to) : e))));
  return Object.freeze({
    cluster: to,
    server: client.server,
    get: (r, name, opts) => answer(() => client.get(r, name, opts)),
    list: (r, opts) => answer(() => client.list(r, opts)),
    listAll: (r, opts) => answer(() => client.listAll(r, opts)),
    watch: (r, opts) => watch(() => client.watch(r, opts)),
    create: (r, obj, opts) => answer(() => client.create(r, obj, opts)),
    update: (r, obj, opts) => answer(() => client.update(r, obj, opts)),
    apply: (r, obj, opts) => answer(() => client.apply(r, obj, opts)),
    patch: (r, name, patch, opts) => answer(() => client.patch(r, name, patch, opts)),
    delete: (r, name, opts) => answer(() => client.delete(r, name, opts)),
    raw: (req) => answer(() => client.raw(req)),
    close: () => {
      client.close();
    },
  } satisfies ClusterClient);
}
