// Reading a ClusterProfile (KEP-4322, multicluster.x-k8s.io/v1alpha1): its health condition and the
// cluster endpoints its access providers publish (KEP-5339), turned into a kubeconfig that runs
// the matching exec credential plugin, and the cluster's identity from its ClusterProperties.
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
  /** The access provider's name, as profiles publish it in `status.accessProviders[].name`. */
  readonly name: string;
  /** The exec credential plugin that issues credentials for its clusters. */
  readonly execConfig: ExecPluginConfig;
}

interface ProfileCluster {
  readonly server?: string;
  readonly 'certificate-authority-data'?: string;
  readonly 'insecure-skip-tls-verify'?: boolean;
  readonly 'tls-server-name'?: string;
  /** A file path: never read from a profile (see profileKubeconfig). */
  readonly 'certificate-authority'?: unknown;
}

interface ProfileStatus {
  readonly conditions?: readonly { readonly type?: string; readonly status?: string }[];
  /** ClusterProperties the cluster manager copied (KEP-4322 `status.properties`, name and value). */
  readonly properties?: readonly { readonly name?: string; readonly value?: string }[];
  readonly accessProviders?: readonly { readonly name?: string; readonly cluster?: ProfileCluster }[];
  readonly credentialProviders?: readonly { readonly name?: string; readonly cluster?: ProfileCluster }[];
}

/**
 * The ClusterProperty that holds a cluster's identity within its ClusterSet (KEP-2149).
 *
 * @example
 * ```ts
 * clusterSetIdProperty; // 'cluster.clusterset.k8s.io'
 * ```
 */
export const clusterSetIdProperty = 'cluster.clusterset.k8s.io';

/**
 * A profile's cluster identity: the value of its `cluster.clusterset.k8s.io` property in
 * `status.properties`, as the cluster-inventory-api's Go provider reads it; `undefined` when the
 * cluster manager publishes none.
 *
 * @example
 * ```ts
 * clusterSetId(profile); // 'east.clusterset.local', or undefined
 * ```
 * @param profile - the ClusterProfile.
 * @returns the identity, or `undefined`.
 */
export function clusterSetId(profile: KubeObject): string | undefined {
  const s = (profile.status ?? {}) as ProfileStatus;
  const value = (s.properties ?? []).find((p) => p.name === clusterSetIdProperty)?.value;
  return value === undefined || value === '' ? undefined : value;
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
 * The plugin is the operator's, so it runs; the endpoint is whatever the profile's writer
 * published, so one naming a `certificate-authority` file on the controller's disk is refused.
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
export function profileKubeconfig(
  profile: KubeObject,
  providers: readonly AccessProviderConfig[],
):
  | {
      /** The kubeconfig, as JSON (which is YAML). */
      readonly yaml: string;
    }
  | string {
  const s = (profile.status ?? {}) as ProfileStatus;
  const published = s.accessProviders ?? s.credentialProviders ?? [];
  if (published.length === 0) return 'status lists no access providers';
  for (const p of published) {
    const plugin = providers.find((c) => c.name === p.name);
    if (plugin === undefined) continue;
    const c = p.cluster ?? {};
    if (c.server === undefined || c.server === '') return `access provider "${p.name ?? ''}" publishes no server`;
    const caFile = c['certificate-authority'];
    if (caFile !== undefined && caFile !== null && caFile !== '') {
      return `access provider "${p.name ?? ''}" publishes certificate-authority, a file path the controller does not read from a ClusterProfile (publish certificate-authority-data)`;
    }
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
