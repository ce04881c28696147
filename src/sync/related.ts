// Related objects (a Secret or ConfigMap that travels with a primary object): read on their origin
// side, copied to the other side in the primary's namespace there, named on each side from that
// side's primary. Copies carry the agent's labels, the related identifier and the back-reference to
// the consumer's primary object, so cleanup and the tenant check find them like the service copy.
import { isDeepStrictEqual } from 'node:util';
import type { Observable } from 'rxjs';
import { EMPTY, from, mergeMap, of } from 'rxjs';
import type { ClusterName } from '../core/cluster.js';
import type { ObjectKey } from '../core/key.js';
import { objectKey } from '../core/key.js';
import type { KubeObject } from '../core/object.js';
import type { ResourceDescriptor } from '../core/resource.js';
import { resourceId } from '../core/resource.js';
import { apply } from '../sinks/apply.js';
import type { SourceIdentity } from '../sinks/back-reference.js';
import { readBackReference, withBackReference } from '../sinks/back-reference.js';
import type { SinkContext } from '../sinks/context.js';
import type { WriteOutcome } from '../sinks/result.js';
import { refusal, writeFailed } from '../sinks/result.js';
import { serviceCluster } from './clusters.js';
import { agentLabels, relatedLabel } from './labels.js';
import { relatedName } from './naming.js';
import type { PublishedPlan } from './plan.js';
import type { SyncCaches } from './sync-caches.js';
import { relatedResource } from './sync-caches.js';
import { tenantProblem } from './sync-up.js';
import type { RelatedResource } from './types.js';

type Fields = Readonly<Record<string, unknown>>;

// What of a Secret or ConfigMap is copied: its contents, never its metadata.
const contentKeys = ['type', 'data', 'binaryData', 'immutable'] as const;

const contentOf = (o: KubeObject): Fields => Object.fromEntries(contentKeys.flatMap((k) => ((o as unknown as Fields)[k] === undefined ? [] : [[k, (o as unknown as Fields)[k]]])));

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
  /** Its service copy. */
  readonly copy: KubeObject;
}

/**
 * The copy of one related object that belongs on its destination side, or `undefined` when there
 * is nothing to copy yet (a name not set, the origin object not there).
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
  const copy: KubeObject = {
    apiVersion: 'v1',
    kind: related.kind,
    metadata: { name: at.name, namespace: at.namespace, labels: { ...agentLabels(plan.agentName, plan.published.name), [relatedLabel]: related.identifier } },
    ...contentOf(origin),
  };
  return withBackReference(copy, source);
}

/**
 * Syncs one related resource of a primary pair in its direction: names the object on each side
 * from that side's primary, reads the origin from the cache, and applies the copy unless the cached
 * copy already holds the same contents and labels. A destination object that is not the agent's
 * copy for this primary (no back-reference, or another one) is never overwritten: a refusal.
 * Nothing happens while a name is unset, the origin is absent, or a cache has not listed yet.
 *
 * @example
 * ```ts
 * syncRelated(ctx.sinks, plan, caches, pair, related, source).pipe(toAction());
 * ```
 * @param sinks - the controller's sinks.
 * @param plan - the published resource's plan.
 * @param caches - the controller's cached reads.
 * @param pair - the two primaries.
 * @param related - the related resource.
 * @param source - the consumer primary's identity.
 * @returns the outcome of the write, a refusal, or nothing.
 */
export function syncRelated(sinks: SinkContext, plan: PublishedPlan, caches: SyncCaches, pair: PrimaryPair, related: RelatedResource, source: SourceIdentity): Observable<WriteOutcome> {
  const r = relatedResource(related);
  const fromService = related.origin === 'service';
  const [originCluster, originPrimary, destCluster, destPrimary] = fromService
    ? [serviceCluster, pair.copy, pair.workspace, pair.consumer]
    : [pair.workspace, pair.consumer, serviceCluster, pair.copy];
  const originName = relatedName(related.object, pair.logicalCluster, originPrimary);
  const destName = relatedName(related.object, pair.logicalCluster, destPrimary);
  const destKey = objectKey(destCluster, destPrimary.metadata.namespace ?? '', destName.type === 'named' ? destName.name : '');
  for (const n of [originName, destName]) {
    if (n.type === 'invalid') return of(writeFailed('apply', destKey, refusal('Invalid', destKey, `related "${related.identifier}" of published "${plan.published.name}": ${n.message}`), 0));
  }
  if (originName.type !== 'named' || destName.type !== 'named') return EMPTY;
  if (!caches.relatedReady(originCluster, r) || !caches.relatedReady(destCluster, r)) return EMPTY;
  const origin = caches.related(originCluster, r, originPrimary.metadata.namespace ?? '', originName.name);
  if (origin === undefined) return EMPTY;
  const current = caches.related(destCluster, r, destKey.namespace, destKey.name);
  if (current !== undefined) {
    const problem = tenantProblem(current, source);
    if (problem !== undefined) {
      return of(writeFailed('apply', destKey, refusal('Forbidden', destKey, `sync refused: related "${related.identifier}" (${related.kind}): ${problem.replace('service object', 'object')}`), 0));
    }
  }
  const desired = desiredRelated(plan, related, origin, destKey, source);
  if (current !== undefined && isDeepStrictEqual(contentOf(current), contentOf(desired)) && Object.entries(desired.metadata.labels ?? {}).every(([k, v]) => current.metadata.labels?.[k] === v)) return EMPTY;
  return apply(sinks, { cluster: destCluster, resource: r, object: desired, current: current ?? null });
}

/**
 * Syncs every related resource of a primary pair (see {@link syncRelated}).
 *
 * @example
 * ```ts
 * syncAllRelated(ctx.sinks, plan, caches, pair, source).pipe(toAction());
 * ```
 * @param sinks - the controller's sinks.
 * @param plan - the published resource's plan.
 * @param caches - the controller's cached reads.
 * @param pair - the two primaries.
 * @param source - the consumer primary's identity.
 * @returns the outcomes.
 */
export function syncAllRelated(sinks: SinkContext, plan: PublishedPlan, caches: SyncCaches, pair: PrimaryPair, source: SourceIdentity): Observable<WriteOutcome> {
  return from(plan.published.related ?? []).pipe(mergeMap((related) => syncRelated(sinks, plan, caches, pair, related, source), 2));
}

/**
 * The consumer keys a related-kind object concerns, on either side: a copy made by the agent names
 * its primary by back-reference; an origin object is matched against the primaries of its
 * namespace on its side (the service copies there, or the workspace's consumer objects).
 *
 * @example
 * ```ts
 * const keys = relatedKeys(plan, caches, serviceCluster, secrets, operatorSecret); // the consumer objects whose copies name it
 * ```
 * @param plan - the published resource's plan.
 * @param caches - the controller's cached reads.
 * @param cluster - where the object is.
 * @param r - its resource (Secrets or ConfigMaps).
 * @param obj - the object.
 * @returns the consumer objects' keys.
 */
export function relatedKeys(plan: PublishedPlan, caches: SyncCaches, cluster: ClusterName, r: ResourceDescriptor, obj: KubeObject): ObjectKey[] {
  const ref = readBackReference(obj);
  if (ref !== undefined) return ref.resource === resourceId(plan.kcp) ? [objectKey(ref.cluster, ref.namespace, ref.name)] : [];
  const namespace = obj.metadata.namespace ?? '';
  const name = obj.metadata.name ?? '';
  const onService = cluster === serviceCluster;
  const keys: ObjectKey[] = [];
  for (const related of plan.published.related ?? []) {
    if ((related.origin === 'service') !== onService || resourceId(relatedResource(related)) !== resourceId(r)) continue;
    if (onService) {
      for (const copy of caches.copiesIn(namespace)) {
        const src = readBackReference(copy);
        const n = src === undefined ? undefined : relatedName(related.object, caches.logicalCluster(src.cluster), copy);
        if (src !== undefined && n?.type === 'named' && n.name === name) keys.push(objectKey(src.cluster, src.namespace, src.name));
      }
    } else {
      for (const primary of caches.primariesIn(cluster, namespace)) {
        const n = relatedName(related.object, caches.logicalCluster(cluster), primary);
        if (n.type === 'named' && n.name === name) keys.push(objectKey(cluster, namespace, primary.metadata.name ?? ''));
      }
    }
  }
  return keys;
}
