// Where a failed reconcile failed: a fan-out from a hub that fails writing to a member must be
// counted and logged against the member, not against the hub whose key was reconciled.
import type { ClusterName } from '../core/cluster.js';
import { isFenced } from '../core/fenced.js';
import type { Outcome } from '../operators/types.js';

/**
 * The cluster a finished reconcile failed in (or, `dropped`, had a write fenced in): the `cluster`
 * its error names (a `KubeError` or a sink's `WriteError` always does), else the cluster of its key.
 *
 * @example
 * ```ts
 * failingCluster(outcome); // 'member-3' for a hub key whose write to member-3 failed
 * ```
 * @param o - the outcome.
 * @returns the cluster to label the failure with.
 */
export function failingCluster(o: Outcome): ClusterName {
  if (o.result !== 'error' && o.result !== 'terminal' && !isFenced(o.error)) return o.cluster;
  const e: unknown = o.error;
  if (typeof e === 'object' && e !== null && 'cluster' in e && typeof e.cluster === 'string' && e.cluster !== '') return e.cluster as ClusterName;
  return o.cluster;
}
