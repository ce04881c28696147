// What the cluster-profiles provider wants engaged, from a snapshot of the profiles: a candidate per
// ClusterProfile whose control plane is healthy and whose access provider has a configured plugin.
import type { KubeObject } from '../../core/object.js';
import type { Desired } from '../internal/candidates.js';
import { sha256, skipped } from '../internal/candidates.js';
import { kubeconfigCandidate } from '../internal/kubeconfig.js';
import { desiredByObject } from '../internal/objects.js';
import type { AccessProviderConfig } from './profile.js';
import { clusterSetId, profileKubeconfig } from './profile.js';

/**
 * The desired set of a snapshot of profiles. Each cluster's identity is `ClusterProfile
 * <namespace>/<name>` with the id of {@link clusterSetId} when published, its labels the profile's.
 *
 * @example
 * ```ts
 * desiredFromProfiles(profiles, providers, (p: KubeObject) => controlPlaneHealthy(p), Date.now());
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
  return desiredByObject(profiles, (p, id, name) => {
    const source = `ClusterProfile ${id}`;
    const setId = clusterSetId(p);
    const facts = { identity: { provider: 'cluster-profiles', source, ...(setId === undefined ? {} : { id: setId }) }, labels: p.metadata.labels };
    const kc = profileKubeconfig(p, providers);
    if (!isReady(p, now)) return skipped(name, `${source}: ControlPlaneHealthy is not True`);
    return typeof kc === 'string' ? skipped(name, `${source}: ${kc}`) : kubeconfigCandidate(name, kc, sha256(kc.yaml), facts);
  });
}
