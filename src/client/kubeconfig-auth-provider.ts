// Legacy `auth-provider` users (oidc, gcp, azure, a tokenFile config): their plugins live in
// @kubernetes/client-node, which is imported here on first use only. Importing it costs ~85 MiB and
// ~0.3 s, which a controller whose kubeconfigs use tokens, certificates or exec plugins (kubectl's
// recommended way since the auth providers were removed from it) never pays.
import type { KubeConfig } from '@kubernetes/client-node';
import type { KubeconfigCluster, KubeconfigUser } from './kubeconfig-types.js';

/**
 * The `Authorization` header an auth provider gives, through a client-node KubeConfig of our own
 * (created on first use, holding the provider's token cache until `reset`).
 *
 * @example
 * ```ts
 * const provider = authProviderHeader(kc.cluster, kc.user);
 * const authorization = await provider.authorization(); // 'Bearer …' or undefined
 * ```
 * @param cluster - the user's cluster (its name and server).
 * @param user - a user with an `authProvider`.
 * @returns the header source; `reset()` drops the provider's cached token (after a 401).
 */
export function authProviderHeader(cluster: KubeconfigCluster, user: KubeconfigUser): { authorization(): Promise<string | undefined>; reset(): void } {
  let kc: Promise<KubeConfig> | undefined;
  const make = async (): Promise<KubeConfig> => {
    const { KubeConfig: Config } = await import('@kubernetes/client-node');
    const out = new Config();
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
      await config.applyToHTTPSOptions(scratch as Parameters<KubeConfig['applyToHTTPSOptions']>[0]);
      const value = scratch.headers?.Authorization;
      return typeof value === 'string' ? value : undefined;
    },
    reset(): void {
      kc = undefined;
    },
  };
}
