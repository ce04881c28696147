// What the cluster-profiles provider wants engaged: a candidate per
// ClusterProfile whose control plane is healthy and whose access provider has a configured plugin.
import type { KubeObject } from '../../core/object.js';
import type { ClusterName } from '../../core/cluster.js';
import type { Candidate } from '../internal/candidates.js';
import { sha256, skipped } from '../internal/candidates.js';
import { kubeconfigCandidate } from '../internal/kubeconfig.js';
import type { AccessProviderConfig } from './profile.js';
import { clusterSetId, profileKubeconfig } from './profile.js';

/**
 * The candidate of one profile, judged at `now`: skipped (with the reason) while its control plane
 * is not healthy or no configured plugin serves its access providers. With `made`, the candidate of
 * a healthy profile object is made once and reused (a profile object is replaced when it changes):
 * the recheck judges every profile again without loading its kubeconfig again.
 *
 * @example
 * ```ts
 * profileCandidate(profile, 'inv/p1', clusterName('inv/p1'), { providers, isReady: (p: KubeObject) => controlPlaneHealthy(p), now: Date.now() });
 * ```
 * @param p - the ClusterProfile.
 * @param id - its `namespace/name`.
 * @param name - the cluster's fleet name.
 * @param rules - the configured plugins, the readiness test, the clock, and the candidates made so far.
 * @returns the candidate.
 */
export function profileCandidate(
  p: KubeObject,
  id: string,
  name: ClusterName,
  rules: {
    readonly providers: readonly AccessProviderConfig[];
    readonly isReady: (profile: KubeObject, now: number) => boolean;
    readonly now: number;
    readonly made?: WeakMap<KubeObject, Candidate>;
  },
): Candidate {
  const source = `ClusterProfile ${id}`;
  if (!rules.isReady(p, rules.now)) return skipped(name, `${source}: ControlPlaneHealthy is not True`);
  const known = rules.made?.get(p);
  if (known !== undefined) return known;
  const setId = clusterSetId(p);
  const facts = { identity: { provider: 'cluster-profiles', from: source, ...(setId === undefined ? {} : { id: setId }) }, labels: p.metadata.labels };
  const kc = profileKubeconfig(p, rules.providers);
  const c = typeof kc === 'string' ? skipped(name, `${source}: ${kc}`) : kubeconfigCandidate(name, kc, sha256(kc.yaml), facts);
  rules.made?.set(p, c);
  return c;
}
