// Candidates built from kubeconfig text or files: the client is created at engage time, per
// subscription, so each subscriber owns (and closes) its own clients.
import type { KubeConfig } from '@kubernetes/client-node';
import type { Cluster } from '../../client/cluster.js';
import { createClusterClient } from '../../client/client.js';
import type { KubeConfigSource } from '../../client/kubeconfig.js';
import type { ClusterName } from '../../core/cluster.js';
import { E } from '../../internal/fp.js';
import type { Candidate } from './candidates.js';
import { sha256 } from './candidates.js';

/**
 * A candidate whose cluster is built from a kubeconfig (a new client at each build).
 *
 * @example
 * ```ts
 * kubeconfigCandidate(clusterName('east'), { yaml }, sha256(yaml));
 * ```
 * @param name - the cluster's name.
 * @param source - its kubeconfig and context.
 * @param fingerprint - what identifies these credentials (see {@link contextFingerprint}).
 * @param labels - labels for the Cluster.
 * @returns the candidate; its build fails with the loader's message when the kubeconfig is invalid.
 */
export function kubeconfigCandidate(name: ClusterName, source: KubeConfigSource, fingerprint: string, labels?: Readonly<Record<string, string>>): Candidate {
  return {
    name,
    fingerprint,
    build: () => {
      const client = createClusterClient(name, source);
      if (E.isLeft(client)) return E.left(client.left.message);
      const cluster: Cluster = labels === undefined ? { name, client: client.right } : { name, client: client.right, labels };
      return E.right(Object.freeze(cluster));
    },
  };
}

/**
 * A hash of one context as resolved: its cluster (server, CA, TLS settings), its user (token,
 * certificates, exec plugin) and its namespace. It changes when credentials or server change, and
 * only then (renaming or reordering other entries leaves it alone).
 *
 * @example
 * ```ts
 * contextFingerprint(kc, 'kind-east');
 * ```
 * @param kc - the loaded kubeconfig.
 * @param context - the context's name.
 * @returns the hex digest.
 */
export function contextFingerprint(kc: KubeConfig, context: string): string {
  const ctx = kc.getContextObject(context);
  const cluster = ctx === null ? null : kc.getCluster(ctx.cluster);
  const user = ctx === null ? null : kc.getUser(ctx.user);
  return sha256(JSON.stringify({ cluster, user, namespace: ctx?.namespace }));
}
