// Clusters from the ClusterProfile inventory (KEP-4322), with credentials from exec plugins chosen
// by the profile's access providers (KEP-5339), named `<namespace>/<name>` as multicluster-runtime's
// cluster-inventory-api provider. Health is re-checked on a schedule as well as on every change.
import { combineLatest, defer, map, asyncScheduler, timer } from 'rxjs';
import type { Cluster, Provider } from '../../client/cluster.js';
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
import { engineConfig } from '../internal/options.js';
import type { AccessProviderConfig } from './profile.js';
import { clusterProfileResource, controlPlaneHealthy, profileKubeconfig } from './profile.js';

export type { AccessProviderConfig } from './profile.js';
export { clusterProfileResource, controlPlaneHealthy, profileKubeconfig } from './profile.js';
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
  /** How often readiness is evaluated again without a change (ms); default 30 000. */
  readonly recheckInterval?: number;
  /** Passed to the profile watch (timings). */
  readonly watch?: WatchConfig;
}

/**
 * The desired set of a snapshot of profiles.
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
    const name = clusterName(objectId(p));
    const kc = profileKubeconfig(p, providers);
    const c = !isReady(p, now)
      ? skipped(name, 'ControlPlaneHealthy is not True')
      : typeof kc === 'string'
        ? skipped(name, kc)
        : kubeconfigCandidate(name, kc, sha256(kc.yaml));
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
 * failing, once per cause, then recovered.
 *
 * @example
 * ```ts
 * import { clusterProfiles } from 'rxfleet/providers/cluster-profiles';
 * const fleet = createFleet(clusterProfiles({ cluster: hub, providers: [{ name: 'secretreader', execConfig: { command: 'cp-creds', provideClusterInfo: true } }] }));
 * ```
 * @param options - hub, plugins, readiness, timing and reporting.
 * @returns the provider.
 */
export function clusterProfiles(options: ClusterProfilesOptions): Provider {
  const cfg = engineConfig('cluster-profiles', options, 'its ClusterProfile was deleted', true);
  const scheduler = options.scheduler ?? asyncScheduler;
  const isReady = options.isReady ?? ((p: KubeObject) => controlPlaneHealthy(p));
  return defer(() =>
    combineLatest([
      managementWatch(options.cluster, clusterProfileResource, { ...options.watch, ...(options.namespace === undefined ? {} : { namespace: options.namespace }) }, cfg.say).pipe(snapshots()),
      timer(0, options.recheckInterval ?? 30_000, scheduler),
    ]).pipe(
      map(([profiles]) => desiredFromProfiles(profiles, options.providers, isReady, scheduler.now())),
      engageCandidates(cfg),
    ),
  );
}
