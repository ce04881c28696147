// The health of one cluster's view of a shared watch (a kcp endpoint's wildcard watch split by
// workspace): the shared watch's, under the viewing cluster's name, marked shared, its counters
// counted from when the view began. A workspace engaged after the shared watch was renewed,
// relisted or interrupted does not inherit those: its relists, reconnects and interruptions (and
// so its series in /metrics) start at 0 like any watch's, and grow as the shared watch's do.
import type { Observable, OperatorFunction } from 'rxjs';
import { defer, map } from 'rxjs';
import type { ClusterName } from '../core/cluster.js';
import type { WatchHealth } from './watch-health.js';

/**
 * The view's health from the shared watch's, as described above.
 *
 * @example
 * ```ts
 * sharedHealth.pipe(viewHealth(clusterName('root:org:a'), () => routes.size));
 * ```
 * @param as - the viewing cluster's name.
 * @param clusters - how many clusters read the shared watch now.
 * @returns the operator.
 */
export function viewHealth(as: ClusterName, clusters: () => number): OperatorFunction<WatchHealth, WatchHealth> {
  return (shared: Observable<WatchHealth>) =>
    defer(() => {
      let from: WatchHealth | undefined;
      return shared.pipe(
        map((h) => {
          from ??= h;
          return {
            ...h,
            cluster: as,
            relists: h.relists - from.relists,
            reconnects: h.reconnects - from.reconnects,
            interruptions: h.interruptions - from.interruptions,
            shared: { watch: h.shared?.watch ?? h.cluster, clusters: clusters() },
          };
        }),
      );
    });
}
