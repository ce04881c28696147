/**
 * Clusters from kubeconfig Secrets in a namespace of a management cluster, as multicluster-runtime's
 * kubeconfig provider: Secrets labelled `sigs.k8s.io/multicluster-runtime-kubeconfig=true`, the
 * kubeconfig under key `kubeconfig`, the cluster named after the Secret. Only a change of the
 * kubeconfig itself (or the Secret's labels, which become the cluster's) re-engages; a Secret
 * without a usable kubeconfig is reported as skipped with a reason that names the Secret.
 *
 * @packageDocumentation
 * @module rxfleet/providers/kubeconfig-secrets
 */
// First: fails clearly on an unsupported Node before anything else loads.
import '../../internal/require-node.js';
import { ConfigError } from '../../core/config-error.js';
import type { Secret } from '../../core/object.js';
import type { Cluster, Provider } from '../../streams/cluster.js';
import { secrets } from '../../core/resource.js';
import type { ManagementWatchOptions } from '../../streams/watched.js';
import { desiredPerObject } from '../internal/desired-per-object.js';
import { engageChanges } from '../internal/engage.js';
import { managementWatch } from '../internal/management.js';
import { objectChanges } from '../internal/objects.js';
import type { ContactOptions } from '../../streams/provider-options.js';
import { engineConfig } from '../internal/options.js';
import { reporting } from '../internal/report.js';
import type { KubeconfigTrust } from '../../client/kubeconfig-trust.js';
import { secretCandidate } from './candidates.js';


/** The label multicluster-runtime's kubeconfig provider selects Secrets by. @example `{ [kubeconfigSecretLabel]: 'true' }` */
export const kubeconfigSecretLabel = 'sigs.k8s.io/multicluster-runtime-kubeconfig';

/**
 * Options of {@link kubeconfigSecretProvider}.
 *
 * @example
 * ```ts
 * const opts: KubeconfigSecretProviderOptions = { management: hub, namespace: 'fleet', secretKey: 'value' };
 * // EKS kubeconfigs that get their token from aws-iam-authenticator:
 * const eks: KubeconfigSecretProviderOptions = { management: hub, namespace: 'eks', trust: { execCommands: ['aws-iam-authenticator'] } };
 * ```
 */
export interface KubeconfigSecretProviderOptions extends ContactOptions {
  /** The management cluster holding the Secrets (its client stays the caller's). */
  readonly management: Cluster;
  /** Where the Secrets are; default `default`. */
  readonly namespace?: string;
  /** Which Secrets; default `sigs.k8s.io/multicluster-runtime-kubeconfig=true`. */
  readonly labelSelector?: string;
  /** The data key holding the kubeconfig; default `kubeconfig`. */
  readonly secretKey?: string;
  /** How the provider watches its management cluster (the Secret watch): timings, backoff, `listerWatcherFor`. */
  readonly managementWatch?: ManagementWatchOptions;
  /**
   * Exec plugins and files the Secrets' kubeconfigs may use; default none: a kubeconfig that runs a
   * program or reads a file is skipped, naming the Secret and the field.
   */
  readonly trust?: KubeconfigTrust;
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
 * import { kubeconfigSecretProvider } from 'rxfleet/providers/kubeconfig-secrets';
 * const fleet = createFleet(kubeconfigSecretProvider({ management: hub, namespace: 'fleet' }));
 * fleet.reports.subscribe((r) => console.log(r));
 * ```
 * @param options - the management cluster, namespace, selector, key, timing and first contact.
 * @returns the provider.
 * @throws ConfigError when `secretKey` is empty or a duration is not positive.
 */
export function kubeconfigSecretProvider(options: KubeconfigSecretProviderOptions): Provider {
  const cfg = engineConfig('kubeconfig-secrets', options, 'its Secret was deleted', true);
  const key = options.secretKey ?? 'kubeconfig';
  if (key === '') throw new ConfigError('kubeconfig-secrets provider: `secretKey` must not be empty (it names the Secret data key holding the kubeconfig)');
  return reporting(cfg, (say) =>
    managementWatch(
      options.management,
      secrets,
      {
        ...options.managementWatch,
        namespace: options.namespace ?? 'default',
        labelSelector: options.labelSelector ?? `${kubeconfigSecretLabel}=true`,
      },
      say,
    ).pipe(
      objectChanges(),
      desiredPerObject((s: Secret) => secretCandidate(s, key, options.trust)),
      engageChanges(cfg, say),
    ),
  );
}
