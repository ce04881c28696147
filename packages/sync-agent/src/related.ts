// Related objects (an object of any namespaced resource that travels with a primary object): read on their origin
// side, copied to the other side in the primary's namespace there. In the workspace they are where
// the consumer names them; on the service cluster where the agent places them (related-places.ts).
// Nothing is read, written or copied before it is proven to be this consumer object's
// (ownership.ts): a refusal instead, which reaches the consumer object's status.
import type { Observable } from 'rxjs';
import { EMPTY, concat, from, map, mergeMap, of } from 'rxjs';
import type { ClusterName } from 'rxfleet';
import type { ObjectKey } from 'rxfleet';
import { objectKey } from 'rxfleet';
import { apiVersionOf } from 'rxfleet/client';
import type { KubeObject } from 'rxfleet';
import type { SourceIdentity } from 'rxfleet/sinks';
import { readBackReference, withBackReference } from 'rxfleet/sinks';
import type { SinkContext } from 'rxfleet/sinks';
import { deleteObject } from 'rxfleet/sinks';
import type { WriteOutcome } from 'rxfleet/sinks';
import { refusal, writeFailed } from 'rxfleet/sinks';
import { serviceCluster } from './clusters.js';
import type { Refusal } from './condition.js';
import { agentLabel, agentLabels, publishedLabel, relatedLabel } from './labels.js';
import { relatedName } from './naming.js';
import { guardedWrite } from './related-write.js';
import { mutateRelated } from './related-mutation.js';
import { syncRelatedStatus } from './related-status.js';
import { workspaceNamespace } from './related-namespace.js';
import type { OwnershipProblem, Primary } from './ownership.js';
import { originProblem, ownershipProblem } from './ownership.js';
import type { PublishedPlan } from './plan.js';
import { referenceKind, relatedPlaces } from './related-places.js';
import type { SyncCaches } from './sync-caches.js';
import { relatedOn, relatedResource } from './related-gvr.js';
import type { RelatedResource } from './types.js';

// From getBuiltinModule, not `import`: see rxfleet's src/client/h2-pool.ts.
const { isDeepStrictEqual } = process.getBuiltinModule('node:util');

type Fields = Readonly<Record<string, unknown>>;

// What of a related object is copied: its contents (every top-level field: a Secret's data and
// type, a Lease's spec), never its metadata, nor its status (the destination's own).
const notContent = new Set(['apiVersion', 'kind', 'metadata', 'status']);

const contentOf = (o: KubeObject): Fields => Object.fromEntries(Object.entries(o as unknown as Fields).filter(([k, v]) => !notContent.has(k) && v !== undefined));

/**
 * The two primaries of one synced object: the consumer's in its workspace, and its copy on the
 * service cluster.
 *
 * @example
 * ```ts
 * const pair: PrimaryPair = { workspace: req.cluster, logicalCluster: 'ws-a', consumer: obj, copy };
 * ```
 */
export interface PrimaryPair {
  /** The consumer's cluster in the fleet. */
  readonly workspace: ClusterName;
  /** Its logical cluster (`{{ .ClusterName }}` of the templates). */
  readonly logicalCluster: string;
  /** The consumer's object. */
  readonly consumer: KubeObject;
  /** Its service copy (already checked to be the consumer object's). */
  readonly copy: KubeObject;
}

/**
 * One result of a related sync: a write's outcome, or a refusal (nothing written).
 *
 * @example
 * ```ts
 * const r: RelatedResult = { type: 'refused', refusal: { key, detail: '...', reason: '...' } };
 * ```
 */
export type RelatedResult = { readonly type: 'write'; readonly outcome: WriteOutcome } | { readonly type: 'refused'; readonly refusal: Refusal };

/**
 * The copy of one related object that belongs on its destination side.
 *
 * @example
 * ```ts
 * const desired = desiredRelated(plan, related, origin, { cluster: req.cluster, namespace: 'default', name: 'orders-conn' }, source);
 * ```
 * @param plan - the published resource's plan.
 * @param related - the related resource.
 * @param origin - the object on its origin side.
 * @param at - where the copy goes.
 * @param source - the consumer primary's identity (the back-reference).
 * @returns the apply configuration.
 */
export function desiredRelated(plan: PublishedPlan, related: RelatedResource, origin: KubeObject, at: ObjectKey, source: SourceIdentity): KubeObject {
  const r = relatedOn(plan, related, at.cluster);
  const copy: KubeObject = {
    apiVersion: apiVersionOf(r),
    kind: r.kind,
    metadata: { name: at.name, namespace: at.namespace, labels: { ...agentLabels(plan.agentName, plan.published.name), [relatedLabel]: related.identifier } },
    ...contentOf(origin),
  };
  return withBackReference(copy, source);
}

/**
 * A refusal of a related object (nothing written), its detail for the log and its reason for the status.
 *
 * @example
 * ```ts
 * const r = refused('Lease', related, key, 'on the service cluster', { detail: '...', reason: '...' });
 * ```
 * @param kind - the related object's kind.
 * @param related - the related entry.
 * @param key - the object refused.
 * @param side - where it is, in words.
 * @param p - the problem.
 * @returns the result.
 */
export const refused = (kind: string, related: RelatedResource, key: ObjectKey, side: string, p: OwnershipProblem): RelatedResult => ({
  type: 'refused',
  refusal: { key, detail: `sync refused: related "${related.identifier}" (${kind}): ${p.detail}`, reason: `related "${related.identifier}" (${kind} ${key.name} ${side}): ${p.reason}` },
});

// On the service side, a name read from the copies (not derived) that another copy of the namespace
// also names: neither may have the object.
function sharedName(caches: SyncCaches, kind: string, related: RelatedResource, pair: PrimaryPair, at: ObjectKey): OwnershipProblem | undefined {
  if (referenceKind(related.object) === 'derived') return undefined;
  const byPath = related.object.path !== undefined;
  for (const other of caches.copiesIn(at.namespace)) {
    if (other.metadata.uid === pair.copy.metadata.uid) continue;
    // The name first (a field read); a template needs the other copy's workspace (a verified back-reference).
    const ref = byPath ? undefined : readBackReference(other);
    const n = relatedName(related.object, ref === undefined ? '' : caches.logicalCluster(ref.cluster), other);
    if (n.type !== 'named' || n.name !== at.name) continue;
    const owner = ref ?? readBackReference(other);
    const whose = owner === undefined ? `${other.metadata.name ?? ''} (no valid back-reference)` : `${owner.cluster}/${owner.namespace}/${owner.name}`;
    return { detail: `${kind} ${at.namespace}/${at.name} is named by the copy of ${pair.workspace}/${pair.consumer.metadata.namespace ?? ''}/${pair.consumer.metadata.name ?? ''} and by the copy of ${whose}`, reason: 'is also named by another object on the service cluster' };
  }
  return undefined;
}

/**
 * Deletes the copies this agent made for a consumer object and a related entry, on the destination
 * side, whose names are not in `keep` (left behind by a rename), each with a uid precondition;
 * none for an entry with `cleanup: false`.
 *
 * @example
 * ```ts
 * staleCopies(sinks, plan, caches, related, req.cluster, 'default', new Set(['orders-conn']), source).subscribe();
 * ```
 * @param sinks - the controller's sinks.
 * @param plan - the published resource's plan.
 * @param caches - the controller's cached reads.
 * @param related - the related entry.
 * @param cluster - the destination cluster.
 * @param namespace - the destination namespace.
 * @param keep - the names the copies should have now.
 * @param source - the consumer object's identity.
 * @returns the deletes' outcomes.
 */
export function staleCopies(sinks: SinkContext, plan: PublishedPlan, caches: SyncCaches, related: RelatedResource, cluster: ClusterName, namespace: string, keep: ReadonlySet<string>, source: SourceIdentity): Observable<RelatedResult> {
  // `cleanup: false`: the agent never deletes a copy it made (related-keep.ts).
  if (related.cleanup === false) return EMPTY;
  const r = relatedOn(plan, related, cluster);
  const stale = caches.relatedIn(cluster, r, namespace).filter((o) => {
    const l = o.metadata.labels ?? {};
    if (keep.has(o.metadata.name ?? '') || l[agentLabel] !== plan.agentName || l[publishedLabel] !== plan.published.name || l[relatedLabel] !== related.identifier) return false;
    return ownershipProblem(r.kind, o, source, 'refuse') === undefined;
  });
  return from(stale).pipe(
    mergeMap((o) => deleteObject(sinks, { key: objectKey(cluster, namespace, o.metadata.name ?? ''), resource: r, preconditions: { uid: o.metadata.uid ?? '' }, notFoundIsSuccess: true }), 2),
    map((outcome): RelatedResult => ({ type: 'write', outcome })),
  );
}

/**
 * Syncs one related resource of a primary pair in its direction. Names the object on each side (in
 * the workspace where the consumer says; on the service cluster where the agent placed it), then,
 * before anything is written, proves ownership: the origin object must claim no other owner (no
 * back-reference or owner reference to another object; see `originProblem`), no other copy may name
 * the same service-side object, and the destination must be absent or this consumer object's own
 * copy (back-reference with its uid). Any failure is a refusal and nothing is written. Otherwise
 * the copy is written unless the cached one already holds the same contents and labels (only over
 * what the cache saw: `guardedWrite`, so a concurrent writer is never overwritten), and copies
 * left at an earlier name (a rename) are deleted. Nothing happens while a name is unset, the origin
 * is absent, or a cache has not listed yet.
 *
 * @example
 * ```ts
 * syncRelated(ctx.sinks, plan, caches, pair, related, source).subscribe((r: RelatedResult) => console.log(r.type));
 * ```
 * @param sinks - the controller's sinks.
 * @param plan - the published resource's plan.
 * @param caches - the controller's cached reads.
 * @param pair - the two primaries.
 * @param related - the related resource.
 * @param source - the consumer primary's identity.
 * @returns the outcomes of the writes, or refusals, or nothing.
 */
export function syncRelated(sinks: SinkContext, plan: PublishedPlan, caches: SyncCaches, pair: PrimaryPair, related: RelatedResource, source: SourceIdentity): Observable<RelatedResult> {
  const r = relatedResource(plan, related);
  const rDest = relatedResource(plan, related, related.origin === 'service' ? 'kcp' : 'service');
  const fromService = related.origin === 'service';
  const at = relatedPlaces(plan, related, pair.logicalCluster, pair.consumer, pair.copy);
  // In the workspace, the namespace `object.namespace` names (the tenant's own); on the service cluster, the copy's.
  const kcpNamespace = workspaceNamespace(related, pair.consumer);
  const onKcp = { cluster: pair.workspace, namespace: kcpNamespace.type === 'named' ? kcpNamespace.name : '', name: kcpNamespace.type === 'named' ? at.kcp : kcpNamespace };
  const onService = { cluster: serviceCluster, namespace: pair.copy.metadata.namespace ?? '', name: at.service };
  const [origin, dest] = fromService ? [onService, onKcp] : [onKcp, onService];
  const originPrimary: Primary = fromService ? { resource: plan.service, object: pair.copy } : { resource: plan.kcp, object: pair.consumer };
  const destKey = objectKey(dest.cluster, dest.namespace, dest.name.type === 'named' ? dest.name.name : '');
  for (const n of [origin.name, dest.name]) {
    if (n.type === 'invalid') return of({ type: 'write', outcome: writeFailed('apply', destKey, refusal('Invalid', destKey, `related "${related.identifier}" of published "${plan.published.name}": ${n.message}`), 0) });
  }
  if (origin.name.type !== 'named' || dest.name.type !== 'named') return EMPTY;
  if (!caches.relatedReady(origin.cluster, r) || !caches.relatedReady(dest.cluster, rDest)) return EMPTY;
  const originKey = objectKey(origin.cluster, origin.namespace, origin.name.name);
  const serviceKey = fromService ? originKey : destKey;
  const serviceKind = fromService ? r.kind : rDest.kind;
  const shared = sharedName(caches, serviceKind, related, pair, serviceKey);
  if (shared !== undefined) return of(refused(serviceKind, related, serviceKey, 'on the service cluster', shared));
  const stale = staleCopies(sinks, plan, caches, related, dest.cluster, dest.namespace, new Set([destKey.name]), source);
  const found = caches.related(origin.cluster, r, origin.namespace, origin.name.name);
  if (found === undefined) return stale;
  const side = (k: ObjectKey): string => (k.cluster === serviceCluster ? 'on the service cluster' : 'in this workspace');
  const notOrigin = originProblem(r.kind, found, source, originPrimary);
  if (notOrigin !== undefined) return of(refused(r.kind, related, originKey, side(originKey), notOrigin));
  const current = caches.related(dest.cluster, rDest, destKey.namespace, destKey.name);
  const notDest = current === undefined ? undefined : ownershipProblem(rDest.kind, current, source, 'refuse');
  if (notDest !== undefined) return of(refused(rDest.kind, related, destKey, side(destKey), notDest));
  return concat(writeCopy(sinks, plan, related, found, destKey, current, source), stale);
}

/**
 * Writes the copy of an origin object at `at` (proven this consumer object's, as its destination),
 * after the entry's `mutation.spec` (a failing step is an Invalid outcome, nothing written), unless the cached copy already holds the same contents and labels; only over what the cache saw
 * (`guardedWrite`: another consumer object may be writing the same name right now). Once the
 * contents are up to date, the status follows with `syncStatus` (`syncRelatedStatus`).
 *
 * @example
 * ```ts
 * writeCopy(sinks, plan, related, found, destKey, caches.related(destKey.cluster, r, destKey.namespace, destKey.name), source).subscribe();
 * ```
 * @param sinks - the controller's sinks.
 * @param plan - the published resource's plan.
 * @param related - the related entry.
 * @param found - the origin object.
 * @param at - where the copy goes.
 * @param current - the copy as cached, if any.
 * @param source - the consumer object's identity.
 * @returns the write's outcome, or nothing when up to date.
 */
export function writeCopy(sinks: SinkContext, plan: PublishedPlan, related: RelatedResource, found: KubeObject, at: ObjectKey, current: KubeObject | undefined, source: SourceIdentity): Observable<RelatedResult> {
  const mutated = mutateRelated(related, found, current);
  if (mutated.type === 'failed') return of({ type: 'write', outcome: writeFailed('apply', at, refusal('Invalid', at, `related "${related.identifier}" of published "${plan.published.name}": ${mutated.message}`), 0) });
  const desired = desiredRelated(plan, related, mutated.object, at, source);
  const upToDate = current !== undefined && isDeepStrictEqual(contentOf(current), contentOf(desired)) && Object.entries(desired.metadata.labels ?? {}).every(([k, v]) => current.metadata.labels?.[k] === v);
  // The status after the contents: a contents write wakes this object again, and its status follows then.
  if (upToDate) return syncRelatedStatus(sinks, plan, related, found, at, current);
  return guardedWrite(sinks, { cluster: at.cluster, resource: relatedOn(plan, related, at.cluster), object: desired, current }).pipe(map((outcome): RelatedResult => ({ type: 'write', outcome })));
}

