// The few Lease calls leader election and sharding make, as Observables: the keeper's loop runs on
// an injected scheduler, and Promises would escape its virtual time in tests (STYLE.md). The real
// adapter goes through `raw` so that each call carries its own timeout and is aborted when the
// keeper gives up on it, and so that no write fence ever applies to the Lease itself.
import { Observable } from 'rxjs';
import type { ObservableInput } from 'rxjs';
import type { ClusterClient } from '../../client/client.js';
import type { HttpRequest } from '../../client/transport-types.js';
import { resourcePath, withQuery } from '../../client/paths.js';
import type { ClusterName } from '../../core/cluster.js';
import type { KubeError } from '../../core/errors.js';
import type { Lease, ObjectList } from '../../core/object.js';
import { leases } from '../../core/resource.js';
import type { Either } from '../../internal/fp.js';
import { E } from '../../internal/fp.js';

/** Options of the Lease writes. @example `{ dryRun: true }` */
export interface LeaseWriteOptions {
  /** Validate and authorize without persisting anything (the start-up access check). */
  readonly dryRun?: boolean;
}

/**
 * The Lease calls of one home cluster. Each returns an `ObservableInput` of one `Either` (never an
 * error notification); unsubscribing abandons the call.
 *
 * @example
 * ```ts
 * const api: LeaseApi = leaseApi(home.client, { timeoutMs: 2_000 });
 * api.get('ops', 'my-controller'); // Observable<Either<KubeError, Lease>>
 * ```
 */
export interface LeaseApi {
  /** The home cluster (named in errors). */
  readonly cluster: ClusterName;
  /** One Lease; `NotFound` when absent. */
  get(namespace: string, name: string): ObservableInput<Either<KubeError, Lease>>;
  /** The Leases of a namespace matching a label selector. */
  list(namespace: string, labelSelector?: string): ObservableInput<Either<KubeError, ObjectList<Lease>>>;
  /** POST; `AlreadyExists` when the name is taken. */
  create(lease: Lease, opts?: LeaseWriteOptions): ObservableInput<Either<KubeError, Lease>>;
  /** PUT with the object's resourceVersion as precondition; `Conflict` when someone wrote in between. */
  replace(lease: Lease, opts?: LeaseWriteOptions): ObservableInput<Either<KubeError, Lease>>;
  /** DELETE, only if the Lease still has this uid when given. */
  delete(namespace: string, name: string, opts?: LeaseWriteOptions & { readonly uid?: string }): ObservableInput<Either<KubeError, unknown>>;
}

/** Options of {@link leaseApi}. @example `{ timeoutMs: 2_000 }` */
export interface LeaseApiOptions {
  /** Socket timeout of each call, a backstop behind the keeper's own timeout; default 10 000 ms. */
  readonly timeoutMs?: number;
}

/**
 * Adapts a cluster client to {@link LeaseApi}: each call is cold, starts on subscribe, and is
 * aborted (its socket destroyed) on unsubscribe.
 *
 * @example
 * ```ts
 * const keeper = leaseKeeper({ api: leaseApi(home.client), namespace: 'ops', name: 'ctl', identity, timing, mode: 'leader' });
 * ```
 * @param client - the home cluster's client.
 * @param options - the per-call socket timeout.
 * @returns the Lease calls.
 */
export function leaseApi(client: ClusterClient, options: LeaseApiOptions = {}): LeaseApi {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const call = <T>(req: HttpRequest): Observable<Either<KubeError, T>> =>
    new Observable((subscriber) => {
      const abort = new AbortController();
      void client.raw({ ...req, timeoutMs, signal: abort.signal }).then((res) => {
        subscriber.next(E.isLeft(res) ? res : E.right(res.right as T));
        subscriber.complete();
      });
      return () => {
        abort.abort();
      };
    });
  const at = (namespace: string | undefined, name?: string): string => resourcePath(leases, { namespace, name });
  const dry = (opts: LeaseWriteOptions | undefined): Record<string, string | undefined> => ({ dryRun: opts?.dryRun === true ? 'All' : undefined });
  const body = (lease: Lease): string => JSON.stringify({ ...lease, apiVersion: 'coordination.k8s.io/v1', kind: 'Lease' });
  return {
    cluster: client.cluster,
    get: (namespace, name) => call({ method: 'GET', path: at(namespace, name) }),
    list: (namespace, labelSelector) => call({ method: 'GET', path: withQuery(at(namespace), { labelSelector }) }),
    create: (lease, opts) => call({ method: 'POST', path: withQuery(at(lease.metadata.namespace), dry(opts)), body: body(lease) }),
    replace: (lease, opts) => call({ method: 'PUT', path: withQuery(at(lease.metadata.namespace, lease.metadata.name ?? ''), dry(opts)), body: body(lease) }),
    delete: (namespace, name, opts) =>
      call({
        method: 'DELETE',
        path: withQuery(at(namespace, name), dry(opts)),
        body: JSON.stringify({ apiVersion: 'v1', kind: 'DeleteOptions', ...(opts?.uid === undefined ? {} : { preconditions: { uid: opts.uid } }) }),
      }),
  };
}
