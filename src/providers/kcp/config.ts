// The options both kcp providers take: the provider workspace's kubeconfig (the credentials of
// every request), client and watch settings, path-aware naming, and the scheduler. Reports need no
// option: they travel in the provider's own stream, as every provider's do.
import type { ClusterClientOptions } from '../../client/client.js';
import type { ManagementWatchOptions } from '../../streams/watched.js';
import type { ProviderOptions } from '../../streams/provider-options.js';
import type { KcpKubeconfig } from './credentials.js';
import type { PathResolverOptions } from './paths.js';

/**
 * Options of the kcp providers.
 *
 * @example
 * ```ts
 * const config: KcpProviderOptions = {
 *   management: () => ({ file: '/etc/kcp/provider.kubeconfig' }), // re-read after a 401
 *   pathAware: true,
 *   managementWatch: { authBackoff: { initialMs: 1_000, factor: 2, maxMs: 30_000, resetAfterMs: 120_000 } },
 * };
 * ```
 */
export interface KcpProviderOptions extends ProviderOptions {
  /**
   * The provider workspace's kubeconfig (its server is `https://<kcp>/clusters/<provider workspace>`).
   * Its user's credentials are used for every request, each client with its own copy. Give a
   * function to have it re-read after each 401 (kcp issues a new admin token at every restart).
   */
  readonly management: KcpKubeconfig;
  /** User agent and request timeout of every client. */
  readonly client?: ClusterClientOptions;
  /**
   * Options of the provider's watches (the URL-listing object, the presence wildcard, the shared
   * wildcard watches its clusters' informers read): backoff, auth backoff, inactivity timeout.
   * The scheduler defaults to the provider's.
   */
  readonly managementWatch?: ManagementWatchOptions;
  /**
   * Name clusters by workspace path (`root:org:consumer`) instead of logical name. The path is read
   * from each workspace's LogicalCluster through kcp's front door (the provider's credentials need
   * `get` on `logicalclusters` there); when it cannot be read, the cluster is engaged under its
   * logical name and an `error` is reported. Either way the logical name is the cluster's
   * `identity.id` and its `kcp.io/cluster` label. `true` or resolver options; default false.
   */
  readonly pathAware?: boolean | PathResolverOptions;
}

/**
 * Options of `apiExportProvider`: the {@link KcpProviderOptions} and the APIExport whose consumer
 * workspaces are the fleet.
 *
 * @example
 * ```ts
 * const options: ApiExportProviderOptions = { management: { file: 'provider.kubeconfig' }, exportName: 'widgets.example.com' };
 * ```
 */
export interface ApiExportProviderOptions extends KcpProviderOptions {
  /** The APIExport's name in the provider workspace (its endpoint slice has the same name). */
  readonly exportName: string;
}

/**
 * Options of `initializingWorkspaceProvider`: the {@link KcpProviderOptions} (`management` is the
 * workspace holding the WorkspaceType) and the WorkspaceType whose initializer this controller is.
 *
 * @example
 * ```ts
 * const options: InitializingWorkspaceProviderOptions = { management: { file: 'root.kubeconfig' }, workspaceType: 'tenant' };
 * ```
 */
export interface InitializingWorkspaceProviderOptions extends KcpProviderOptions {
  /** The WorkspaceType's name. */
  readonly workspaceType: string;
}
