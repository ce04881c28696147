// Letting go of a consumer object: its service copy and related copies deleted (the cleanup a
// deletion waits for), then the agent's finalizer removed. A deleted object goes through it by the
// finalizer; an object that leaves the published filter's label selector is released the same way
// while it lives on, its copies deleted or, by the filter's `release: keep`, left where they are.
import type { Observable } from 'rxjs';
import { EMPTY, concat, concatMap, defer, filter, from, last, map, of, toArray } from 'rxjs';
import type { ResourceDescriptor } from 'rxfleet';
import { resourceId } from 'rxfleet/client';
import { E } from 'rxfleet/fp';
import type { Action } from 'rxfleet';
import { done, isAction, requeueAfter } from 'rxfleet';
import type { ReconcileRequest } from 'rxfleet';
import type { ControllerContext } from 'rxfleet';
import { sourceIdentity } from 'rxfleet/sinks';
import { finalizerWrites } from 'rxfleet/sinks';
import { deleteTargets } from 'rxfleet/sinks';
import { toAction } from 'rxfleet';
import { serviceCluster } from './clusters.js';
import { syncFinalizer } from './labels.js';
import type { PublishedPlan } from './plan.js';
import { relatedResource } from './related-gvr.js';
import { keepRelated, keptResources } from './related-keep.js';
import type { SyncCaches } from './sync-caches.js';

/**
 * Resources, each once (by `resourceId`), in first-seen order.
 *
 * @example
 * ```ts
 * uniqueResources([secrets, configMaps, secrets]); // [secrets, configMaps]
 * ```
 * @param rs - the resources.
 * @returns them without repeats.
 */
export function uniqueResources(rs: readonly ResourceDescriptor[]): ResourceDescriptor[] {
  return [...new Map(rs.map((r) => [resourceId(r), r])).values()];
}

/**
 * The kinds of what the agent makes for a consumer object: on the service cluster (the copy, and
 * the related copies of kcp-origin objects) and in the workspaces (related copies of service-origin ones).
 *
 * @example
 * ```ts
 * const { onService, inWorkspaces } = copyKinds(plan);
 * ```
 * @param plan - the published resource's plan.
 * @returns both lists, each kind once.
 */
export function copyKinds(plan: PublishedPlan): { readonly onService: ResourceDescriptor[]; readonly inWorkspaces: ResourceDescriptor[] } {
  const related = plan.published.related ?? [];
  return {
    onService: uniqueResources([plan.service, ...related.filter((r) => r.origin === 'kcp').map((r) => relatedResource(plan, r, 'service'))]),
    inWorkspaces: uniqueResources(related.filter((r) => r.origin === 'service').map((r) => relatedResource(plan, r, 'kcp'))),
  };
}

/**
 * Deletes what the agent made for a consumer object: the service copy and the related copies on the
 * service side, then the related copies in the workspace, except those of entries with `cleanup:
 * false`, which are detached instead (`keepRelated`). `done` only once every listing and delete
 * succeeded and nothing is left terminating (a copy held by the service's own finalizers is waited
 * for, every `terminatingWaitMs`).
 *
 * @example
 * ```ts
 * withFinalizer({ finalizer, writes, apply: syncObject, cleanup: (r) => cleanup(plan, r, ctx, 5_000, caches) });
 * ```
 * @param plan - the published resource's plan.
 * @param req - the consumer object's request.
 * @param ctx - the controller's context.
 * @param terminatingWaitMs - how long to wait for a terminating copy before looking again.
 * @param caches - the controller's cached reads (the copies kept by `cleanup: false` are found there).
 * @returns the action.
 */
export function cleanup(plan: PublishedPlan, req: ReconcileRequest, ctx: ControllerContext, terminatingWaitMs: number, caches: SyncCaches): Observable<Action> | Action {
  const obj = req.object;
  if (obj === undefined) return done();
  const source = sourceIdentity(req.cluster, plan.kcp, obj);
  const { onService } = copyKinds(plan);
  // Kinds some entry keeps (`cleanup: false`) are let go of one copy at a time (related-keep.ts).
  const kept = new Set(keptResources(plan).map(resourceId));
  const inWorkspaces = copyKinds(plan).inWorkspaces.filter((r) => !kept.has(resourceId(r)));
  return concat(
    deleteTargets(ctx.sinks, { source, targets: onService, clusters: [serviceCluster] }),
    keepRelated(ctx, plan, caches, req.cluster, obj, source),
    inWorkspaces.length === 0
      ? EMPTY
      : deleteTargets(ctx.sinks, { source, targets: inWorkspaces, clusters: [req.cluster] }).pipe(
          // A workspace that never accepted (or revoked) the permission claim for the related kind: the
          // agent could write nothing there, so there is nothing to delete, and its object must not be held for ever.
          filter((o) => {
            const forbidden = E.isLeft(o) && o.left.type === 'Forbidden';
            if (forbidden) ctx.logger.warn({ published: plan.published.name }, `cleanup: related copies in the workspace cannot be listed, skipped: ${o.left.message}`);
            return !forbidden;
          }),
        ),
  ).pipe(
    toArray(),
    concatMap((outcomes) =>
      from(outcomes).pipe(
        toAction(),
        map((a) => (a.type === 'done' && outcomes.some((o) => E.isRight(o) && o.right.object !== undefined) ? requeueAfter(terminatingWaitMs) : a)),
      ),
    ),
  );
}

const lastOf = (out: Observable<Action> | Action): Observable<Action> => defer(() => (isAction(out) ? of(out) : out)).pipe(last(null, done()));

/**
 * Releases a live consumer object that left the published filter: when it carries the agent's
 * finalizer, its copies are deleted ({@link cleanup}; skipped with `filter.release: keep`), then
 * the finalizer is removed. Nothing is written for an object the agent never took.
 *
 * @example
 * ```ts
 * if (!selected(obj)) return release(plan, req, ctx, 5_000, caches);
 * ```
 * @param plan - the published resource's plan.
 * @param req - the consumer object's request (the object is there).
 * @param ctx - the controller's context.
 * @param terminatingWaitMs - as for {@link cleanup}.
 * @param caches - as for {@link cleanup}.
 * @returns the action.
 */
export function release(plan: PublishedPlan, req: ReconcileRequest, ctx: ControllerContext, terminatingWaitMs: number, caches: SyncCaches): Observable<Action> {
  const obj = req.object;
  const finalizer = syncFinalizer(plan.agentName);
  if (obj === undefined || !(obj.metadata.finalizers ?? []).includes(finalizer)) return of(done());
  const cleaned = plan.published.filter?.release === 'keep' ? of(done()) : lastOf(cleanup(plan, req, ctx, terminatingWaitMs, caches));
  return cleaned.pipe(concatMap((a) => (a.type === 'done' ? from(finalizerWrites(ctx.sinks, plan.kcp).remove(req.key, finalizer, obj)).pipe(last(null, done())) : of(a))));
}
