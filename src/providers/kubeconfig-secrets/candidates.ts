// What the kubeconfig-secrets provider wants engaged: a candidate per Secret, fingerprinted by its
// kubeconfig, or skipped with a reason that names the Secret.
import { clusterName } from '../../core/cluster.js';
import type { Secret } from '../../core/object.js';
import type { Candidate } from '../internal/candidates.js';
import { skipped } from '../internal/candidates.js';
import type { KubeconfigTrust } from '../../client/kubeconfig-trust.js';
import { secretKubeconfigCandidate } from '../internal/trust.js';

/**
 * The candidate of one Secret: named after it, fingerprinted by the kubeconfig's bytes (its labels
 * become the cluster's, and a change of them re-engages it), skipped when the key is missing, empty
 * or not base64 of a kubeconfig (the reason names the Secret), and absent while the Secret is being
 * deleted. Its identity is `Secret <namespace>/<name>`.
 *
 * @example
 * ```ts
 * secretCandidate(secret, 'kubeconfig');
 * ```
 * @param secret - the Secret.
 * @param key - the data key.
 * @param trust - exec plugins and files the kubeconfig may use (default none).
 * @returns the candidate, or undefined for a Secret being deleted.
 */
export function secretCandidate(secret: Secret, key: string, trust: KubeconfigTrust = {}): Candidate | undefined {
  if (secret.metadata.deletionTimestamp !== undefined) return undefined;
  const name = clusterName(secret.metadata.name ?? '?');
  const source = `Secret ${secret.metadata.namespace ?? ''}/${name}`;
  const data = secret.data?.[key];
  if (data === undefined) return skipped(name, `${source} has no "${key}" key`);
  const yaml = Buffer.from(data, 'base64').toString('utf8');
  if (yaml.trim() === '') return skipped(name, `${source} has an empty "${key}"`);
  return secretKubeconfigCandidate(name, yaml, { identity: { provider: 'kubeconfig-secrets', from: source }, labels: secret.metadata.labels }, trust);
}
