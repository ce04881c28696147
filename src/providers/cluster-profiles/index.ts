// Clusters from the ClusterProfile inventory (KEP-4322), with credentials from exec plugins chosen
// by the profile's access providers (KEP-5339), named `<namespace>/<name>` as multicluster-runtime's
// cluster-inventory-api provider. Health is re-checked on a schedule as well as on every change. A
// cluster's labels are the profile's; its identity's id the `cluster.clusterset.k8s.io` property.
import { combineLatest, map, timer } from 'rxjs';
import { ConfigError } from '../../core/config-error.js';
import type { Cluster, Provider } from '../../streams/cluster.js';
import type { ClusterName } from '../../core/cluster.js';
import { clusterName } from '../../core/cluster.js';
import type { KubeObject } from '../../core/object.js';
import type { WatchConfig } from '../../streams/watch-config.js';
import type { Candidate, Desired } from '../internal/candidates.js';
import { sha256, skipped } from '../internal/candidates.js';
import { engageCandidates } from '../internal/engage.js';
import { kubeconfigCandidate } from '../internal/kubeconfig.js';
import { managementWatch } from '../internal/management.js';
import { objectId, snapshots } from '../internal/objects.js';
import type { ContactOptions } from '../internal/options.js';
import { durationOption, engineConfig } from '../internal/options.js';
import { reporting } from '../internal/report.js';
import type { AccessProviderConfig } from './profile.js';
import { clusterProfileResource, clusterSetId, controlPlaneHealthy, profileKubeconfig } from './profile.js';

export type { AccessProviderConfig } from './profile.js';
export { clusterProfileResource, clusterSetId, clusterSetIdProperty, controlPlaneHealthy, profileKubeconfig } from './profile.js';
export type { ContactOptions, ProviderOptions, ProviderReport } from '../clusters/index.js';
export type { Probe } from '../internal/engage.js';

/**
 * Options of {@link clusterProfiles}.
 *
 * @example
 * ```ts
 * const opts: ClusterProfilesOptions = { cluster: hub, namespace: 'fleet', providers: [{ name: 'secretreader', execConfig: { command: 'cp-creds' } }] };
 * ```
 */
export interface ClusterProfilesOptions extends ContactOptions {
  /** The hub cluster holding the profiles (its client stays the caller's). */
  readonly cluster: Cluster;
  /** Only this namespace; default all. */
  readonly namespace?: string;
  /** Exec plugins by access-provider name (KEP-5339's `providers` list). */
  readonly providers: readonly AccessProviderConfig[];
  /** When a profile may be engaged, given the clock (ms); default its `ControlPlaneHealthy` condition. */
  readonly isReady?: (profile: KubeObject, now: number) => boolean;
  /** How often readiness is evaluated again without a change; default 30 000. */
  readonly recheckIntervalMs?: number;
  /** Passed to the profile watch (timings). */
  readonly watch?: WatchConfig;
}

/**
 * The desired set of a snapshot of profiles. Each cluster's identity is `ClusterProfile
 * <namespace>/<name>` with the id of {@link clusterSetId} when published, its labels the profile's.
 *
 * @example
 * ```ts
 * desiredFromProfiles(profiles, providers, (p) => controlPlaneHealthy(p), Date.now());
 * ```
 * @param profiles - ClusterProfiles by `namespace/name`.
 * @param providers - the configured plugins.
 * @param isReady - the readiness test.
 * @param now - the clock, for `isReady`.
 * @returns candidates by `<namespace>/<name>`.
 */
export function desiredFromProfiles(
  profiles: ReadonlyMap<string, KubeObject>,
  providers: readonly AccessProviderConfig[],
  isReady: (profile: KubeObject, now: number) => boolean,
  now: number,
): Desired {
  const out = new Map<ClusterName, Candidate>();
  for (const p of profiles.values()) {
    if (p.metadata.deletionTimestamp !== undefined) continue;
    const id = objectId(p);
    const name = clusterName(id);
    const source = `ClusterProfile ${id}`;
    const setId = clusterSetId(p);
    const facts = { identity: { provider: 'cluster-profiles', source, ...(setId === undefined ? {} : { id: setId }) }, labels: p.metadata.labels };
    const kc = profileKubeconfig(p, providers);
    const c = !isReady(p, now)
      ? skipped(name, `${source}: ControlPlaneHealthy is not True`)
      : typeof kc === 'string'
        ? skipped(name, `${source}: ${kc}`)
        : kubeconfigCandidate(name, kc, sha256(kc.yaml), facts);
    out.set(name, c);
  }
  return out;
}

/**
 * A provider of the clusters of a ClusterProfile inventory. A profile is engaged while it is
 * healthy and one of its access providers has a configured exec plugin; the plugin issues the
 * credentials (refreshed before they expire and after a 401, see `authFromKubeConfig`). A change of
 * the published endpoint or CA re-engages the cluster; an unhealthy or deleted profile disengages.
 * A failing profile watch on the hub (RBAC, CRD missing, unreachable) is reported as `source`
 * failing, once per cause, then recovered. Reports travel in the provider's stream.
 *
 * @example
 * ```ts
 * import { clusterProfiles } from 'rxfleet/providers/cluster-profiles';
 * const fleet = createFleet(clusterProfiles({ cluster: hub, providers: [{ name: 'secretreader', execConfig: { command: 'cp-creds', provideClusterInfo: true } }] }));
 * ```
 * @param options - hub, plugins, readiness, timing and first contact.
 * @returns the provider.
 * @throws ConfigError when `providers` is empty (no profile could ever get credentials) or a duration is not positive.
 */
export function clusterProfiles(options: ClusterProfilesOptions): Provider {
  const cfg = engineConfig('cluster-profiles', options, 'its ClusterProfile was deleted', true);
  const recheckMs = durationOption('cluster-profiles', 'recheckIntervalMs', options.recheckIntervalMs, 30_000);
  if (options.providers.length === 0) {
    throw new ConfigError('cluster-profiles provider: `providers` is empty, so no ClusterProfile can get credentials; configure the exec plugin of at least one access provider');
  }
  const isReady = options.isReady ?? ((p: KubeObject) => controlPlaneHealthy(p));
  return reporting(cfg, (say) =>
    combineLatest([
      managementWatch(options.cluster, clusterProfileResource, { ...options.watch, ...(options.namespace === undefined ? {} : { namespace: options.namespace }) }, say).pipe(snapshots()),
      timer(0, recheckMs, cfg.scheduler),
    ]).pipe(
      map(([profiles]) => desiredFromProfiles(profiles, options.providers, isReady, cfg.scheduler.now())),
      engageCandidates(cfg, say),
    ),
  );
}
