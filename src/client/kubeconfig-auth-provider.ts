// Legacy `auth-provider` users (oidc, gcp, azure, a tokenFile config): their plugins live in
// @kubernetes/client-node, an optional peer dependency of rxfleet, imported here on first use only.
// Importing it costs ~85 MiB and ~0.3 s, which a controller whose kubeconfigs use tokens,
// certificates or exec plugins (kubectl's recommended way since the auth providers were removed
// from it) never pays, and installing it ~60 MB, which such a controller does not need either.
// Without it, only the clusters whose user has an auth-provider fail, each with an error saying
// what to install. client-node's types stay out of the declaration files too (they are taken by
// shape): a user without it compiles with skipLibCheck: false.
import type { KubeconfigAuthProvider, KubeconfigCluster, KubeconfigUser } from './kubeconfig-types.js';

/**
 * What rxfleet calls on a @kubernetes/client-node `KubeConfig` (any client-node KubeConfig is one).
 *
 * @example
 * ```ts
 * const kc: AuthProviderConfig = new (await import('@kubernetes/client-node')).KubeConfig();
 * ```
 */
export interface AuthProviderConfig {
  /** Takes one cluster and one user (with its `authProvider`) as the whole configuration. */
  loadFromClusterAndUser(cluster: { name: string; server: string; skipTLSVerify: boolean }, user: { name: string; authProvider?: KubeconfigAuthProvider | undefined }): void;
  /** Runs the user's auth provider and puts its `Authorization` header into `opts.headers`. */
  applyToHTTPSOptions(opts: { headers?: Record<string, unknown> }): Promise<void>;
}

/**
 * What rxfleet uses of the @kubernetes/client-node module: its `KubeConfig` class.
 *
 * @example
 * ```ts
 * const clientNode: ClientNodeModule = await import('@kubernetes/client-node');
 * ```
 */
export interface ClientNodeModule {
  /** client-node's KubeConfig, which runs the auth-provider plugins. */
  readonly KubeConfig: new () => AuthProviderConfig;
}

/**
 * Loads @kubernetes/client-node; rejects when it cannot (`ERR_MODULE_NOT_FOUND` when it is not
 * installed). Injected, so that a test can give an import that fails.
 *
 * @example
 * ```ts
 * const load: ClientNodeLoader = () => import('@kubernetes/client-node');
 * ```
 */
export type ClientNodeLoader = () => Promise<ClientNodeModule>;

/**
 * The loader rxfleet uses: a dynamic import of @kubernetes/client-node, run on the first request of
 * a cluster whose user has an auth-provider.
 *
 * @example
 * ```ts
 * const header = authProviderHeader(kc.cluster, kc.user, importClientNode);
 * ```
 * @returns the module.
 */
export const importClientNode: ClientNodeLoader = () => import('@kubernetes/client-node');

/** The error of a user whose auth-provider cannot run: which user, which provider, what to install. */
function clientNodeMissing(user: KubeconfigUser, err: unknown): Error {
  const notInstalled = typeof err === 'object' && err !== null && (err as { code?: unknown }).code === 'ERR_MODULE_NOT_FOUND';
  const why = notInstalled ? 'which is not installed' : `which did not load (${err instanceof Error ? (err.message.split('\n')[0] ?? '') : String(err)})`;
  return new Error(
    `kubeconfig user "${user.name}" uses the legacy auth-provider "${user.authProvider?.name ?? ''}", which needs @kubernetes/client-node ` +
      `(an optional peer dependency of rxfleet), ${why}: npm install @kubernetes/client-node, or give the user an exec plugin or a token instead`,
    { cause: err },
  );
}

/**
 * The `Authorization` header an auth provider gives, through a client-node KubeConfig of our own
 * (created on first use, holding the provider's token cache until `reset`). When client-node cannot
 * be loaded, `authorization()` rejects with an error naming the user, its auth-provider and the
 * package to install (`npm install @kubernetes/client-node`); the next call tries again.
 *
 * @example
 * ```ts
 * const provider = authProviderHeader(kc.cluster, kc.user);
 * const authorization = await provider.authorization(); // 'Bearer …' or undefined
 * ```
 * @param cluster - the user's cluster (its name and server).
 * @param user - a user with an `authProvider`.
 * @param load - how to load @kubernetes/client-node (default: import it).
 * @returns the header source; `reset()` drops the provider's cached token (after a 401).
 */
export function authProviderHeader(
  cluster: KubeconfigCluster,
  user: KubeconfigUser,
  load: ClientNodeLoader = importClientNode,
): { authorization(): Promise<string | undefined>; reset(): void } {
  let kc: Promise<AuthProviderConfig> | undefined;
  const make = async (): Promise<AuthProviderConfig> => {
    let clientNode: ClientNodeModule;
    try {
      clientNode = await load();
    } catch (err) {
      throw clientNodeMissing(user, err);
    }
    const out = new clientNode.KubeConfig();
    // A copy: providers write refreshed tokens into their config, and ours is frozen.
    out.loadFromClusterAndUser({ name: cluster.name, server: cluster.server, skipTLSVerify: cluster.skipTLSVerify }, { name: user.name, authProvider: structuredClone(user.authProvider) });
    return out;
  };
  return {
    async authorization(): Promise<string | undefined> {
      kc ??= make();
      const config = await kc.catch((err: unknown) => {
        kc = undefined;
        throw err;
      });
      const scratch: { headers?: Record<string, unknown> } = {};
      await config.applyToHTTPSOptions(scratch);
      const value = scratch.headers?.Authorization;
      return typeof value === 'string' ? value : undefined;
    },
    reset(): void {
      kc = undefined;
    },
  };
}
