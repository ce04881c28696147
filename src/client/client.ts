// The per-cluster client: typed CRUD, server-side apply, patches and raw watch lines for any
// resource, over one transport. Every call resolves to an Either; none rejects.
import type { Observable } from 'rxjs';
import type { ClusterName } from '../core/cluster.js';
import type { KubeError, Status } from '../core/errors.js';
import { kubeError } from '../core/errors.js';
import type { ApplyConfiguration, KubeObject, ObjectList } from '../core/object.js';
import type { ResourceDescriptor } from '../core/resource.js';
import { apiVersionOf } from '../core/resource.js';
import type { Either } from '../internal/fp.js';
import { E } from '../internal/fp.js';
import { authFromKubeconfig } from './auth.js';
import type { KubeconfigSource } from './kubeconfig.js';
import type { LoadedKubeconfig } from './kubeconfig-types.js';
import { listAllPages } from './list-all.js';
import { loadKubeconfig } from './kubeconfig.js';
import { resourcePath, withQuery } from './paths.js';
import type { HttpRequest, Transport, TransportOptions } from './transport.js';
import { createTransport } from './transport.js';
import type { ApplyOptions, DeleteOptions, GetOptions, ListOptions, PatchOptions, PatchType, WatchOptions, WriteLimits, WriteOptions } from './call-options.js';

export type { ApplyOptions, DeleteOptions, GetOptions, ListOptions, PatchOptions, PatchType, WatchOptions, WriteLimits, WriteOptions } from './call-options.js';

/**
 * A client of one cluster. Built from one KubeConfig, with one HTTP agent; credentials never cross
 * clusters. All calls resolve to `Either<KubeError, …>` and never reject.
 *
 * @example
 * ```ts
 * const client = createClusterClient(clusterName('east'), { file: 'east.kubeconfig' });
 * if (E.isRight(client)) {
 *   const cm = await client.right.get(configMaps, 'settings', { namespace: 'default' });
 * }
 * ```
 */
export interface ClusterClient {
  /** The fleet cluster this client talks to (named in every error). */
  readonly cluster: ClusterName;
  /** The server URL (with any path prefix), without credentials. */
  readonly server: string;
  /** One object by name (namespace in `opts` for namespaced resources). */
  get<T extends KubeObject>(r: ResourceDescriptor<T>, name: string, opts?: GetOptions): Promise<Either<KubeError, T>>;
  /** One page. */
  list<T extends KubeObject>(r: ResourceDescriptor<T>, opts?: ListOptions): Promise<Either<KubeError, ObjectList<T>>>;
  /**
   * Every page, following continue tokens (500 per page unless `limit` says otherwise). The
   * resourceVersion is the first page's: all pages are one snapshot. An expired continue token
   * resolves to a `Gone` error; list again from scratch.
   */
  listAll<T extends KubeObject>(r: ResourceDescriptor<T>, opts?: ListOptions): Promise<Either<KubeError, ObjectList<T>>>;
  /** The raw lines of a watch response (one JSON watch event each). Errors with a KubeError value. */
  watch(r: ResourceDescriptor, opts?: WatchOptions): Observable<string>;
  /** Creates an object (POST); `AlreadyExists` when its name is taken. */
  create<T extends KubeObject>(r: ResourceDescriptor<T>, obj: T, opts?: WriteOptions): Promise<Either<KubeError, T>>;
  /** PUT: fails with Conflict when `metadata.resourceVersion` is stale. */
  update<T extends KubeObject>(r: ResourceDescriptor<T>, obj: T, opts?: WriteOptions): Promise<Either<KubeError, T>>;
  /** Server-side apply of a (partial) object. `apiVersion` and `kind` are filled in from the descriptor. */
  apply<T extends KubeObject>(r: ResourceDescriptor<T>, obj: ApplyConfiguration<T>, opts: ApplyOptions): Promise<Either<KubeError, T>>;
  /** Patches an object: merge, strategic merge or JSON patch, per `opts.type` (status too, with `subresource`). */
  patch<T extends KubeObject>(r: ResourceDescriptor<T>, name: string, patch: unknown, opts: PatchOptions): Promise<Either<KubeError, T>>;
  /** Resolves to the object (when deletion waits on finalizers) or the server's Status. */
  delete<T extends KubeObject>(r: ResourceDescriptor<T>, name: string, opts?: DeleteOptions): Promise<Either<KubeError, T | Status>>;
  /** Any request to this cluster, for what the typed calls do not cover. */
  raw(req: HttpRequest): Promise<Either<KubeError, unknown>>;
  /** Closes the HTTP agent; later calls fail with NotEngaged. */
  close(): void;
}

/** Options of {@link createClusterClient}. @example `{ userAgent: 'my-controller/1.0', timeoutMs: 30000 }` */
export type ClusterClientOptions = TransportOptions;

const patchContentTypes: Readonly<Record<PatchType, string>> = {
  merge: 'application/merge-patch+json',
  json: 'application/json-patch+json',
  strategic: 'application/strategic-merge-patch+json',
};

function writeQuery(opts: WriteOptions | undefined): Record<string, string | undefined> {
  return {
    fieldManager: opts?.fieldManager,
    dryRun: opts?.dryRun === true ? 'All' : undefined,
    fieldValidation: opts?.fieldValidation,
  };
}

function nameOf(cluster: ClusterName, obj: KubeObject, verb: string): Either<KubeError, string> {
  const name = obj.metadata.name;
  return name === undefined || name === '' ? E.left(kubeError('Invalid', cluster, `${verb} needs metadata.name`)) : E.right(name);
}

function withoutManagedFields<M extends { readonly managedFields?: unknown }>(metadata: M): Omit<M, 'managedFields'> {
  const { managedFields: _mf, ...rest } = metadata;
  return rest;
}

// The per-call timeout and write fence (a get's options carry the timeout only), passed through to the request only when set.
function callLimits(opts: WriteLimits | undefined): Pick<HttpRequest, 'timeoutMs' | 'fence'> {
  return { ...(opts?.timeoutMs === undefined ? {} : { timeoutMs: opts.timeoutMs }), ...(opts?.fence === undefined ? {} : { fence: opts.fence }) };
}

/**
 * Builds a client from a transport; use {@link createClusterClient} unless you bring your own.
 *
 * @example
 * ```ts
 * const client = clientOver(createTransport(cluster, server, auth));
 * ```
 * @param t - the cluster's transport.
 * @returns the client.
 */
export function clientOver(t: Transport): ClusterClient {
  const cluster = t.cluster;
  const json = async <T>(req: HttpRequest): Promise<Either<KubeError, T>> => {
    const res = await t.request(req);
    return E.isLeft(res) ? res : E.right(res.right.body as T);
  };
  const nsFor = (r: ResourceDescriptor, obj: KubeObject | undefined, opts: { namespace?: string } | undefined): string | undefined =>
    r.namespaced ? (obj?.metadata.namespace ?? opts?.namespace) : undefined;

  const client: ClusterClient = {
    cluster,
    server: t.server,
    get(r, name, opts) {
      return json({ method: 'GET', path: resourcePath(r, { namespace: nsFor(r, undefined, opts), name, subresource: opts?.subresource }), ...callLimits(opts) });
    },
    list(r, opts) {
      const path = withQuery(resourcePath(r, { namespace: nsFor(r, undefined, opts) }), {
        labelSelector: opts?.labelSelector,
        fieldSelector: opts?.fieldSelector,
        limit: opts?.limit,
        continue: opts?.continue,
        resourceVersion: opts?.resourceVersion,
        resourceVersionMatch: opts?.resourceVersionMatch,
      });
      return json({ method: 'GET', path, verb: 'list' });
    },
    listAll(r, opts) {
      return listAllPages((o) => client.list(r, o), opts);
    },
    watch(r, opts = {}) {
      const path = withQuery(resourcePath(r, { namespace: nsFor(r, undefined, opts) }), {
        watch: 'true',
        allowWatchBookmarks: opts.allowWatchBookmarks ?? true,
        labelSelector: opts.labelSelector,
        fieldSelector: opts.fieldSelector,
        resourceVersion: opts.resourceVersion,
        resourceVersionMatch: opts.resourceVersionMatch,
        sendInitialEvents: opts.sendInitialEvents,
        timeoutSeconds: opts.timeoutSeconds,
      });
      return t.lines({ method: 'GET', path });
    },
    create(r, obj, opts) {
      const path = withQuery(resourcePath(r, { namespace: nsFor(r, obj, opts) }), writeQuery(opts));
      return json({ method: 'POST', path, body: JSON.stringify({ apiVersion: apiVersionOf(r), kind: r.kind, ...obj }), ...callLimits(opts) });
    },
    async update(r, obj, opts) {
      const name = nameOf(cluster, obj, 'update');
      if (E.isLeft(name)) return name;
      const path = withQuery(resourcePath(r, { namespace: nsFor(r, obj, opts), name: name.right, subresource: opts?.subresource }), writeQuery(opts));
      return json({ method: 'PUT', path, body: JSON.stringify({ apiVersion: apiVersionOf(r), kind: r.kind, ...obj }), ...callLimits(opts) });
    },
    async apply(r, obj, opts) {
      const name = nameOf(cluster, obj, 'apply');
      if (E.isLeft(name)) return name;
      const path = withQuery(resourcePath(r, { namespace: nsFor(r, obj, opts), name: name.right, subresource: opts.subresource }), {
        ...writeQuery(opts),
        force: opts.force === true ? 'true' : undefined,
      });
      // managedFields must not be sent with an apply (copied without it only when present: an
      // object rest costs more than the rest of the body, and desired states rarely carry it); a
      // resourceVersion the caller gives is sent, and makes the apply conditional.
      const metadata = obj.metadata.managedFields === undefined ? obj.metadata : withoutManagedFields(obj.metadata);
      const body = { ...obj, apiVersion: apiVersionOf(r), kind: r.kind, metadata };
      return json({ method: 'PATCH', path, body: JSON.stringify(body), contentType: 'application/apply-patch+yaml', ...callLimits(opts) });
    },
    patch(r, name, patch, opts) {
      const path = withQuery(resourcePath(r, { namespace: nsFor(r, undefined, opts), name, subresource: opts.subresource }), writeQuery(opts));
      return json({ method: 'PATCH', path, body: JSON.stringify(patch), contentType: patchContentTypes[opts.type], ...callLimits(opts) });
    },
    delete(r, name, opts) {
      const path = withQuery(resourcePath(r, { namespace: nsFor(r, undefined, opts), name }), {
        dryRun: opts?.dryRun === true ? 'All' : undefined,
      });
      const body = {
        apiVersion: 'v1',
        kind: 'DeleteOptions',
        ...(opts?.preconditions === undefined ? {} : { preconditions: opts.preconditions }),
        ...(opts?.propagationPolicy === undefined ? {} : { propagationPolicy: opts.propagationPolicy }),
        ...(opts?.gracePeriodSeconds === undefined ? {} : { gracePeriodSeconds: opts.gracePeriodSeconds }),
      };
      return json({ method: 'DELETE', path, body: JSON.stringify(body), ...callLimits(opts) });
    },
    raw(req) {
      return json(req);
    },
    close() {
      t.close();
    },
  };
  return client;
}

/**
 * Creates the client of one cluster from its kubeconfig. The kubeconfig is copied, so nothing the
 * caller does later (or another cluster's client) can change this cluster's credentials.
 *
 * @example
 * ```ts
 * const east = createClusterClient(clusterName('east'), { yaml: fs.readFileSync('east.yaml', 'utf8') });
 * if (E.isLeft(east)) throw new Error(east.left.message); // names the cluster and the cause
 * const ns = await east.right.list(namespaces);
 * ```
 * @param cluster - the cluster's name in the fleet.
 * @param kubeconfig - its kubeconfig (YAML, file or KubeConfig) and optional context.
 * @param options - user agent and default timeout.
 * @returns the client, or an `InvalidConfig` error.
 */
export function createClusterClient(cluster: ClusterName, kubeconfig: KubeconfigSource, options: ClusterClientOptions = {}): Either<KubeError, ClusterClient> {
  const kc = loadKubeconfig(cluster, kubeconfig);
  return E.isLeft(kc) ? kc : E.right(clientOfKubeconfig(cluster, kc.right, options));
}

/**
 * The client of one cluster from a kubeconfig already loaded and checked (by `loadKubeconfig` or
 * `checkedKubeconfig`): its server, its credentials, the transport options. The entries are held,
 * not copied: they must be this cluster's own, frozen.
 *
 * @example
 * ```ts
 * const kc = loadKubeconfig(clusterName('east'), { file: 'east.yaml' });
 * if (E.isRight(kc)) clientOfKubeconfig(clusterName('east'), kc.right);
 * ```
 * @param cluster - the cluster's name in the fleet.
 * @param kc - its checked context, cluster and user.
 * @param options - transport options.
 * @returns the client.
 */
export function clientOfKubeconfig(cluster: ClusterName, kc: LoadedKubeconfig, options: ClusterClientOptions = {}): ClusterClient {
  return clientOver(createTransport(cluster, kc.cluster.server, authFromKubeconfig(kc), options));
}
