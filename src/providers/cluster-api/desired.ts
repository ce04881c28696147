// What the cluster-api provider wants engaged, from the two management watches: a candidate per
// Cluster object, with its kubeconfig Secret, or skipped with the reason it cannot be engaged yet.
import type { KubeObject, Secret } from '../../core/object.js';
import type { Desired } from '../internal/candidates.js';
import { skipped } from '../internal/candidates.js';
import type { KubeconfigTrust } from '../internal/trust.js';
import { secretKubeconfigCandidate } from '../internal/trust.js';
import { desiredByObject } from '../internal/objects.js';

/**
 * The desired set from Cluster objects and kubeconfig Secrets, both by `namespace/name`. Each
 * cluster's identity is `Cluster <namespace>/<name>` and its labels the Cluster object's.
 *
 * @example
 * ```ts
 * desiredFromCapi(capiObjects, kubeconfigSecretsByName, controlPlaneInitialized, 'value');
 * ```
 * @param capi - Cluster objects.
 * @param kubeconfigs - Secrets.
 * @param isReady - the readiness test.
 * @param key - the Secret data key.
 * @param trust - exec plugins and files the kubeconfigs may use (default none: refused, naming the Secret and the field).
 * @returns candidates by `<namespace>/<name>`.
 */
export function desiredFromCapi(
  capi: ReadonlyMap<string, KubeObject>,
  kubeconfigs: ReadonlyMap<string, Secret>,
  isReady: (cluster: KubeObject) => boolean,
  key: string,
  trust: KubeconfigTrust = {},
): Desired {
  return desiredByObject(capi, (c, id, name) => {
    const secretId = `${id}-kubeconfig`;
    const data = kubeconfigs.get(secretId)?.data?.[key];
    const yaml = data === undefined ? '' : Buffer.from(data, 'base64').toString('utf8');
    const facts = { identity: { provider: 'cluster-api', source: `Cluster ${id}` }, labels: c.metadata.labels, origin: `kubeconfig Secret ${secretId} of Cluster ${id}` };
    if (!isReady(c)) return skipped(name, `Cluster ${id}: control plane not initialised yet`);
    if (!kubeconfigs.has(secretId)) return skipped(name, `kubeconfig Secret ${secretId} of Cluster ${id} not found`);
    if (yaml.trim() === '') return skipped(name, `kubeconfig Secret ${secretId} of Cluster ${id} has no "${key}"`);
    return secretKubeconfigCandidate(name, yaml, facts, trust);
  });
}
