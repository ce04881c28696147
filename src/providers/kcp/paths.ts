// Path-aware naming: users think of workspaces as `root:org:consumer`, kcp's virtual workspaces
// speak logical names only. kcp v0.28.1 puts `kcp.io/path` on LogicalClusters but not on the
// objects or APIBindings an APIExport virtual workspace serves, and that virtual workspace does not
// serve LogicalClusters unless the export claims them. So the path is read from the workspace's
// LogicalCluster through kcp's front door: `/clusters/<logical>/apis/core.kcp.io/v1alpha1/logicalclusters/cluster`.
import type { Observable, SchedulerLike } from 'rxjs';
import { asyncScheduler, catchError, defer, map, mergeMap, of, retry, throwError, timer } from 'rxjs';
import type { ClusterClient } from '../../client/client.js';
import type { ClusterName } from '../../core/cluster.js';
import { clusterName } from '../../core/cluster.js';
import type { KubeError } from '../../core/errors.js';
import { isRetryable, kubeError } from '../../core/errors.js';
import type { KubeObject } from '../../core/object.js';
import type { Either } from '../../internal/fp.js';
import { E } from '../../internal/fp.js';
import type { Backoff } from '../../streams/backoff.js';
import { backoffDelay, checkBackoff, defaultBackoff } from '../../streams/backoff.js';
import type { Reporter } from '../internal/report.js';
import type { KcpProviderOptions } from './config.js';
import { kcpBase, kcpClient, loadProviderKubeconfig, providerServer } from './credentials.js';
import type { LogicalCluster } from './types.js';
import { pathAnnotation } from './types.js';

/**
 * Options of {@link pathResolver}.
 *
 * @example
 * ```ts
 * const opts: PathResolverOptions = { attempts: 5, backoff: { initialMs: 100, maxMs: 2_000 } };
 * ```
 */
export interface PathResolverOptions {
  /** Tries per logical cluster (transient failures and 404 of a brand new workspace are retried). Default 6. */
  readonly attempts?: number;
  /** Spacing of the tries; what is given is laid over {@link defaultBackoff}. */
  readonly backoff?: Partial<Backoff>;
  /** Uniform random numbers in [0, 1) for the jitter; default `Math.random`. */
  readonly random?: () => number;
  /** Drives the waits between tries; default `asyncScheduler`. */
  readonly scheduler?: SchedulerLike;
}

/**
 * The path of an object's workspace from its own `kcp.io/path` annotation, when kcp put one there.
 *
 * @example
 * ```ts
 * pathFromAnnotation({ metadata: { annotations: { 'kcp.io/path': 'root:org:a' } } }); // 'root:org:a'
 * ```
 * @param obj - any kcp object (a LogicalCluster always has it; most others do not).
 * @returns the path, or `undefined`.
 */
export function pathFromAnnotation(obj: KubeObject | undefined): string | undefined {
  const p = obj?.metadata.annotations?.[pathAnnotation];
  return p === undefined || p === '' ? undefined : p;
}

/**
 * Resolves logical cluster names to workspace paths by reading each workspace's LogicalCluster
 * through kcp's front door with the provider's credentials (which therefore need `get` on
 * `logicalclusters` in consumer workspaces; kcp's admin has it). A hint object carrying
 * `kcp.io/path` (newer kcp versions annotate more objects) short-circuits the request.
 *
 * @example
 * ```ts
 * const resolve = pathResolver(frontDoorClient); // a client of https://kcp:6443 (no /clusters suffix)
 * resolve(clusterName('2x9k')).subscribe((r) => console.log(E.isRight(r) ? r.right : r.left.message));
 * ```
 * @param front - a client whose server is kcp's base URL.
 * @param config - attempts, backoff, scheduler.
 * @returns a function from a logical cluster (and optional hint) to one Either, then completion.
 * @throws ConfigError when the backoff can never work.
 */
export function pathResolver(front: ClusterClient, config: PathResolverOptions = {}): (logical: ClusterName, hint?: KubeObject) => Observable<Either<KubeError, string>> {
  const attempts = Math.max(1, config.attempts ?? 6);
  const backoff = checkBackoff({ ...defaultBackoff, ...config.backoff }, 'pathResolver: backoff');
  const random = config.random ?? Math.random;
  const scheduler = config.scheduler ?? asyncScheduler;
  return (logical, hint) => {
    const hinted = pathFromAnnotation(hint);
    if (hinted !== undefined) return of(E.right(hinted));
    const request = { method: 'GET' as const, path: `/clusters/${encodeURIComponent(logical)}/apis/core.kcp.io/v1alpha1/logicalclusters/cluster` };
    return defer(() => front.raw(request)).pipe(
      mergeMap((res) => {
        // Failures travel as errors only inside this pipeline, so that `retry` can space them out.
        if (E.isLeft(res)) return throwError(() => res.left);
        const path = pathFromAnnotation(res.right as LogicalCluster);
        return path === undefined ? throwError(() => new Error('no kcp.io/path')) : of(E.right<KubeError, string>(path));
      }),
      retry({
        count: attempts - 1,
        delay: (err: unknown, n) => {
          const e = err as Partial<KubeError>;
          const again = e.type !== undefined && (isRetryable(e as KubeError) || e.type === 'NotFound' || e.type === 'Unauthorized');
          return again ? timer(Math.max(1, backoffDelay(backoff, n - 1, random)), scheduler) : throwError(() => err);
        },
      }),
      catchError((err: unknown) => {
        const e = err as Partial<KubeError>;
        if (e.type !== undefined && typeof e.message === 'string') return of(E.left(e as KubeError));
        return of(E.left<KubeError, string>(kubeError('Decode', logical, 'its LogicalCluster has no kcp.io/path annotation')));
      }),
    );
  };
}

/**
 * How a kcp provider names a workspace, for one subscription: a fleet name per logical cluster,
 * found asynchronously (then the candidate is built). Without `pathAware` the logical name itself;
 * with it, the path read through kcp's front door by a client made here and closed by `close()`,
 * falling back to the logical name (reported as an `error` naming the workspace) when the path
 * cannot be read.
 *
 * @example
 * ```ts
 * const namer = workspaceNamer({ kubeconfig, pathAware: true }, say);
 * namer.name(clusterName('2x9k'), binding).subscribe((name: string) => console.log(name)); // 'root:org:a'
 * namer.close();
 * ```
 * @param config - the provider's config (kubeconfig, client options, `pathAware`, scheduler).
 * @param say - the subscription's reporter.
 * @returns the namer and the way to release its client.
 */
export function workspaceNamer(config: KcpProviderOptions, say: Reporter): { readonly name: (logical: ClusterName, hint: KubeObject) => Observable<string>; close(): void } {
  if (config.pathAware === undefined || config.pathAware === false) return { name: (logical) => of(logical), close: () => undefined };
  const frontName = clusterName('kcp front door');
  const kc = loadProviderKubeconfig(frontName, config.management);
  const front = E.isLeft(kc) ? kc : kcpClient(frontName, kcpBase(providerServer(kc.right)), config.management, config.client);
  const scheduler = config.scheduler === undefined ? {} : { scheduler: config.scheduler };
  const resolve = E.isRight(front)
    ? pathResolver(front.right, { ...scheduler, ...(config.pathAware === true ? {} : config.pathAware) })
    : (_logical: ClusterName, hint?: KubeObject): Observable<Either<KubeError, string>> => {
        const hinted = pathFromAnnotation(hint);
        return of(hinted === undefined ? E.left(front.left) : E.right(hinted));
      };
  return {
    name: (logical, hint) =>
      resolve(logical, hint).pipe(
        map((r) => {
          if (E.isRight(r)) return r.right;
          say({ type: 'error', reason: `workspace ${logical}: its path cannot be read (${r.left.message}); it is engaged under its logical name` });
          return logical;
        }),
      ),
    close: () => {
      if (E.isRight(front)) front.right.close();
    },
  };
}
