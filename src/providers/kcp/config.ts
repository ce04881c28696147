// The options both kcp providers take: the provider workspace's kubeconfig (the credentials of
// every request), client and watch settings, path-aware naming, and a report callback.
import type { ClusterClientOptions } from '../../client/client.js';
import type { KcpKubeconfig } from './credentials.js';
import type { KcpWatchConfig } from './endpoint.js';
import type { KcpReport } from './engine.js';
import type { PathResolverConfig } from './paths.js';

/**
 * Options of the kcp providers.
 *
 * @example
 * ```ts
 * const config: KcpProviderConfig = {
 *   kubeconfig: () => ({ file: '/etc/kcp/provider.kubeconfig' }), // re-read after a 401
 *   pathAware: true,
 *   watch: { authBackoff: { initialMs: 1_000, factor: 2, maxMs: 30_000, resetAfterMs: 120_000 } },
 *   report: (r) => { if (r.kind === 'error') console.warn(r.error.message); },
 * };
 * ```
 */
export interface KcpProviderConfig {
  /**
   * The provider workspace's kubeconfig (its server is `https://<kcp>/clusters/<provider workspace>`).
   * Its user's credentials are used for every request, each client with its own copy. Give a
   * function to have it re-read after each 401 (kcp issues a new admin token at every restart).
   */
  readonly kubeconfig: KcpKubeconfig;
  /** User agent and request timeout of every client. */
  readonly client?: ClusterClientOptions;
  /** Options of every watch: backoff, auth backoff, inactivity timeout, scheduler. */
  readonly watch?: KcpWatchConfig;
  /**
   * Name clusters by workspace path (`root:org:consumer`) instead of logical name. Both names
   * work with `get`. The path is read from each workspace's LogicalCluster through kcp's front
   * door (the provider's credentials need `get` on `logicalclusters` there); when it cannot be
   * read, the cluster is engaged under its logical name and an `error` is reported.
   * `true` or resolver options; default false.
   */
  readonly pathAware?: boolean | PathResolverConfig;
  /** Called with endpoint changes, engagements, watch health and non-fatal errors. */
  readonly report?: (r: KcpReport) => void;
}
