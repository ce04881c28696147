// The machinery of the programmatic providers (`clusterListProvider`, `singleClusterProvider`):
// entries turned into candidates with an identity, and a set that every subscription follows.
import { basename } from 'node:path';
import { BehaviorSubject } from 'rxjs';
import type { KubeconfigSource } from '../../client/kubeconfig.js';
import { ConfigError } from '../../core/config-error.js';
import type { ClusterName } from '../../core/cluster.js';
import { clusterName } from '../../core/cluster.js';
import { E } from '../../internal/fp.js';
import type { Cluster, ClusterIdentity, Provider } from '../../streams/cluster.js';
import type { Candidate } from '../internal/candidates.js';
import { sha256 } from '../internal/candidates.js';
import { engageCandidates } from '../internal/engage.js';
import { kubeconfigCandidate } from '../internal/kubeconfig.js';
import type { ContactOptions } from '../../streams/provider-options.js';
import { engineConfig } from '../internal/options.js';
import { reporting } from '../internal/report.js';

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
  /** The cluster's name in the fleet. */
  readonly name: string;
  /** Its kubeconfig: a file, YAML text or a KubeConfig, and optionally the context. */
  readonly kubeconfig: KubeconfigSource;
  /** The cluster's labels, for selectors. */
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

// A type, not an interface extending Observable: the docs then show the three methods, not every
// inherited Observable member (whose rxjs doc links do not resolve here).
/**
 * The mutable provider: an Observable of fleet events with methods to change the set.
 *
 * @example
 * ```ts
 * const set = clusterListProvider();
 * createFleet(set).engagements.subscribe(({ cluster }) => console.log(cluster.name));
 * set.add({ name: 'east', kubeconfig: { file: 'east.kubeconfig' } });
 * set.remove('east');
 * ```
 */
export type ClusterListProvider = Provider & {
  /** Adds a cluster, or replaces the one of that name (disengaged, then engaged anew) if it differs. */
  add(entry: ClusterEntry): void;
  /** Removes a cluster: every subscriber sees it disengaged. Unknown names are ignored. */
  remove(name: string): void;
  /** The names in the set now. */
  names(): readonly ClusterName[];
};

const fingerprints = new WeakMap<Cluster, string>();
let nextFingerprint = 0;
/** One fingerprint per given Cluster object: giving another object of the same name replaces it. */
function objectFingerprint(c: Cluster): string {
  let id = fingerprints.get(c);
  if (id === undefined) {
    id = `cluster#${nextFingerprint++}`;
    fingerprints.set(c, id);
  }
  return id;
}

function entryName(provider: string, name: string): ClusterName {
  try {
    return clusterName(name);
  } catch (err) {
    throw new ConfigError(`${provider} provider: ${err instanceof Error ? err.message : String(err)}; give each entry a name`);
  }
}

/** Where a kubeconfig entry's credentials come from, in words (never the content). */
function describeSource(src: KubeconfigSource): string {
  const ctx = src.context === undefined ? '' : `context "${src.context}" of `;
  return 'file' in src ? `${ctx}kubeconfig ${basename(src.file)}` : 'yaml' in src ? `${ctx}kubeconfig text given in code` : `${ctx}KubeConfig object given in code`;
}

/**
 * The candidate of one entry. A given Cluster is engaged as is (not owned: never closed here),
 * with an identity `{ provider, from: 'Cluster given in code' }` added when it has none; a
 * kubeconfig entry is built per engagement, fingerprinted by its content, and its identity says
 * where the kubeconfig comes from (`kubeconfig east.kubeconfig`).
 *
 * @example
 * ```ts
 * candidateOf({ name: 'east', kubeconfig: { yaml } });
 * ```
 * @param entry - the entry.
 * @param provider - the provider's name in the identity; default `clusters`.
 * @returns the candidate.
 * @throws ConfigError when the entry's name cannot name a cluster.
 */
export function candidateOf(entry: ClusterEntry, provider = 'clusters'): Candidate {
  const name = entryName(provider, entry.name);
  if ('client' in entry) {
    const cluster: Cluster = entry.identity === undefined ? Object.freeze({ ...entry, identity: Object.freeze({ provider, from: 'Cluster given in code' }) }) : entry;
    return { name, fingerprint: objectFingerprint(entry), build: () => E.right(cluster), owned: false };
  }
  const src = entry.kubeconfig;
  const content = 'yaml' in src ? src.yaml : 'file' in src ? `file:${src.file}` : src.loaded.exportConfig();
  const identity: ClusterIdentity = { provider, from: describeSource(src) };
  return kubeconfigCandidate(name, src, sha256(content, src.context ?? ''), { identity, labels: entry.labels });
}

/**
 * A set of entries as a provider named `provider`: what `clusterListProvider` and `singleClusterProvider` are.
 *
 * @example
 * ```ts
 * const set = clusterSet('single', [entry], {});
 * ```
 * @param provider - the provider's name in reports and identities.
 * @param initial - the starting set.
 * @param options - scheduler and optional first contact.
 * @returns the provider, with `add`, `remove` and `names`.
 * @throws ConfigError when two initial entries share a name, or a name is invalid.
 */
export function clusterSet(provider: string, initial: readonly ClusterEntry[], options: ContactOptions): ClusterListProvider {
  const first = new Map<ClusterName, Candidate>();
  for (const e of initial) {
    const c = candidateOf(e, provider);
    if (first.has(c.name)) throw new ConfigError(`${provider} provider: two entries are named "${c.name}"; cluster names must be unique`);
    first.set(c.name, c);
  }
  const set = new BehaviorSubject<ReadonlyMap<ClusterName, Candidate>>(first);
  const cfg = engineConfig(provider, options, 'removed from the set', false);
  const events = reporting(cfg, (say) => set.pipe(engageCandidates(cfg, say)));
  return Object.assign(events, {
    add(entry: ClusterEntry): void {
      const c = candidateOf(entry, provider);
      set.next(new Map(set.value).set(c.name, c));
    },
    remove(name: string): void {
      const next = new Map(set.value);
      if (next.delete(name as ClusterName)) set.next(next);
    },
    names: (): readonly ClusterName[] => [...set.value.keys()],
  });
}
