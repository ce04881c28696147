// What the cluster-api provider wants engaged, from the two management watches: a candidate per
// Cluster object, with its kubeconfig Secret, or skipped with the reason it cannot be engaged yet.
// The watches are joined object by object (joinKubeconfigSecrets), so a change of one Cluster or
// one Secret recomputes that cluster's candidate only.
import type { Observable } from 'rxjs';
import { merge, Observable as RxObservable, tap } from 'rxjs';
import type { KubeObject, Secret } from '../../core/object.js';
import type { ClusterName } from '../../core/cluster.js';
import type { Candidate } from '../internal/candidates.js';
import { skipped } from '../internal/candidates.js';
import type { KubeconfigTrust } from '../../client/kubeconfig-trust.js';
import { secretKubeconfigCandidate } from '../internal/trust.js';
import type { ObjectChange } from '../internal/objects.js';
import { foldChange } from '../internal/objects.js';

/**
 * A Cluster object with the kubeconfig Secret Cluster API writes for it (`<name>-kubeconfig`), if any.
 *
 * @example
 * ```ts
 * const joined: CapiCluster = { cluster, kubeconfig: secret };
 * ```
 */
export interface CapiCluster {
  readonly cluster: KubeObject;
  readonly kubeconfig?: Secret;
}

/** How the provider reads a Cluster's readiness and its Secret. */
export interface CapiRules {
  readonly isReady: (cluster: KubeObject) => boolean;
  /** The Secret data key holding the kubeconfig. */
  readonly key: string;
  /** Exec plugins and files the kubeconfigs may use (default none: refused, naming the Secret and the field). */
  readonly trust?: KubeconfigTrust;
}

/**
 * The candidate of one Cluster object and its kubeconfig Secret. Its identity is `Cluster
 * <namespace>/<name>`, its labels the Cluster object's; skipped (with the reason) until the control
 * plane is initialised and the Secret holds a kubeconfig.
 *
 * @example
 * ```ts
 * capiCandidate({ cluster, kubeconfig }, 'ns/a', clusterName('ns/a'), { isReady: controlPlaneInitialized, key: 'value' });
 * ```
 * @param joined - the Cluster and its Secret.
 * @param id - the Cluster's `namespace/name`.
 * @param name - the cluster's fleet name.
 * @param rules - readiness, data key and trust.
 * @returns the candidate.
 */
export function capiCandidate(joined: CapiCluster, id: string, name: ClusterName, rules: CapiRules): Candidate {
  const secretId = `${id}-kubeconfig`;
  const data = joined.kubeconfig?.data?.[rules.key];
  const facts = { identity: { provider: 'cluster-api', from: `Cluster ${id}` }, labels: joined.cluster.metadata.labels, origin: `kubeconfig Secret ${secretId} of Cluster ${id}` };
  if (!rules.isReady(joined.cluster)) return skipped(name, `Cluster ${id}: control plane not initialised yet`);
  if (joined.kubeconfig === undefined) return skipped(name, `kubeconfig Secret ${secretId} of Cluster ${id} not found`);
  const yaml = data === undefined ? '' : Buffer.from(data, 'base64').toString('utf8');
  if (yaml.trim() === '') return skipped(name, `kubeconfig Secret ${secretId} of Cluster ${id} has no "${rules.key}"`);
  return secretKubeconfigCandidate(name, yaml, facts, rules.trust ?? {});
}

const suffix = '-kubeconfig';

/**
 * Joins the Cluster watch and the Secret watch by Cluster id: once both have listed, the whole
 * join, then one joined Cluster per change of the Cluster or of its `<name>-kubeconfig` Secret
 * (a Secret of no Cluster changes nothing). O(1) per change after the listings.
 *
 * @example
 * ```ts
 * joinKubeconfigSecrets(clusterWatch.pipe(objectChanges()), secretWatch.pipe(objectChanges())).pipe(
 *   desiredPerObject((j: CapiCluster, id: string) => capiCandidate(j, id, clusterName(id), rules)),
 * );
 * ```
 * @param clusters - the Cluster objects' changes.
 * @param secrets - the kubeconfig Secrets' changes.
 * @returns the joined changes.
 */
export function joinKubeconfigSecrets(clusters: Observable<ObjectChange<KubeObject>>, secrets: Observable<ObjectChange<Secret>>): Observable<ObjectChange<CapiCluster>> {
  return new RxObservable<ObjectChange<CapiCluster>>((subscriber) => {
    let cs: Map<string, KubeObject> | undefined;
    let ss: Map<string, Secret> | undefined;
    const joined = (id: string, cluster: KubeObject): CapiCluster => {
      const kubeconfig = ss?.get(`${id}${suffix}`);
      return kubeconfig === undefined ? { cluster } : { cluster, kubeconfig };
    };
    const restate = (): void => {
      if (cs === undefined || ss === undefined) return;
      const all = new Map<string, CapiCluster>();
      for (const [id, c] of cs) all.set(id, joined(id, c));
      subscriber.next({ type: 'listed', all });
    };
    const changed = (id: string): void => {
      if (cs === undefined || ss === undefined) return;
      const c = cs.get(id);
      subscriber.next(c === undefined ? { type: 'gone', id } : { type: 'set', id, object: joined(id, c) });
    };
    const onCluster = (ch: ObjectChange<KubeObject>): void => {
      cs = foldChange(cs, ch);
      if (ch.type === 'listed') restate();
      else changed(ch.id);
    };
    const onSecret = (ch: ObjectChange<Secret>): void => {
      ss = foldChange(ss, ch);
      if (ch.type === 'listed') {
        restate();
        return;
      }
      const id = ch.id.endsWith(suffix) ? ch.id.slice(0, -suffix.length) : undefined;
      if (id !== undefined && cs?.has(id) === true) changed(id);
    };
    return merge(clusters.pipe(tap(onCluster)), secrets.pipe(tap(onSecret))).subscribe({
      error: (err: unknown) => {
        subscriber.error(err);
      },
      complete: () => {
        subscriber.complete();
      },
    });
  });
}
