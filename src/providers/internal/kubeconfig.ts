// Candidates built from kubeconfig text or files: the client is created at engage time, per
// subscription, so each subscriber owns (and closes) its own clients. Every cluster carries who
// engaged it and from where (its identity) and its labels; a kubeconfig that does not load is
// skipped with a reason that names where it came from (a file, a Secret) and why.
import type { ClusterClient } from '../../client/client.js';
import { clientOfKubeconfig } from '../../client/client.js';
import type { KubeconfigSource, KubeconfigContextEntries } from '../../client/kubeconfig.js';
import { checkedKubeconfig, loadKubeconfig } from '../../client/kubeconfig.js';
import type { KubeconfigDocument } from '../../client/kubeconfig-types.js';
import type { ClusterName } from '../../core/cluster.js';
import { E } from '../../internal/fp.js';
import type { Cluster, ClusterIdentity } from '../../streams/cluster.js';
import type { Candidate } from './candidates.js';
import { sha256 } from './candidates.js';

/** Labels of a cluster. @example `{ region: 'eu', tier: 'prod' }` */
export type Labels = Readonly<Record<string, string>>;

/**
 * What a provider knows about a cluster besides its name and credentials.
 *
 * @example
 * ```ts
 * const facts: ClusterFacts = { identity: { provider: 'kubeconfig-secrets', from: 'Secret fleet/east' }, labels: { region: 'eu' } };
 * ```
 */
export interface ClusterFacts {
  readonly identity: ClusterIdentity;
  /** Labels for selectors; absent or empty: none. */
  readonly labels?: Labels | undefined;
  /** Where the kubeconfig came from, for skip reasons, when it is not the identity's source (e.g. `kubeconfig Secret capi/east-kubeconfig`). */
  readonly origin?: string;
}

/**
 * The Cluster of a name, a client and its facts, frozen; optional fields only when present.
 *
 * @example
 * ```ts
 * describedCluster(clusterName('team-a'), client, { identity: { provider: 'namespaces', from: 'namespace team-a of cluster hub' }, labels: { tenant: 'a' } });
 * ```
 * @param name - the cluster's name.
 * @param client - its client.
 * @param facts - identity and labels.
 * @returns the cluster.
 */
export function describedCluster(name: ClusterName, client: ClusterClient, facts: ClusterFacts): Cluster {
  const labels = facts.labels === undefined || Object.keys(facts.labels).length === 0 ? {} : { labels: Object.freeze({ ...facts.labels }) };
  return Object.freeze({ name, client, ...labels, identity: Object.freeze({ ...facts.identity }) });
}

/**
 * A digest of what a cluster says about itself that can change without its credentials: its
 * labels (in any order) and its identity's id. Becomes a candidate's `metaFingerprint`.
 *
 * @example
 * ```ts
 * factsFingerprint({ identity, labels: { a: '1', b: '2' } }) === factsFingerprint({ identity, labels: { b: '2', a: '1' } }); // true
 * ```
 * @param facts - identity and labels.
 * @returns the hex digest.
 */
export function factsFingerprint(facts: ClusterFacts): string {
  const labels = Object.entries(facts.labels ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return sha256(JSON.stringify(labels), facts.identity.id ?? '');
}

/** A build's failure as a skip reason: where the kubeconfig came from, then the loader's reason (its `cluster "<name>": ` dropped: the report names the candidate already). */
function buildFailure(name: ClusterName, facts: ClusterFacts, message: string): string {
  const own = `cluster "${name}": `;
  return `${facts.origin ?? facts.identity.from}: ${message.startsWith(own) ? message.slice(own.length) : message}`;
}

/**
 * A candidate whose cluster is built from a kubeconfig, loaded once when the candidate is made (a
 * new client at each build, all of them holding the same frozen entries).
 *
 * @example
 * ```ts
 * kubeconfigCandidate(clusterName('east'), { yaml }, sha256(yaml), { identity: { provider: 'kubeconfig-secrets', from: 'Secret fleet/east' } });
 * ```
 * @param name - the cluster's name.
 * @param source - its kubeconfig and context.
 * @param fingerprint - what identifies these credentials (see {@link contextFingerprint}).
 * @param facts - identity and labels of the Cluster.
 * @returns the candidate; its build fails, naming the origin and the loader's reason, when the kubeconfig is invalid.
 */
export function kubeconfigCandidate(name: ClusterName, source: KubeconfigSource, fingerprint: string, facts: ClusterFacts): Candidate {
  // Loaded once, here: its clients share these frozen entries (this cluster's own), and neither the
  // text nor a parse per client is kept.
  const kc = loadKubeconfig(name, source);
  if (E.isLeft(kc)) {
    const why = buildFailure(name, facts, kc.left.message);
    return { name, fingerprint, metaFingerprint: factsFingerprint(facts), build: () => E.left(why) };
  }
  return entriesCandidate(name, kc.right, fingerprint, facts);
}

/**
 * A candidate whose cluster is built from one context's parsed entries, with the checks and
 * messages of {@link kubeconfigCandidate} (a new client at each build). Keeps the entries, not a
 * kubeconfig text: its clients hold the same frozen entries (no copy of the credentials per client;
 * they are this one cluster's), so pass entries parsed for this cluster alone, deeply frozen.
 *
 * @example
 * ```ts
 * entriesCandidate(clusterName('east'), { context, cluster, user }, contextFingerprint(doc, 'east'), { identity: { provider: 'file', from: 'context "east" of kubeconfig a.yaml' } });
 * ```
 * @param name - the cluster's name.
 * @param entries - its context and the cluster and user that context names.
 * @param fingerprint - what identifies these credentials (see {@link contextFingerprint}).
 * @param facts - identity and labels of the Cluster.
 * @returns the candidate; its build fails, naming the origin and the reason, when the entries do not make a client.
 */
export function entriesCandidate(name: ClusterName, entries: KubeconfigContextEntries, fingerprint: string, facts: ClusterFacts): Candidate {
  return {
    name,
    fingerprint,
    metaFingerprint: factsFingerprint(facts),
    build: (options) => {
      const kc = checkedKubeconfig(name, entries);
      if (E.isLeft(kc)) return E.left(buildFailure(name, facts, kc.left.message));
      return E.right(describedCluster(name, clientOfKubeconfig(name, kc.right, options), facts));
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
 * contextFingerprint(parseKubeconfig(text), 'kind-east');
 * ```
 * @param doc - the parsed kubeconfig.
 * @param context - the context's name.
 * @returns the hex digest.
 */
export function contextFingerprint(doc: KubeconfigDocument, context: string): string {
  // The first entry of a name is the one used, as kubectl does.
  const ctx = doc.contexts.find((c) => c.name === context);
  const cluster = ctx === undefined ? null : (doc.clusters.find((c) => c.name === ctx.cluster) ?? null);
  const user = ctx === undefined ? null : (doc.users.find((u) => u.name === ctx.user) ?? null);
  return sha256(JSON.stringify({ cluster, user, namespace: ctx?.namespace }));
}
