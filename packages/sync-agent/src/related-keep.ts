// `cleanup: false` on a related entry (origin `service`): the agent never deletes the copies it
// made in the workspace. When it lets go of the primary object (deleted, or released by the filter)
// it detaches them instead: its labels and back-reference are removed, so they become the
// consumer's own objects and no orphan sweep ever takes them. The other copies of the same kinds
// (entries without `cleanup: false`) are deleted here as the cleanup deletes every other copy. Read
// from the controller's caches: the copies are in the consumer object's namespace, or in the one
// its `object.namespace` names.
import type { Observable } from 'rxjs';
import { EMPTY, from, mergeMap } from 'rxjs';
import type { ClusterName, ControllerContext, KubeObject, ResourceDescriptor } from 'rxfleet';
import { objectKey } from 'rxfleet';
import { resourceId } from 'rxfleet/client';
import type { SourceIdentity, WriteOutcome } from 'rxfleet/sinks';
import { backReference, deleteObject, patch, readBackReference } from 'rxfleet/sinks';
import { agentLabel, publishedLabel, relatedLabel } from './labels.js';
import type { PublishedPlan } from './plan.js';
import { relatedResource } from './related-gvr.js';
import type { SyncCaches } from './sync-caches.js';
import { workspaceNamespace } from './related-namespace.js';

/**
 * The identifiers of the related entries whose copies the agent keeps (`cleanup: false`).
 *
 * @example
 * ```ts
 * keptIdentifiers(plan); // Set { 'connection' }
 * ```
 * @param plan - the published resource's plan.
 * @returns the identifiers.
 */
export function keptIdentifiers(plan: PublishedPlan): ReadonlySet<string> {
  return new Set((plan.published.related ?? []).filter((r) => r.cleanup === false).map((r) => r.identifier));
}

/**
 * The resources of the related entries whose copies the agent keeps, each once.
 *
 * @example
 * ```ts
 * const kinds = keptResources(plan); // [secrets]
 * ```
 * @param plan - the published resource's plan.
 * @returns the resources.
 */
export function keptResources(plan: PublishedPlan): readonly ResourceDescriptor[] {
  const kinds = (plan.published.related ?? []).filter((r) => r.cleanup === false).map((r) => relatedResource(plan, r, 'kcp'));
  return [...new Map(kinds.map((r) => [resourceId(r), r])).values()];
}

// Every label and annotation the agent put on a related copy, removed by a merge patch.
function detachPatch(source: SourceIdentity, o: KubeObject): Record<string, unknown> {
  const ref = backReference(source);
  const nulls = (keys: readonly string[]): Record<string, null> => Object.fromEntries(keys.map((k) => [k, null]));
  const rv = o.metadata.resourceVersion;
  return { metadata: { ...(rv === undefined ? {} : { resourceVersion: rv }), labels: nulls([...Object.keys(ref.labels), agentLabel, publishedLabel, relatedLabel]), annotations: nulls(Object.keys(ref.annotations)) } };
}

/**
 * Lets go of the related copies of a consumer object in its workspace, for the kinds some entry
 * keeps (`keptResources`): the kept entries' copies are detached (see the file's header), the
 * others deleted (uid precondition). Only copies whose back-reference names this consumer object
 * (its uid) and that carry this agent's and published resource's labels. A kind not listed yet in
 * the workspace (a permission claim not accepted) is skipped with a warning: the agent could not
 * have written there.
 *
 * @example
 * ```ts
 * keepRelated(ctx, plan, caches, req.cluster, consumer, source).subscribe();
 * ```
 * @param ctx - the controller's context (its sinks and logger).
 * @param plan - the published resource's plan.
 * @param caches - the controller's cached reads.
 * @param cluster - the consumer's workspace.
 * @param consumer - the consumer object (its namespace, and the namespaces it names).
 * @param source - the consumer object's identity.
 * @returns the patches' and deletes' outcomes.
 */
export function keepRelated(ctx: ControllerContext, plan: PublishedPlan, caches: SyncCaches, cluster: ClusterName, consumer: KubeObject, source: SourceIdentity): Observable<WriteOutcome> {
  const kept = keptIdentifiers(plan);
  return from(keptResources(plan)).pipe(
    mergeMap((r) => {
      if (!caches.relatedReady(cluster, r)) {
        ctx.logger.warn({ published: plan.published.name, cluster }, `cleanup: ${resourceId(r)} of the workspace not listed, its related copies are left as they are`);
        return EMPTY;
      }
      // The consumer object's namespace, and those its entries of this kind name (`object.namespace`).
      const entries = (plan.published.related ?? []).filter((e) => e.origin === 'service' && resourceId(relatedResource(plan, e, 'kcp')) === resourceId(r));
      const namespaces = new Set([consumer.metadata.namespace ?? '', ...entries.flatMap((e) => {
        const n = workspaceNamespace(e, consumer);
        return n.type === 'named' ? [n.name] : [];
      })]);
      const mine = [...namespaces].flatMap((ns) => caches.relatedIn(cluster, r, ns)).filter((o) => {
        const l = o.metadata.labels ?? {};
        return readBackReference(o)?.uid === source.uid && l[agentLabel] === plan.agentName && l[publishedLabel] === plan.published.name;
      });
      return from(mine).pipe(
        mergeMap((o) => {
          const key = objectKey(cluster, o.metadata.namespace ?? '', o.metadata.name ?? '');
          return kept.has(o.metadata.labels?.[relatedLabel] ?? '')
            ? patch(ctx.sinks, { key, resource: r, patch: detachPatch(source, o), current: o })
            : deleteObject(ctx.sinks, { key, resource: r, preconditions: { uid: o.metadata.uid ?? '' }, notFoundIsSuccess: true });
        }, 2),
      );
    }, 1),
  );
}
