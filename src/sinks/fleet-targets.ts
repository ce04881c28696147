// Where cross-cluster targets are found, for the two halves of cross-cluster ownership (release
// and sweep): every target resource in every cluster asked for, listed by a label selector, with
// each failed listing reported as an outcome naming its cluster.
import type { Observable } from 'rxjs';
import { concatMap, from, mergeMap, of } from 'rxjs';
import type { ClusterName } from '../core/cluster.js';
import { objectKey } from '../core/key.js';
import type { KubeObject } from '../core/object.js';
import type { ResourceDescriptor } from '../core/resource.js';
import { E } from '../internal/fp.js';
import type { SinkContext } from './context.js';
import { defaultSinkConcurrency } from './operator.js';
import type { WriteOutcome } from './result.js';
import { writeFailed } from './result.js';
import { send } from './send.js';

/**
 * Where to look for targets, and how many requests may be in flight.
 *
 * @example
 * ```ts
 * const where: TargetSearch = { targets: [configMaps], clusters: [clusterName('east')], concurrency: 8 };
 * ```
 */
export interface TargetSearch {
  /** The resources targets may be of. */
  readonly targets: readonly ResourceDescriptor[];
  /** Where to look (default: every cluster engaged now). */
  readonly clusters?: readonly ClusterName[];
  /** Requests in flight at once (default 4). */
  readonly concurrency?: number;
}

/**
 * Lists the targets and hands each to `onTarget`, merging what it emits.
 *
 * @example
 * ```ts
 * eachTarget(ctx, write, (r: ResourceDescriptor) => `list ${resourceId(r)} targets`, sourceLabel, (t: KubeObject, cluster: ClusterName, r: ResourceDescriptor) => decide(t, cluster, r));
 * ```
 * @param ctx - the sink context.
 * @param search - target resources, clusters and concurrency.
 * @param what - the listing in words, for errors.
 * @param labelSelector - selects the candidates.
 * @param onTarget - the outcomes for one listed object.
 * @returns the outcomes, then completes; never errors.
 */
export function eachTarget(
  ctx: SinkContext,
  search: TargetSearch,
  what: (r: ResourceDescriptor) => string,
  labelSelector: string,
  onTarget: (target: KubeObject, cluster: ClusterName, r: ResourceDescriptor) => Observable<WriteOutcome>,
): Observable<WriteOutcome> {
  const concurrency = search.concurrency ?? defaultSinkConcurrency;
  const clusters = search.clusters ?? ctx.clusters.clusters().map((c) => c.name);
  const places = clusters.flatMap((cluster) => search.targets.map((r) => ({ cluster, r })));
  return from(places).pipe(
    mergeMap(
      ({ cluster, r }) =>
        send(ctx, cluster, what(r), (c) => c.listAll(r, { labelSelector })).pipe(
          concatMap(({ result }): Observable<WriteOutcome> => {
            if (E.isLeft(result)) return of(writeFailed('delete', objectKey(cluster, '', ''), result.left, 0));
            return from(result.right.items).pipe(mergeMap((t: KubeObject) => onTarget(t, cluster, r), concurrency));
          }),
        ),
      concurrency,
    ),
  );
}
