// Where an adopted consumer object's copy is: the service object it was made from, at its own
// namespace and name (not where the naming templates would put a new copy). The consumer object
// says where (annotations the adopter writes), the service object proves it (its back-reference
// names this consumer object, uid included), so a tenant that writes the annotations itself can
// point its object at nothing but a place that already belongs to it; pointed anywhere else, its
// object is told so in its status and nothing is written.
import type { KubeObject } from 'rxfleet';
import type { SourceIdentity } from 'rxfleet/sinks';
import type { ServiceName } from './naming.js';
import { claimsOwner, ownershipProblem } from './ownership.js';
import type { PublishedPlan } from './plan.js';
import type { SyncCaches } from './sync-caches.js';

/**
 * Annotation: on a consumer object the agent made by adoption, the service object it was made from
 * (`<namespace>/<name>`, or `<name>` when cluster-scoped).
 *
 * @example
 * ```ts
 * const from: string | undefined = obj.metadata.annotations?.[adoptedFromAnnotation]; // 'legacy/orders'
 * ```
 */
export const adoptedFromAnnotation = 'sync.rxfleet.dev/adopted-from';

/**
 * Annotation: on a consumer object the agent made by adoption, the uid of the service object it was
 * made from (a later object of the same name is another object).
 *
 * @example
 * ```ts
 * const uid: string | undefined = obj.metadata.annotations?.[adoptedUidAnnotation];
 * ```
 */
export const adoptedUidAnnotation = 'sync.rxfleet.dev/adopted-uid';

/**
 * A consumer object's copy as adoption placed it: not adopted (the naming templates place it), at
 * the adopted service object, pending (the adopter has not written the back-reference yet: nothing
 * is written until it has), or refused (the annotations name a service object that belongs to
 * another consumer object, or is another object than the one adopted: nothing is written, and the
 * consumer object is told why).
 *
 * @example
 * ```ts
 * const p: AdoptedPlace = { type: 'at', at: { namespace: 'legacy', name: 'orders' } };
 * ```
 */
export type AdoptedPlace =
  | {
      /** No adoption annotation. */
      readonly type: 'not-adopted';
    }
  | {
      /** The adopted service object, proven to be this consumer object's copy. */
      readonly type: 'at';
      /** Its namespace and name on the service cluster. */
      readonly at: ServiceName;
    }
  | {
      /** Not proven yet: the adoption has not finished. */
      readonly type: 'pending';
      /** Why, naming the place. */
      readonly message: string;
    }
  | {
      /** The annotations name a service object that is not this consumer object's. */
      readonly type: 'refused';
      /** The place they name. */
      readonly at: ServiceName;
      /** For the agent's log: both objects named. */
      readonly detail: string;
      /** For the consumer object's status: nothing of another object. */
      readonly reason: string;
    };

/**
 * Where the copy of an adopted consumer object is, read from the service copies' cache.
 *
 * @example
 * ```ts
 * const place = adoptedPlace(plan, caches, obj, sourceIdentity(req.cluster, plan.kcp, obj));
 * ```
 * @param plan - the published resource's plan.
 * @param caches - the sync controller's caches (ready).
 * @param obj - the consumer object.
 * @param source - its identity.
 * @returns the place, or why there is none.
 */
export function adoptedPlace(plan: PublishedPlan, caches: SyncCaches, obj: KubeObject, source: SourceIdentity): AdoptedPlace {
  const a = obj.metadata.annotations ?? {};
  const from = a[adoptedFromAnnotation];
  if (from === undefined) return { type: 'not-adopted' };
  const slash = from.indexOf('/');
  const at = plan.service.namespaced ? { namespace: slash < 0 ? '' : from.slice(0, slash), name: from.slice(slash + 1) } : { namespace: '', name: from };
  // Only what carries the agent's labels is in this cache: what the adopter has not marked yet is not.
  const copy = caches.copy(at.namespace, at.name);
  if (copy === undefined) return { type: 'pending', message: `adopted from ${from}, which the agent has not marked as its copy yet` };
  if (!claimsOwner(copy) && copy.metadata.uid === a[adoptedUidAnnotation]) return { type: 'pending', message: `adopted from ${from}, whose back-reference is not written yet` };
  const problem = ownershipProblem('service object', copy, source, 'refuse');
  if (problem === undefined) return { type: 'at', at };
  const self = `${source.cluster}/${source.namespace === '' ? '' : `${source.namespace}/`}${source.name}`;
  return { type: 'refused', at, detail: `${self} names ${from} as its adopted service object (${adoptedFromAnnotation}), but ${problem.detail}`, reason: `${adoptedFromAnnotation} names a service object that is not this object's copy` };
}
