// What discovery produces before anything is engaged: candidates keyed by cluster name, each with
// a fingerprint of what makes it that cluster (server and credentials). Providers only compute the
// desired set; the engine (engage.ts) turns successive sets into FleetEvents.
import type { ClusterClientOptions } from '../../client/client.js';
import type { Cluster } from '../../streams/cluster.js';
import type { ClusterName } from '../../core/cluster.js';
import type { Either } from '../../internal/fp.js';
import { E } from '../../internal/fp.js';

// From getBuiltinModule, not `import`: see client/h2-pool.ts.
const { createHash } = process.getBuiltinModule('node:crypto');

/**
 * A cluster a provider wants engaged.
 *
 * @example
 * ```ts
 * const c: Candidate = { name, fingerprint: sha256(yaml), build: () => E.right(cluster) };
 * ```
 */
export interface Candidate {
  readonly name: ClusterName;
  /** Changes exactly when the cluster needs a new client (credentials or server changed). */
  readonly fingerprint: string;
  /**
   * Changes when what the Cluster says about itself changed (its labels, its identity's id), which
   * also rebuilds it (a Cluster is immutable), with the reason `labels or identity changed`.
   */
  readonly metaFingerprint?: string;
  /**
   * Builds the cluster with a new client made with the provider's client options (a candidate
   * carrying a ready client ignores them); `Left` says why the candidate is skipped.
   */
  readonly build: (client?: ClusterClientOptions) => Either<string, Cluster>;
  /** Whether the engine closes the client on disengage (false for clients it does not own). Default true. */
  readonly owned?: boolean;
}

/**
 * The desired set: every candidate discovered now, by name.
 *
 * @example
 * ```ts
 * const desired: Desired = new Map([[c.name, c]]);
 * ```
 */
export type Desired = ReadonlyMap<ClusterName, Candidate>;

/**
 * A hex sha256 of the given parts (each separated, so `['ab','c']` and `['a','bc']` differ).
 *
 * @example
 * ```ts
 * sha256(yaml); // '9f86d0…'
 * ```
 * @param parts - strings to hash.
 * @returns the digest.
 */
export function sha256(...parts: readonly string[]): string {
  const h = createHash('sha256');
  for (const p of parts) h.update(p).update('\0');
  return h.digest('hex');
}

/**
 * A candidate that cannot be a cluster: it is reported as skipped with `reason` (once per reason)
 * and, if it was engaged, disengaged.
 *
 * @example
 * ```ts
 * skipped(clusterName('team-a'), 'Secret has no "kubeconfig" key');
 * ```
 * @param name - the candidate's name.
 * @param reason - why it is skipped.
 * @returns the candidate.
 */
export function skipped(name: ClusterName, reason: string): Candidate {
  return { name, fingerprint: `skipped:${reason}`, build: () => E.left(reason) };
}

/** What changed between two desired sets. @example `{ added: [c], changed: [], removed: [] }` */
export interface DesiredDiff {
  readonly added: readonly Candidate[];
  /** Known candidates to rebuild ({@link changeReason} says why). */
  readonly changed: readonly Candidate[];
  readonly removed: readonly ClusterName[];
}

/**
 * Why a known candidate must be rebuilt, or `undefined` when it need not be.
 *
 * @example
 * ```ts
 * changeReason(before, after); // 'credentials or server changed'
 * ```
 * @param before - the candidate the engine acted on.
 * @param after - the candidate of the same name now.
 * @returns the reason, for the `disengaged` event and the `reengaged` report.
 */
export function changeReason(before: Candidate, after: Candidate): string | undefined {
  if (before.fingerprint !== after.fingerprint) return 'credentials or server changed';
  if (before.metaFingerprint !== after.metaFingerprint) return 'labels or identity changed';
  return undefined;
}

/**
 * Compares two desired sets by name and fingerprints. Pure: the engine's decisions are this diff.
 *
 * @example
 * ```ts
 * diffDesired(new Map(), new Map([[a.name, a]])); // { added: [a], changed: [], removed: [] }
 * ```
 * @param before - the set the engine acted on last.
 * @param after - the new set.
 * @returns added, changed (see {@link changeReason}) and removed names, in `after`'s then `before`'s order.
 */
export function diffDesired(before: Desired, after: Desired): DesiredDiff {
  const added: Candidate[] = [];
  const changed: Candidate[] = [];
  const removed: ClusterName[] = [];
  for (const name of before.keys()) if (!after.has(name)) removed.push(name);
  for (const [name, c] of after) {
    const old = before.get(name);
    if (old === undefined) added.push(c);
    else if (changeReason(old, c) !== undefined) changed.push(c);
  }
  return { added, changed, removed };
}

/**
 * What the engine is told: the whole desired set (`all`, diffed against the last one: O(candidates))
 * or the candidates of some names only (`some`: each name's candidate now, or removed; O(names)).
 * Providers with one candidate per watched object send `some` per change, so a change of one among
 * thousands costs the same as among ten.
 *
 * @example
 * ```ts
 * const step: DesiredChange = { type: 'some', set: [east], removed: [clusterName('west')] };
 * ```
 */
export type DesiredChange =
  | {
      /** Every candidate now. */
      readonly type: 'all';
      /** The whole desired set. */
      readonly desired: Desired;
    }
  | {
      /** Only these names changed; every other candidate stays as it was. */
      readonly type: 'some';
      /** The new candidate of each name added or changed. */
      readonly set: readonly Candidate[];
      /** Names no longer desired. */
      readonly removed: readonly ClusterName[];
    };
