// The sweep half of cross-cluster ownership: finalizers cannot help when a source vanished while
// the controller was down (or its cluster left the fleet), so a periodic sweep looks at every
// target across the fleet and deletes those whose source is gone or was replaced.
import type { Observable } from 'rxjs';
import { EMPTY, concatMap, map, of } from 'rxjs';
import { objectKey } from '../core/key.js';
import type { ResourceDescriptor } from '../core/resource.js';
import { resourceId } from '../core/resource.js';
import { E } from '../internal/fp.js';
import type { SinkContext } from './context.js';
import { sourceLabel, readBackReference } from './back-reference.js';
import type { TargetSearch } from './fleet-targets.js';
import { eachTarget } from './fleet-targets.js';
import { readOrNull } from './read.js';
import { deleteObject } from './delete-object.js';
import type { WriteOutcome } from './result.js';
import { writeFailed } from './result.js';

/**
 * What to sweep.
 *
 * @example
 * ```ts
 * const w: SweepOrphansWrite = { sourceResource: configMaps, targets: [configMaps], labelSelector: 'app.kubernetes.io/managed-by=copier' };
 * ```
 */
export interface SweepOrphansWrite extends TargetSearch {
  /** The resource of the sources; targets referring to another resource are left alone. */
  readonly sourceResource: ResourceDescriptor;
  /**
   * Only targets that also match this label selector (e.g. the label this controller puts on what it
   * makes), so controllers that make targets of the same source resource in one cluster, each with
   * its own fleet of sources, never condemn each other's. Default: every target with a back-reference.
   */
  readonly labelSelector?: string;
}

/**
 * Deletes orphaned targets across the fleet. A target is an orphan when its source is missing or
 * has another uid (deleted and recreated). A target whose source cannot be checked — its cluster is
 * not engaged, or the read fails — is kept: absence of evidence is not deletion. Deletes carry the
 * target's uid as a precondition. Emits one outcome per delete, and a Left for each failed listing
 * or source read (naming the cluster and object concerned).
 *
 * @example
 * ```ts
 * import { sweepOrphans } from 'rxfleet/sinks';
 * interval(10 * 60_000).pipe(exhaustMap(() => sweepOrphans(ctx, { sourceResource: rollouts, targets: [configMaps] }))).subscribe(report);
 * ```
 * @param ctx - the sink context.
 * @param write - source resource, target resources and where to look.
 * @returns the outcomes, then completes; never errors.
 */
export function sweepOrphans(ctx: SinkContext, write: SweepOrphansWrite): Observable<WriteOutcome> {
  const sourceId = resourceId(write.sourceResource);
  const selector = write.labelSelector === undefined || write.labelSelector === '' ? sourceLabel : `${sourceLabel},${write.labelSelector}`;
  return eachTarget(ctx, write, (r) => `list ${resourceId(r)} targets`, selector, (t, cluster, r) => {
    const ref = readBackReference(t);
    if (ref?.resource !== sourceId) return EMPTY;
    const targetKey = objectKey(cluster, t.metadata.namespace ?? '', t.metadata.name ?? '');
    // Not engaged: the source may well exist; only a cluster we can read may condemn a target.
    if (ctx.clusters.get(ref.cluster) === undefined) return EMPTY;
    return readOrNull(ctx, write.sourceResource, objectKey(ref.cluster, ref.namespace, ref.name)).pipe(
      concatMap((src): Observable<WriteOutcome> => {
        if (E.isLeft(src)) return of(writeFailed('delete', targetKey, src.left, 0));
        if (src.right !== null && src.right.metadata.uid === ref.uid) return EMPTY;
        return deleteObject(ctx, { key: targetKey, resource: r, preconditions: { uid: t.metadata.uid ?? '' }, propagationPolicy: 'Background' }).pipe(
          map((o): WriteOutcome => o),
        );
      }),
    );
  });
}
