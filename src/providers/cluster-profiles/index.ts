/**
 * Clusters from the ClusterProfile inventory (KEP-4322), with credentials from exec plugins chosen
 * by the profile's access providers (KEP-5339), named `<namespace>/<name>` as multicluster-runtime's
 * cluster-inventory-api provider. Health is re-checked on a schedule as well as on every change. A
 * cluster's labels are the profile's; its identity's id the `cluster.clusterset.k8s.io` property.
 *
 * @packageDocumentation
 * @module rxfleet/providers/cluster-profiles
 */
// First: fails clearly on an unsupported Node before anything else loads.
import '../../internal/require-node.js';
import { timer } from 'rxjs';
import { clusterName } from '../../core/cluster.js';
import { ConfigError } from '../../core/config-error.js';
import type { Cluster, Provider } from '../../streams/cluster.js';
import type { KubeObject } from '../../core/object.js';
import type { ManagementWatchOptions } from '../../streams/watched.js';
import type { Candidate } from '../internal/candidates.js';
import { desiredPerObject } from '../internal/desired-per-object.js';
import { engageChanges } from '../internal/engage.js';
import { managementWatch } from '../internal/management.js';
import { objectChanges, restateOn } from '../internal/objects.js';
import type { ContactOptions } from '../../streams/provider-options.js';
import { durationOption, engineConfig } from '../internal/options.js';
import { reporting } from '../internal/report.js';
import type { AccessProviderConfig } from './profile.js';
import { profileCandidate } from './desired.js';
import { clusterProfileResource, controlPlaneHealthy } from './profile.js';

export type { AccessProviderConfig } from './profile.js';
export { clusterProfileResource, clusterSetId, clusterSetIdProperty, controlPlaneHealthy } from './profile.js';

/**
 * Options of {@link clusterProfileProvider}.
 *
 * @example
 * ```ts
 * const opts: ClusterProfileProviderOptions = { management: hub, namespace: 'fleet', providers: [{ name: 'secretreader', execConfig: { command: 'cp-creds' } }] };
 * ```
 */
export interface ClusterProfileProviderOptions extends ContactOptions {
  /** The hub cluster holding the profiles (its client stays the caller's). */
  readonly management: Cluster;
  /** Only this namespace; default all. */
  readonly namespace?: string;
  /** Exec plugins by access-provider name (KEP-5339's `providers` list). */
  readonly providers: readonly AccessProviderConfig[];
  /** When a profile may be engaged, given the clock (ms); default its `ControlPlaneHealthy` condition. */
  readonly isReady?: (profile: KubeObject, now: number) => boolean;
  /** How often readiness is evaluated again without a change; default 30 000. */
  readonly recheckIntervalMs?: number;
  /** How the provider watches its management cluster (the profile watch): timings, backoff, `listerWatcherFor`. */
  readonly managementWatch?: ManagementWatchOptions;
}

/**
 * A provider of the clusters of a ClusterProfile inventory. A profile is engaged while it is
 * healthy and one of its access providers has a configured exec plugin; the plugin issues the
 * credentials (refreshed before they expire and after a 401, see `authFromKubeconfig`). A change of
 * the published endpoint or CA re-engages the cluster; an unhealthy or deleted profile disengages.
 * A failing profile watch on the hub (RBAC, CRD missing, unreachable) is reported as `source`
 * failing, once per cause, then recovered. Reports travel in the provider's stream.
 *
 * @example
 * ```ts
 * import { clusterProfileProvider } from 'rxfleet/providers/cluster-profiles';
 * const fleet = createFleet(clusterProfileProvider({ management: hub, providers: [{ name: 'secretreader', execConfig: { command: 'cp-creds', provideClusterInfo: true } }] }));
 * ```
 * @param options - hub, plugins, readiness, timing and first contact.
 * @returns the provider.
 * @throws ConfigError when `providers` is empty (no profile could ever get credentials) or a duration is not positive.
 */
export function clusterProfileProvider(options: ClusterProfileProviderOptions): Provider {
  const cfg = engineConfig('cluster-profiles', options, 'its ClusterProfile was deleted', true);
  const recheckMs = durationOption('cluster-profiles', 'recheckIntervalMs', options.recheckIntervalMs, 30_000);
  if (options.providers.length === 0) {
    throw new ConfigError('cluster-profiles provider: `providers` is empty, so no ClusterProfile can get credentials; configure the exec plugin of at least one access provider');
  }
  const isReady = options.isReady ?? ((p: KubeObject) => controlPlaneHealthy(p));
  return reporting(cfg, (say) => {
    // Per subscription: a healthy profile object's candidate (its kubeconfig loaded) is made once.
    const made = new WeakMap<KubeObject, Candidate>();
    return managementWatch(
      options.management,
      clusterProfileResource,
      { ...options.managementWatch, ...(options.namespace === undefined ? {} : { namespace: options.namespace }) },
      say,
    ).pipe(
      objectChanges(),
      // Health is judged on the clock too: every profile is judged again each recheck.
      restateOn(timer(recheckMs, recheckMs, cfg.scheduler)),
      desiredPerObject((p: KubeObject, id: string) =>
        p.metadata.deletionTimestamp === undefined
          ? profileCandidate(p, id, clusterName(id), { providers: options.providers, isReady, now: cfg.scheduler.now(), made })
          : undefined,
      ),
      engageChanges(cfg, say),
    );
  });
}
