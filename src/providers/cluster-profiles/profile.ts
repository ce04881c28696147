// Reading a ClusterProfile (KEP-4322, multicluster.x-k8s.io/v1alpha1): its health condition and the
// cluster endpoints its access providers publish (KEP-5339), turned into a kubeconfig that runs
// the matching exec credential plugin.
import type { ExecPluginConfig } from '../../client/exec-credential.js';
import type { KubeObject } from '../../core/object.js';
import { resource } from '../../core/resource.js';

/** ClusterProfiles (multicluster.x-k8s.io/v1alpha1). @example `watch(hub, clusterProfiles, { namespace: 'fleet' })` */
export const clusterProfileResource = resource({ group: 'multicluster.x-k8s.io', version: 'v1alpha1', plural: 'clusterprofiles', kind: 'ClusterProfile', namespaced: true });

/**
 * One entry of the credential-provider configuration (KEP-5339's `providers` list): the exec plugin
 * that issues credentials for profiles published by access provider `name`.
 *
 * @example
 * ```ts
 * const p: AccessProviderConfig = { name: 'secretreader', execConfig: { command: '/usr/local/bin/cp-creds', apiVersion: 'client.authentication.k8s.io/v1', provideClusterInfo: true } };
 * ```
 */
export interface AccessProviderConfig {
  readonly name: string;
  readonly execConfig: ExecPluginConfig;
}

interface ProfileCluster {
  readonly server?: string;
  readonly 'certificate-authority-data'?: string;
  readonly 'insecure-skip-tls-verify'?: boolean;
  readonly 'tls-server-name'?: string;
}

interface ProfileStatus {
  readonly conditions?: readonly { readonly type?: string; readonly status?: string }[];
  readonly accessProviders?: readonly { readonly name?: string; readonly cluster?: ProfileCluster }[];
  readonly credentialProviders?: readonly { readonly name?: string; readonly cluster?: ProfileCluster }[];
}

/**
 * Whether a profile's `ControlPlaneHealthy` condition is `True`.
 *
 * @example
 * ```ts
 * controlPlaneHealthy(profile); // false until the cluster manager reports it healthy
 * ```
 * @param profile - the ClusterProfile.
 * @returns the condition's truth.
 */
export function controlPlaneHealthy(profile: KubeObject): boolean {
  const s = (profile.status ?? {}) as ProfileStatus;
  return (s.conditions ?? []).some((c) => c.type === 'ControlPlaneHealthy' && c.status === 'True');
}

/**
 * The kubeconfig (as JSON, valid YAML) for a profile: the cluster endpoint published by the first
 * access provider (`status.accessProviders`, or the older `status.credentialProviders`) that has
 * a configured plugin, and that plugin as the user. `Left`-style: a string says why there is none.
 *
 * @example
 * ```ts
 * const kc = profileKubeconfig(profile, [{ name: 'secretreader', execConfig: { command: 'cp-creds' } }]);
 * if (typeof kc !== 'string') createClusterClient(name, { yaml: kc.yaml });
 * ```
 * @param profile - the ClusterProfile.
 * @param providers - the configured plugins.
 * @returns `{ yaml }`, or the reason.
 */
export function profileKubeconfig(profile: KubeObject, providers: readonly AccessProviderConfig[]): { readonly yaml: string } | string {
  const s = (profile.status ?? {}) as ProfileStatus;
  const published = s.accessProviders ?? s.credentialProviders ?? [];
  if (published.length === 0) return 'status lists no access providers';
  for (const p of published) {
    const plugin = providers.find((c) => c.name === p.name);
    if (plugin === undefined) continue;
    const c = p.cluster ?? {};
    if (c.server === undefined || c.server === '') return `access provider "${p.name ?? ''}" publishes no server`;
    const exec = plugin.execConfig;
    const kubeconfig = {
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'profile', cluster: { ...c, server: c.server } }],
      users: [
        {
          name: p.name,
          user: {
            exec: {
              apiVersion: exec.apiVersion ?? 'client.authentication.k8s.io/v1',
              command: exec.command,
              args: exec.args ?? [],
              env: exec.env ?? [],
              provideClusterInfo: exec.provideClusterInfo ?? false,
              interactiveMode: 'Never',
            },
          },
        },
      ],
      contexts: [{ name: 'profile', context: { cluster: 'profile', user: p.name } }],
      'current-context': 'profile',
    };
    return { yaml: JSON.stringify(kubeconfig) };
  }
  return `no configured plugin for access providers ${published.map((p) => `"${p.name ?? ''}"`).join(', ')}`;
}
