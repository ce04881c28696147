/**
 * Clusters from Cluster API: each `Cluster` (cluster.x-k8s.io) whose control plane is initialised,
 * reached with the kubeconfig Cluster API writes to Secret `<name>-kubeconfig` (key `value`), named
 * `<namespace>/<name>` as multicluster-runtime's cluster-api provider. Secrets are watched too, so
 * a rotated kubeconfig re-engages the cluster with a new client. The Cluster object's labels are the
 * cluster's labels.
 *
 * @packageDocumentation
 * @module rxfleet/providers/cluster-api
 */
// First: fails clearly on an unsupported Node before anything else loads.
import '../../internal/require-node.js';
import { clusterName } from '../../core/cluster.js';
import { ConfigError } from '../../core/config-error.js';
import type { Cluster, Provider } from '../../streams/cluster.js';
import type { KubeObject } from '../../core/object.js';
import type { ResourceDescriptor } from '../../core/resource.js';
import { resource, secrets } from '../../core/resource.js';
import type { ManagementWatchOptions } from '../../streams/watched.js';
import { desiredPerObject } from '../internal/desired-per-object.js';
import { engageChanges } from '../internal/engage.js';
import { managementWatch } from '../internal/management.js';
import { objectChanges } from '../internal/objects.js';
import type { ContactOptions } from '../../streams/provider-options.js';
import { engineConfig } from '../internal/options.js';
import { reporting } from '../internal/report.js';
import type { KubeconfigTrust } from '../../client/kubeconfig-trust.js';
import type { CapiCluster } from './desired.js';
import { capiCandidate, joinKubeconfigSecrets } from './desired.js';
import { controlPlaneInitialized } from './readiness.js';

export { controlPlaneInitialized } from './readiness.js';

/**
 * Cluster API `Cluster` objects of a version (default `v1beta2`).
 *
 * @example
 * ```ts
 * capiClusterResource('v1beta1');
 * ```
 * @param version - the API version to read.
 * @returns the descriptor.
 */
export function capiClusterResource(version = 'v1beta2'): ResourceDescriptor {
  return resource({ group: 'cluster.x-k8s.io', version, plural: 'clusters', kind: 'Cluster', namespaced: true });
}

/**
 * Options of {@link clusterApiProvider}.
 *
 * @example
 * ```ts
 * const opts: ClusterApiProviderOptions = { management: management, namespace: 'fleet', version: 'v1beta1' };
 * ```
 */
export interface ClusterApiProviderOptions extends ContactOptions {
  /** The management cluster (its client stays the caller's). */
  readonly management: Cluster;
  /** Only this namespace; default all. */
  readonly namespace?: string;
  /** The `cluster.x-k8s.io` version to read; default `v1beta2`. */
  readonly version?: string;
  /** When a Cluster may be engaged; default {@link controlPlaneInitialized}. */
  readonly isReady?: (cluster: KubeObject) => boolean;
  /** The kubeconfig Secrets watched; default `cluster.x-k8s.io/cluster-name` (Cluster API labels them so). */
  readonly secretLabelSelector?: string;
  /** The Secret data key; default `value`. */
  readonly secretKey?: string;
  /** How the provider watches its management cluster (both watches): timings, backoff, `listerWatcherFor`. */
  readonly managementWatch?: ManagementWatchOptions;
  /**
   * Exec plugins and files the kubeconfig Secrets may use; default none: a kubeconfig that runs a
   * program or reads a file is skipped, naming the Secret and the field.
   */
  readonly trust?: KubeconfigTrust;
}

/**
 * A provider of Cluster API clusters. A Cluster is engaged once its control plane is initialised
 * and its kubeconfig Secret exists; it is re-engaged when the Secret's kubeconfig changes, and
 * disengaged when the Cluster is deleted (or marked for deletion). Until then it is reported as
 * skipped with the reason (not initialised, Secret missing, a kubeconfig field `trust` does not
 * allow). Each of the two management watches
 * (Clusters, Secrets) that fails (CRD not installed, RBAC, unreachable server) is reported as
 * `source` failing, once per cause, then recovered. Reports travel in the provider's stream.
 *
 * @example
 * ```ts
 * import { clusterApiProvider } from 'rxfleet/providers/cluster-api';
 * const fleet = createFleet(clusterApiProvider({ management: management }));
 * ```
 * @param options - management cluster, version, readiness, namespace, timing and first contact.
 * @returns the provider.
 * @throws ConfigError when `secretKey` is empty or a duration is not positive.
 */
export function clusterApiProvider(options: ClusterApiProviderOptions): Provider {
  const cfg = engineConfig('cluster-api', options, 'its Cluster was deleted', true);
  const ns = options.namespace === undefined ? {} : { namespace: options.namespace };
  const key = options.secretKey ?? 'value';
  if (key === '') throw new ConfigError('cluster-api provider: `secretKey` must not be empty (it names the Secret data key holding the kubeconfig)');
  const rules = { isReady: options.isReady ?? controlPlaneInitialized, key, ...(options.trust === undefined ? {} : { trust: options.trust }) };
  return reporting(cfg, (say) =>
    joinKubeconfigSecrets(
      managementWatch(options.management, capiClusterResource(options.version), { ...options.managementWatch, ...ns }, say).pipe(objectChanges()),
      managementWatch(options.management, secrets, { ...options.managementWatch, ...ns, labelSelector: options.secretLabelSelector ?? 'cluster.x-k8s.io/cluster-name' }, say).pipe(objectChanges()),
    ).pipe(
      desiredPerObject((joined: CapiCluster, id: string) => (joined.cluster.metadata.deletionTimestamp === undefined ? capiCandidate(joined, id, clusterName(id), rules) : undefined)),
      engageChanges(cfg, say),
    ),
  );
}
