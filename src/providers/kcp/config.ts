// The options both kcp providers take: the provider workspace's kubeconfig (the credentials of
// every request), client and watch settings, path-aware naming, and the scheduler. Reports need no
// option: they travel in the provider's own stream, as every provider's do.
import type { ClusterClientOptions } from '../../client/client.js';
import type { WatchedConfig } from '../../streams/watched.js';
import type { ProviderOptions } from '../internal/report.js';
import type { KcpKubeconfig } from './credentials.js';
import type { PathResolverConfig } from './paths.js';

/**
 * The options every watch of a kcp provider uses: the watch options without the selection (the
 * provider's own watches select what they need; its clusters' informers bring theirs), and
 * `sourceFor`, which builds the list/watch calls (tests inject fakes; default: the client's).
 *
 * @example
 * ```ts
 * const w: KcpWatchConfig = { backoff: { initialMs: 200, maxMs: 5_000 } };
 * ```
 */
export type KcpWatchConfig = WatchedConfig;

/**
 * Options of the kcp providers.
 *
 * @example
 * ```ts
 * const config: KcpProviderConfig = {
 *   kubeconfig: () => ({ file: '/etc/kcp/provider.kubeconfig' }), // re-read after a 401
 *   pathAware: true,
 *   watch: { authBackoff: { initialMs: 1_000, factor: 2, maxMs: 30_000, resetAfterMs: 120_000 } },
 * };
 * ```
 */
export interface KcpProviderConfig extends ProviderOptions {
  /**
   * The provider workspace's kubeconfig (its server is `https://<kcp>/clusters/<provider workspace>`).
   * Its user's credentials are used for every request, each client with its own copy. Give a
   * function to have it re-read after each 401 (kcp issues a new admin token at every restart).
   */
  readonly kubeconfig: KcpKubeconfig;
  /** User agent and request timeout of every client. */
  readonly client?: ClusterClientOptions;
  /**
   * Options of the provider's watches (the URL-listing object, the presence wildcard, the shared
   * wildcard watches its clusters' informers read): backoff, auth backoff, inactivity timeout.
   * The scheduler defaults to the provider's.
   */
  readonly watch?: KcpWatchConfig;
  /**
   * Name clusters by workspace path (`root:org:consumer`) instead of logical name. The path is read
   * from each workspace's LogicalCluster through kcp's front door (the provider's credentials need
   * `get` on `logicalclusters` there); when it cannot be read, the cluster is engaged under its
   * logical name and an `error` is reported. Either way the logical name is the cluster's
   * `identity.id` and its `kcp.io/cluster` label. `true` or resolver options; default false.
   */
  readonly pathAware?: boolean | PathResolverConfig;
}
