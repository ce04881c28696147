// Clusters from Cluster API: each `Cluster` (cluster.x-k8s.io) whose control plane is initialised,
// reached with the kubeconfig Cluster API writes to Secret `<name>-kubeconfig` (key `value`), named
// `<namespace>/<name>` as multicluster-runtime's cluster-api provider. Secrets are watched too, so
// a rotated kubeconfig re-engages the cluster with a new client. The Cluster object's labels are the
// cluster's labels.
import { combineLatest, map } from 'rxjs';
import { ConfigError } from '../../core/config-error.js';
import type { Cluster, Provider } from '../../streams/cluster.js';
import type { ClusterName } from '../../core/cluster.js';
import { clusterName } from '../../core/cluster.js';
import type { KubeObject, Secret } from '../../core/object.js';
import type { ResourceDescriptor } from '../../core/resource.js';
import { resource, secrets } from '../../core/resource.js';
import type { WatchConfig } from '../../streams/watch-config.js';
import type { Candidate, Desired } from '../internal/candidates.js';
import { skipped } from '../internal/candidates.js';
import { engageCandidates } from '../internal/engage.js';
import { managementWatch } from '../internal/management.js';
import { objectId, snapshots } from '../internal/objects.js';
import type { ContactOptions } from '../internal/options.js';
import { engineConfig } from '../internal/options.js';
import { reporting } from '../internal/report.js';
import type { KubeconfigTrust } from '../internal/trust.js';
import { secretKubeconfigCandidate } from '../internal/trust.js';
import { controlPlaneInitialized } from './readiness.js';

export { controlPlaneInitialized } from './readiness.js';
export type { KubeconfigTrust } from '../internal/trust.js';
export type { ContactOptions, ProviderOptions, ProviderReport } from '../clusters/index.js';
export type { Probe } from '../internal/engage.js';

/**
 * Cluster API `Cluster` objects of a version (default `v1beta2`).
 *
 * @example
 * ```ts
 * capiClusters('v1beta1');
 * ```
 * @param version - the API version to read.
 * @returns the descriptor.
 */
export function capiClusters(version = 'v1beta2'): ResourceDescriptor {
  return resource({ group: 'cluster.x-k8s.io', version, plural: 'clusters', kind: 'Cluster', namespaced: true });
}

/**
 * Options of {@link clusterApi}.
 *
 * @example
 * ```ts
 * const opts: ClusterApiOptions = { cluster: management, namespace: 'fleet', version: 'v1beta1' };
 * ```
 */
export interface ClusterApiOptions extends ContactOptions {
  /** The management cluster (its client stays the caller's). */
  readonly cluster: Cluster;
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
  /** Passed to both watches (timings). */
  readonly watch?: WatchConfig;
  /**
   * Exec plugins and files the kubeconfig Secrets may use; default none: a kubeconfig that runs a
   * program or reads a file is skipped, naming the Secret and the field.
   */
  readonly trust?: KubeconfigTrust;
}

/**
 * The desired set from Cluster objects and kubeconfig Secrets, both by `namespace/name`. Each
 * cluster's identity is `Cluster <namespace>/<name>` and its labels the Cluster object's. A
 * kubeconfig that runs a program or reads a file `trust` does not allow is skipped, naming its
 * Secret and the field.
 *
 * @example
 * ```ts
 * desiredFromCapi(capiObjects, kubeconfigSecretsByName, controlPlaneInitialized, 'value');
 * ```
 * @param capi - Cluster objects.
 * @param kubeconfigs - Secrets.
 * @param isReady - the readiness test.
 * @param key - the Secret data key.
 * @param trust - exec plugins and files the kubeconfigs may use (default none).
 * @returns candidates by `<namespace>/<name>`.
 */
export function desiredFromCapi(
  capi: ReadonlyMap<string, KubeObject>,
  kubeconfigs: ReadonlyMap<string, Secret>,
  isReady: (cluster: KubeObject) => boolean,
  key: string,
  trust: KubeconfigTrust = {},
): Desired {
  const out = new Map<ClusterName, Candidate>();
  for (const c of capi.values()) {
    if (c.metadata.deletionTimestamp !== undefined) continue;
    const id = objectId(c);
    const name = clusterName(id);
    const secretId = `${id}-kubeconfig`;
    const data = kubeconfigs.get(secretId)?.data?.[key];
    const yaml = data === undefined ? '' : Buffer.from(data, 'base64').toString('utf8');
    const facts = { identity: { provider: 'cluster-api', source: `Cluster ${id}` }, labels: c.metadata.labels, origin: `kubeconfig Secret ${secretId} of Cluster ${id}` };
    const candidate = !isReady(c)
      ? skipped(name, `Cluster ${id}: control plane not initialised yet`)
      : !kubeconfigs.has(secretId)
        ? skipped(name, `kubeconfig Secret ${secretId} of Cluster ${id} not found`)
        : yaml.trim() === ''
          ? skipped(name, `kubeconfig Secret ${secretId} of Cluster ${id} has no "${key}"`)
          : secretKubeconfigCandidate(name, yaml, facts, trust);
    out.set(name, candidate);
  }
  return out;
}

/**
 * A provider of Cluster API clusters. A Cluster is engaged once its control plane is initialised
 * and its kubeconfig Secret exists; it is re-engaged when the Secret's kubeconfig changes, and
 * disengaged when the Cluster is deleted (or marked for deletion). Until then it is reported as
 * skipped with the reason (not initialised, Secret missing, a kubeconfig field `trust` does not
 * allow: an exec plugin or a local file). Each of the two management watches
 * (Clusters, Secrets) that fails (CRD not installed, RBAC, unreachable server) is reported as
 * `source` failing, once per cause, then recovered. Reports travel in the provider's stream.
 *
 * @example
 * ```ts
 * import { clusterApi } from 'rxfleet/providers/cluster-api';
 * const fleet = createFleet(clusterApi({ cluster: management }));
 * ```
 * @param options - management cluster, version, readiness, namespace, timing and first contact.
 * @returns the provider.
 * @throws ConfigError when `secretKey` is empty or a duration is not positive.
 */
export function clusterApi(options: ClusterApiOptions): Provider {
  const cfg = engineConfig('cluster-api', options, 'its Cluster was deleted', true);
  const ns = options.namespace === undefined ? {} : { namespace: options.namespace };
  const key = options.secretKey ?? 'value';
  if (key === '') throw new ConfigError('cluster-api provider: `secretKey` must not be empty (it names the Secret data key holding the kubeconfig)');
  return reporting(cfg, (say) =>
    combineLatest([
      managementWatch(options.cluster, capiClusters(options.version), { ...options.watch, ...ns }, say).pipe(snapshots()),
      managementWatch(options.cluster, secrets, { ...options.watch, ...ns, labelSelector: options.secretLabelSelector ?? 'cluster.x-k8s.io/cluster-name' }, say).pipe(snapshots()),
    ]).pipe(
      map(([capi, kubeconfigs]) => desiredFromCapi(capi, kubeconfigs, options.isReady ?? controlPlaneInitialized, key, options.trust)),
      engageCandidates(cfg, say),
    ),
  );
}
