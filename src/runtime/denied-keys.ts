// Which keys of one controller are waiting out a server's 401/403, per cluster the request was
// refused in: the work queue retries them on its slow `authBackoff`, and while any waits, its
// cluster is reported unhealthy on /readyz and counted in the metrics. Held only for such keys.
import type { ClusterName } from '../core/cluster.js';
import { isDenied } from '../core/denied.js';
import { formatKey } from '../core/key.js';
import type { Outcome } from '../operators/types.js';
import { failingCluster } from './failing-cluster.js';
import { describeCause } from './run-parts.js';

/**
 * Receives a cluster's count of refused keys on every change: `reason` says why while any waits
 * (the latest refusal), and is `undefined` once none does.
 *
 * @example
 * ```ts
 * const report: DeniedReport = (cluster: ClusterName, keys: number, reason: string | undefined) => {
 *   metrics.denied(cluster, keys);
 *   health.denied(cluster, 'hello', reason);
 * };
 * ```
 */
export type DeniedReport = (cluster: ClusterName, keys: number, reason: string | undefined) => void;

/**
 * The refused keys of one controller, fed with its outcomes and its queue's cluster removals.
 *
 * @example
 * ```ts
 * const denied = deniedKeys(report);
 * outcomes.subscribe((o: Outcome) => { denied.outcome(o); });
 * ```
 */
export interface DeniedKeys {
  /** A finished reconcile: its key is refused while it ended in an `error` the server answered 401 or 403. */
  outcome(o: Outcome): void;
  /** A cluster left the queue's input: the keys reconciled in it are dropped, so they wait no more. */
  clusterRemoved(cluster: ClusterName): void;
}

interface Refused {
  /** Where the request was refused: for a fan-out, the member, not the key's cluster. */
  readonly refusedIn: ClusterName;
  readonly keyCluster: ClusterName;
}

/**
 * Keeps the refused keys of one controller. A key stops counting at its next outcome that is not
 * such a refusal (the grant came, the object went, another failure), or when its cluster leaves.
 * O(1) per outcome; a cluster's removal walks the refused keys only.
 *
 * @example
 * ```ts
 * const denied = deniedKeys((cluster: ClusterName, _keys: number, reason: string | undefined) => { health.denied(cluster, 'hello', reason); });
 * denied.outcome(o); // o: an `error` whose cause is a 403 from east → (east, 1, 'refused …')
 * ```
 * @param report - told each change of a cluster's count.
 * @returns the tracker.
 */
export function deniedKeys(report: DeniedReport): DeniedKeys {
  const keys = new Map<string, Refused>();
  const clusters = new Map<ClusterName, { count: number; reason: string }>();

  const release = (id: string, r: Refused): void => {
    keys.delete(id);
    const c = clusters.get(r.refusedIn);
    if (c === undefined) return;
    c.count -= 1;
    if (c.count === 0) clusters.delete(r.refusedIn);
    report(r.refusedIn, c.count, c.count === 0 ? undefined : c.reason);
  };

  return {
    outcome(o) {
      const id = formatKey(o.key);
      const before = keys.get(id);
      const refused = o.result === 'error' && isDenied(o.error);
      const refusedIn = failingCluster(o);
      if (before !== undefined && (!refused || before.refusedIn !== refusedIn)) release(id, before);
      if (!refused) return;
      const reason = deniedReason(o.error);
      const c = clusters.get(refusedIn) ?? { count: 0, reason };
      c.reason = reason;
      if (!keys.has(id)) {
        keys.set(id, { refusedIn, keyCluster: o.key.cluster });
        c.count += 1;
      }
      clusters.set(refusedIn, c);
      report(refusedIn, c.count, reason);
    },
    clusterRemoved(cluster) {
      for (const [id, r] of keys) if (r.keyCluster === cluster) release(id, r);
    },
  };
}

/**
 * Why a cluster whose requests are refused is unhealthy, in one sentence.
 *
 * @example
 * ```ts
 * deniedReason(err); // 'requests refused (403 Forbidden), retried with backoff until allowed: cluster "east" PATCH … → 403 Forbidden: …'
 * ```
 * @param cause - the refusal (a KubeError or WriteError answered 401 or 403).
 * @returns the reason.
 */
export function deniedReason(cause: unknown): string {
  const code = typeof cause === 'object' && cause !== null && 'code' in cause && cause.code === 401 ? '401 Unauthorized' : '403 Forbidden';
  return `requests refused (${code}): reconciles retried with backoff until RBAC or credentials allow them; last: ${describeCause(cause)}`;
}
