// The simplest provider: a fixed list of already-built clusters. Real discovery (kubeconfig files,
// Secrets, kcp APIExports) lives in src/providers; this one serves examples and tests.
import type { SchedulerLike } from 'rxjs';
import { asyncScheduler, concat, defer, from, map, NEVER, of } from 'rxjs';
import type { Cluster, Provider } from './cluster.js';
import { engaged, reported } from './cluster.js';

/**
 * A provider that engages the given clusters on subscribe, says its first discovery pass is done
 * (a `discovered` report from provider `static`, which the runtime's readiness waits for), and never
 * changes. It does not complete:
 * completion would read as "discovery over", and keeping it open lets the fleet disengage
 * everything when unsubscribed, as every provider does.
 *
 * @example
 * ```ts
 * const fleet = createFleet(staticProvider([east, west]));
 * ```
 * @param clusters - the clusters, built by the caller (who also closes their clients).
 * @param scheduler - the clock of the report's `at`. Default `asyncScheduler`.
 * @returns the provider.
 */
export function staticProvider(clusters: readonly Cluster[], scheduler: SchedulerLike = asyncScheduler): Provider {
  return defer(() => {
    const pass = defer(() => of(reported(Object.freeze({ type: 'discovered', provider: 'static', clusters: clusters.length, candidates: clusters.length, at: scheduler.now() }))));
    return concat(from(clusters).pipe(map(engaged)), pass, NEVER);
  });
}
