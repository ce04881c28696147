// Where the kcp providers' credentials come from: the provider workspace's kubeconfig, read again
// after every 401 because kcp issues a new admin token at each restart. Each endpoint loads it once
// and its workspaces' clients share that load (one token cache, one re-read after a 401); other
// clients load their own.
import type { ClusterClient, ClusterClientOptions } from '../../client/client.js';
import { clientOver } from '../../client/client.js';
import type { AuthSource } from '../../client/auth.js';
import { authFromKubeconfig } from '../../client/auth.js';
import type { KubeconfigSource } from '../../client/kubeconfig.js';
import { loadKubeconfig } from '../../client/kubeconfig.js';
import type { LoadedKubeconfig } from '../../client/kubeconfig-types.js';
import { createTransport } from '../../client/transport.js';
import type { ClusterName } from '../../core/cluster.js';
import type { KubeError } from '../../core/errors.js';
import { kubeError } from '../../core/errors.js';
import type { Either } from '../../internal/fp.js';
import { E } from '../../internal/fp.js';

/**
 * The provider workspace's kubeconfig: a fixed source, or a function returning the current one.
 * The function is called for every client built and again after each 401, so a kubeconfig file
 * rewritten with a new token (a restarted kcp, a rotated ServiceAccount token) is picked up without
 * restarting the controller.
 *
 * @example
 * ```ts
 * const fixed: KcpKubeconfig = { file: '/etc/kcp/provider.kubeconfig' };
 * const reread: KcpKubeconfig = () => ({ yaml: fs.readFileSync('/etc/kcp/provider.kubeconfig', 'utf8') });
 * ```
 */
export type KcpKubeconfig = KubeconfigSource | (() => KubeconfigSource);

function current(source: KcpKubeconfig): KubeconfigSource {
  return typeof source === 'function' ? source() : source;
}

/**
 * Loads the provider workspace's kubeconfig as it is now (a fresh copy every call).
 *
 * @example
 * ```ts
 * const kc = loadProviderKubeconfig(clusterName('provider'), { file: 'provider.kubeconfig' });
 * ```
 * @param name - a name for errors.
 * @param source - the kubeconfig or the function returning it.
 * @returns the loaded kubeconfig, or an `InvalidConfig` error (also when the function throws).
 */
export function loadProviderKubeconfig(name: ClusterName, source: KcpKubeconfig): Either<KubeError, LoadedKubeconfig> {
  let src: KubeconfigSource;
  try {
    src = current(source);
  } catch (err) {
    return E.left(kubeError('InvalidConfig', name, `the kubeconfig function failed: ${err instanceof Error ? err.message : String(err)}`));
  }
  return loadKubeconfig(name, src);
}

/**
 * Credentials that re-read the kubeconfig after a 401. Always `dynamic`, so the transport retries a
 * refused request once with the new credentials and watches reconnect with them.
 *
 * @example
 * ```ts
 * const auth = rereadingAuth(clusterName('provider'), () => ({ file: path }));
 * ```
 * @param name - a name for errors.
 * @param source - the kubeconfig or the function returning it.
 * @returns the credential source, or the error of the first load.
 */
export function rereadingAuth(name: ClusterName, source: KcpKubeconfig): Either<KubeError, AuthSource> {
  const first = loadProviderKubeconfig(name, source);
  if (E.isLeft(first)) return first;
  let inner = authFromKubeconfig(first.right);
  return E.right({
    dynamic: true,
    credentials: () => inner.credentials(),
    invalidate: () => {
      inner.invalidate();
      const again = loadProviderKubeconfig(name, source);
      // A kubeconfig that is briefly unreadable (being rewritten) keeps the old credentials; the
      // next 401 tries again.
      if (E.isRight(again)) inner = authFromKubeconfig(again.right);
    },
  });
}

/**
 * A client of `server` (a virtual-workspace URL, possibly with `/clusters/<name>`) with the
 * provider workspace's credentials and TLS settings.
 *
 * @example
 * ```ts
 * const vw = kcpClient(clusterName('2x9k'), `${endpoint}/clusters/2x9k`, { file: 'provider.kubeconfig' });
 * ```
 * @param name - the client's cluster name (in errors and health).
 * @param server - the URL every request path is appended to.
 * @param source - the provider workspace's kubeconfig.
 * @param options - user agent and timeout.
 * @returns the client, or an `InvalidConfig` error.
 */
export function kcpClient(name: ClusterName, server: string, source: KcpKubeconfig, options: ClusterClientOptions = {}): Either<KubeError, ClusterClient> {
  const auth = rereadingAuth(name, source);
  return E.isLeft(auth) ? auth : kcpClientWith(name, server, auth.right, options);
}

/**
 * A client of `server` over credentials already loaded ({@link rereadingAuth}): what an endpoint
 * gives each of its workspaces, so that ten thousand workspaces share one kubeconfig load, one
 * token cache and one re-read after a 401, instead of a copy each.
 *
 * @example
 * ```ts
 * const auth = rereadingAuth(clusterName('vw'), { file: 'provider.kubeconfig' });
 * if (E.isRight(auth)) kcpClientWith(clusterName('2x9k'), `${endpoint}/clusters/2x9k`, auth.right);
 * ```
 * @param name - the client's cluster name (in errors and health).
 * @param server - the URL every request path is appended to.
 * @param auth - the provider workspace's credentials, shared.
 * @param options - user agent and timeout.
 * @returns the client, or an `InvalidConfig` error.
 */
export function kcpClientWith(name: ClusterName, server: string, auth: AuthSource, options: ClusterClientOptions = {}): Either<KubeError, ClusterClient> {
  try {
    return E.right(clientOver(createTransport(name, server, auth, options)));
  } catch {
    return E.left(kubeError('InvalidConfig', name, `invalid server URL ${JSON.stringify(server)}`));
  }
}

/**
 * The provider workspace's server URL from its kubeconfig, e.g. `https://kcp:6443/clusters/root:org:provider`.
 *
 * @example
 * ```ts
 * providerServer(kc); // 'https://127.0.0.1:6443/clusters/root:provider'
 * ```
 * @param kc - the loaded kubeconfig.
 * @returns the server URL.
 */
export function providerServer(kc: LoadedKubeconfig): string {
  return kc.cluster.server;
}

/**
 * The kcp front door of a server URL: everything before `/clusters/…` or `/services/…`.
 *
 * @example
 * ```ts
 * kcpBase('https://kcp:6443/clusters/root:org'); // 'https://kcp:6443'
 * kcpBase('https://kcp:6443/services/apiexport/2x9k/widgets'); // 'https://kcp:6443'
 * ```
 * @param server - a kcp URL.
 * @returns the URL without the workspace or virtual-workspace part, no trailing slash.
 */
export function kcpBase(server: string): string {
  const noSlash = server.replace(/\/+$/, '');
  const at = noSlash.search(/\/(clusters|services)\//);
  return at < 0 ? noSlash : noSlash.slice(0, at);
}
