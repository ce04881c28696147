// The programmatic provider: a set of clusters you add to and remove from at run time (tests,
// demos, and anything that discovers clusters its own way). Same role as multicluster-runtime's
// `clusters` provider.
import type { Observable } from 'rxjs';
import { BehaviorSubject, defer } from 'rxjs';
import type { Cluster, FleetEvent } from '../../client/cluster.js';
import type { KubeConfigSource } from '../../client/kubeconfig.js';
import type { ClusterName } from '../../core/cluster.js';
import { clusterName } from '../../core/cluster.js';
import { E } from '../../internal/fp.js';
import type { Candidate } from '../internal/candidates.js';
import { sha256 } from '../internal/candidates.js';
import { engageCandidates } from '../internal/engage.js';
import { kubeconfigCandidate } from '../internal/kubeconfig.js';
import type { ContactOptions } from '../internal/options.js';
import { engineConfig } from '../internal/options.js';

export type { ProviderReport, ProviderOptions } from '../internal/report.js';
export type { ContactOptions } from '../internal/options.js';
export type { Probe } from '../internal/engage.js';

/**
 * A cluster given by its kubeconfig: the provider builds its client when it engages it (one per
 * subscription) and closes it on removal, replacement and unsubscribe.
 *
 * @example
 * ```ts
 * const entry: KubeconfigEntry = { name: 'east', kubeconfig: { file: 'east.kubeconfig' }, labels: { region: 'eu' } };
 * ```
 */
export interface KubeconfigEntry {
  readonly name: string;
  readonly kubeconfig: KubeConfigSource;
  readonly labels?: Readonly<Record<string, string>>;
}

/**
 * A member of the set: a ready {@link Cluster} (its client stays the caller's: never closed by the
 * provider) or a {@link KubeconfigEntry}.
 *
 * @example
 * ```ts
 * const entries: ClusterEntry[] = [east, { name: 'west', kubeconfig: { yaml } }];
 * ```
 */
export type ClusterEntry = Cluster | KubeconfigEntry;

/**
 * The mutable provider: an Observable of fleet events with methods to change the set.
 *
 * @example
 * ```ts
 * const set = clusters();
 * createFleet(set).engagements.subscribe(({ cluster }) => console.log(cluster.name));
 * set.add({ name: 'east', kubeconfig: { file: 'east.kubeconfig' } });
 * set.remove('east');
 * ```
 */
export interface ClustersProvider extends Observable<FleetEvent> {
  /** Adds a cluster, or replaces the one of that name (disengaged, then engaged anew) if it differs. */
  add(entry: ClusterEntry): void;
  /** Removes a cluster: every subscriber sees it disengaged. Unknown names are ignored. */
  remove(name: string): void;
  /** The names in the set now. */
  names(): readonly ClusterName[];
}

const identities = new WeakMap<Cluster, string>();
let nextIdentity = 0;
function identity(c: Cluster): string {
  let id = identities.get(c);
  if (id === undefined) {
    id = `cluster#${nextIdentity++}`;
    identities.set(c, id);
  }
  return id;
}

/**
 * The candidate of one entry: a given Cluster is engaged as is (not owned: never closed here); a
 * kubeconfig entry is built per engagement and fingerprinted by its content.
 *
 * @example
 * ```ts
 * candidateOf({ name: 'east', kubeconfig: { yaml } });
 * ```
 * @param entry - the entry.
 * @returns the candidate.
 */
export function candidateOf(entry: ClusterEntry): Candidate {
  if ('client' in entry) {
    return { name: entry.name, fingerprint: identity(entry), build: () => E.right(entry), owned: false };
  }
  const name = clusterName(entry.name);
  const src = entry.kubeconfig;
  const content = 'yaml' in src ? src.yaml : 'file' in src ? `file:${src.file}` : src.kubeConfig.exportConfig();
  return kubeconfigCandidate(name, src, sha256(content, src.context ?? '', JSON.stringify(entry.labels ?? {})), entry.labels);
}

/**
 * A provider over a set you change at run time. Cold: each subscription engages the set as it is
 * then and follows later `add` and `remove` calls; unsubscribing closes the clients it built.
 * Kubeconfig entries are not contacted before engaging unless `options.probe` says so.
 *
 * @example
 * ```ts
 * import { clusters } from 'rxfleet/providers/clusters';
 * const set = clusters([east]);
 * const fleet = createFleet(set);
 * set.add({ name: 'west', kubeconfig: { yaml: westYaml } });
 * ```
 * @param initial - the starting set.
 * @param options - reporting, scheduler, optional first contact.
 * @returns the provider, with `add`, `remove` and `names`.
 */
export function clusters(initial: readonly ClusterEntry[] = [], options: ContactOptions = {}): ClustersProvider {
  const set = new BehaviorSubject<ReadonlyMap<ClusterName, Candidate>>(new Map(initial.map((e) => [clusterName(e.name), candidateOf(e)])));
  const cfg = engineConfig('clusters', options, 'removed from the set', false);
  const provider = defer(() => set.pipe(engageCandidates(cfg)));
  return Object.assign(provider, {
    add(entry: ClusterEntry): void {
      const c = candidateOf(entry);
      set.next(new Map(set.value).set(c.name, c));
    },
    remove(name: string): void {
      const next = new Map(set.value);
      if (next.delete(name as ClusterName)) set.next(next);
    },
    names: (): readonly ClusterName[] => [...set.value.keys()],
  });
}
