// The finalizer half of cross-cluster ownership: when a source is being deleted, delete its
// targets in every engaged cluster, and only when every delete was accepted, remove the source's
// finalizer so the server can let it go.
import type { Observable } from 'rxjs';
import { EMPTY, concat, concatMap, from, map, toArray } from 'rxjs';
import { objectKey } from '../core/key.js';
import type { ResourceDescriptor } from '../core/resource.js';
import { resourceId } from '../core/resource.js';
import { E } from '../internal/fp.js';
import type { SinkContext } from './context.js';
import type { SourceIdentity } from './back-reference.js';
import { readBackReference, sourceSelector } from './back-reference.js';
import type { TargetSearch } from './fleet-targets.js';
import { eachTarget } from './fleet-targets.js';
import { deleteObject } from './delete-object.js';
import { removeFinalizer } from './remove-finalizer.js';
import type { WriteOutcome } from './result.js';

/**
 * Which targets to delete.
 *
 * @example
 * ```ts
 * const w: DeleteTargetsWrite = { source: sourceIdentity(hub, configMaps, src), targets: [configMaps] };
 * ```
 */
export interface DeleteTargetsWrite extends TargetSearch {
  /** The source whose targets go: only objects whose back-reference names this uid are deleted. */
  readonly source: SourceIdentity;
}

/**
 * Deletes every target of a source across the fleet: lists each target resource in each cluster
 * by the source's label, checks the annotations agree, and deletes with a uid precondition (so an
 * object recreated meanwhile survives). Emits one outcome per delete and a Left for each listing
 * that failed (its key names the cluster, with an empty name).
 *
 * @example
 * ```ts
 * import { deleteTargets } from 'rxfleet/sinks';
 * deleteTargets(ctx, { source, targets: [configMaps] }).subscribe(report);
 * ```
 * @param ctx - the sink context.
 * @param write - the source, the target resources and where to look.
 * @returns the outcomes, then completes; never errors.
 */
export function deleteTargets(ctx: SinkContext, write: DeleteTargetsWrite): Observable<WriteOutcome> {
  const { source } = write;
  return eachTarget(ctx, write, (r) => `list ${resourceId(r)} of source ${source.name}`, sourceSelector(source), (t, cluster, r) =>
    readBackReference(t)?.uid !== source.uid
      ? EMPTY
      : deleteObject(ctx, {
          key: objectKey(cluster, t.metadata.namespace ?? '', t.metadata.name ?? ''),
          resource: r,
          preconditions: { uid: t.metadata.uid ?? '' },
          propagationPolicy: 'Background',
        }).pipe(map((o): WriteOutcome => o)),
  );
}

/**
 * Releasing a source that is being deleted.
 *
 * @example
 * ```ts
 * const w: ReleaseSourceWrite = { source, resource: configMaps, finalizer: 'demo.rxfleet.dev/targets', targets: [configMaps] };
 * ```
 */
export interface ReleaseSourceWrite extends DeleteTargetsWrite {
  /** The source's own resource. */
  readonly resource: ResourceDescriptor;
  /** The finalizer the controller put on the source. */
  readonly finalizer: string;
}

/**
 * Deletes a source's targets everywhere, then removes the finalizer from the source — only if
 * every listing and delete succeeded; otherwise the finalizer stays and the caller retries later.
 * Emits the target outcomes, then the finalizer's.
 *
 * @example
 * ```ts
 * import { releaseSource } from 'rxfleet/sinks';
 * if (src.metadata.deletionTimestamp !== undefined) {
 *   releaseSource(ctx, { source: sourceIdentity(hub, configMaps, src), resource: configMaps, finalizer: 'demo.rxfleet.dev/targets', targets: [configMaps] }).subscribe(report);
 * }
 * ```
 * @param ctx - the sink context.
 * @param write - source, target resources, finalizer.
 * @returns the outcomes, then completes; never errors.
 */
export function releaseSource(ctx: SinkContext, write: ReleaseSourceWrite): Observable<WriteOutcome> {
  const { source } = write;
  return deleteTargets(ctx, write).pipe(
    toArray(),
    concatMap((outcomes) =>
      concat(
        from(outcomes),
        outcomes.some(E.isLeft)
          ? EMPTY
          : removeFinalizer(ctx, { key: objectKey(source.cluster, source.namespace, source.name), resource: write.resource, finalizer: write.finalizer }).pipe(
              map((o): WriteOutcome => o),
            ),
      ),
    ),
  );
}
