// Clusters from kubeconfig Secrets in a namespace of a management cluster, as multicluster-runtime's
// kubeconfig provider: Secrets labelled `sigs.k8s.io/multicluster-runtime-kubeconfig=true`, the
// kubeconfig under key `kubeconfig`, the cluster named after the Secret. Only a change of the
// kubeconfig itself (or the Secret's labels, which become the cluster's) re-engages; a Secret
// without a usable kubeconfig is reported as skipped with a reason that names the Secret.
import { map } from 'rxjs';
import { ConfigError } from '../../core/config-error.js';
import type { Cluster, Provider } from '../../streams/cluster.js';
import { clusterName } from '../../core/cluster.js';
import type { ClusterName } from '../../core/cluster.js';
import type { Secret } from '../../core/object.js';
import { secrets } from '../../core/resource.js';
import type { WatchStreamOptions } from '../../streams/watch.js';
import type { Candidate, Desired } from '../internal/candidates.js';
import { skipped } from '../internal/candidates.js';
import { engageCandidates } from '../internal/engage.js';
import { managementWatch } from '../internal/management.js';
import { snapshots } from '../internal/objects.js';
import type { ContactOptions } from '../internal/options.js';
import { engineConfig } from '../internal/options.js';
import { reporting } from '../internal/report.js';
import type { KubeconfigTrust } from '../internal/trust.js';
import { secretKubeconfigCandidate } from '../internal/trust.js';

export type { KubeconfigTrust } from '../internal/trust.js';
export type { ContactOptions, ProviderOptions, ProviderReport } from '../clusters/index.js';
export type { Probe } from '../internal/engage.js';

/** The label multicluster-runtime's kubeconfig provider selects Secrets by. @example `{ [kubeconfigSecretLabel]: 'true' }` */
export const kubeconfigSecretLabel = 'sigs.k8s.io/multicluster-runtime-kubeconfig';

/**
 * Options of {@link kubeconfigSecrets}.
 *
 * @example
 * ```ts
 * const opts: KubeconfigSecretsOptions = { cluster: hub, namespace: 'fleet', key: 'value' };
 * // EKS kubeconfigs that get their token from aws-iam-authenticator:
 * const eks: KubeconfigSecretsOptions = { cluster: hub, namespace: 'eks', trust: { execCommands: ['aws-iam-authenticator'] } };
 * ```
 */
export interface KubeconfigSecretsOptions extends ContactOptions {
  /** The management cluster holding the Secrets (its client stays the caller's). */
  readonly cluster: Cluster;
  /** Where the Secrets are; default `default`. */
  readonly namespace?: string;
  /** Which Secrets; default `sigs.k8s.io/multicluster-runtime-kubeconfig=true`. */
  readonly labelSelector?: string;
  /** The data key holding the kubeconfig; default `kubeconfig`. */
  readonly key?: string;
  /** Passed to the Secret watch (timings, injected source for tests). */
  readonly watch?: WatchStreamOptions<Secret>;
  /**
   * Exec plugins and files the Secrets' kubeconfigs may use; default none: a kubeconfig that runs a
   * program or reads a file is skipped, naming the Secret and the field.
   */
  readonly trust?: KubeconfigTrust;
}

/**
 * The candidate of one Secret: named after it, fingerprinted by the kubeconfig's bytes (its labels
 * become the cluster's, and a change of them re-engages it), skipped when the key is missing, empty
 * or not base64 of a kubeconfig (the reason names the Secret), skipped too when the kubeconfig runs
 * a program or reads a file that `trust` does not allow (the reason names the Secret and the field),
 * and absent while the Secret is being deleted. Its identity is `Secret <namespace>/<name>`.
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
  return secretKubeconfigCandidate(name, yaml, { identity: { provider: 'kubeconfig-secrets', source }, labels: secret.metadata.labels }, trust);
}

/**
 * The desired set of a snapshot of Secrets.
 *
 * @example
 * ```ts
 * desiredFromSecrets(new Map([['fleet/east', secret]]), 'kubeconfig');
 * ```
 * @param all - Secrets by `namespace/name`.
 * @param key - the data key.
 * @param trust - exec plugins and files the kubeconfigs may use (default none).
 * @returns candidates by cluster name.
 */
export function desiredFromSecrets(all: ReadonlyMap<string, Secret>, key: string, trust: KubeconfigTrust = {}): Desired {
  const out = new Map<ClusterName, Candidate>();
  for (const s of all.values()) {
    const c = secretCandidate(s, key, trust);
    if (c !== undefined) out.set(c.name, c);
  }
  return out;
}

/**
 * A provider of the clusters whose kubeconfigs are Secrets of a management cluster. Deleting a
 * Secret (or marking it for deletion) disengages its cluster; changing its kubeconfig re-engages
 * it with a new client, and so does changing its labels (the cluster's labels); changing only
 * annotations does nothing. By default a cluster must answer `GET /version` before it is engaged.
 * A Secret whose kubeconfig is missing or does not load is reported as `skipped`, naming the
 * Secret and the cause; so is one whose kubeconfig would run an exec plugin or read a local file
 * (`token-file`, `client-key`…) that `trust` does not allow: a Secret's author gets neither code
 * execution nor file reads in the controller's pod. When the Secret watch itself fails (RBAC refuses to list Secrets, the
 * management cluster is unreachable) it is reported as a `source` report (`failing` once per
 * cause, `recovered` once it works again) while the watch retries. Reports travel in the stream.
 *
 * @example
 * ```ts
 * import { kubeconfigSecrets } from 'rxfleet/providers/kubeconfig-secrets';
 * const fleet = createFleet(kubeconfigSecrets({ cluster: hub, namespace: 'fleet' }));
 * fleet.reports.subscribe((r) => console.log(r));
 * ```
 * @param options - the management cluster, namespace, selector, key, timing and first contact.
 * @returns the provider.
 * @throws ConfigError when `key` is empty or a duration is not positive.
 */
export function kubeconfigSecrets(options: KubeconfigSecretsOptions): Provider {
  const cfg = engineConfig('kubeconfig-secrets', options, 'its Secret was deleted', true);
  const key = options.key ?? 'kubeconfig';
  if (key === '') throw new ConfigError('kubeconfig-secrets provider: `key` must not be empty (it names the Secret data key holding the kubeconfig)');
  return reporting(cfg, (say) =>
    managementWatch(
      options.cluster,
      secrets,
      {
        ...options.watch,
        namespace: options.namespace ?? 'default',
        labelSelector: options.labelSelector ?? `${kubeconfigSecretLabel}=true`,
      },
      say,
    ).pipe(
      snapshots(),
      map((all) => desiredFromSecrets(all, key, options.trust)),
      engageCandidates(cfg, say),
    ),
  );
}
