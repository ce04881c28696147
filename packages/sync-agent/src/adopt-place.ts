// Where an adopted consumer object's copy is: the service object it was made from, at its own
// namespace and name (not where the naming templates would put a new copy). The consumer object
// says where (annotations the adopter writes), the service object proves it (its back-reference
// names this consumer object, uid included), so a tenant that writes the annotations itself can
// point its object at nothing but a place that already belongs to it.
import type { KubeObject } from 'rxfleet';
import type { SourceIdentity } from 'rxfleet/sinks';
import type { ServiceName } from './naming.js';
import { ownershipProblem } from './ownership.js';
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
 * the adopted service object, or not proven yet (the adopter has not written the back-reference, or
 * the annotations name a place that is not this object's: nothing is written until it is).
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
      /** Not (yet) proven. */
      readonly type: 'unproven';
      /** Why, naming the place. */
      readonly message: string;
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
 * @returns the place, or why there is none yet.
 */
export function adoptedPlace(plan: PublishedPlan, caches: SyncCaches, obj: KubeObject, source: SourceIdentity): AdoptedPlace {
  const from = obj.metadata.annotations?.[adoptedFromAnnotation];
  if (from === undefined) return { type: 'not-adopted' };
  const slash = from.indexOf('/');
  const at = plan.service.namespaced ? { namespace: slash < 0 ? '' : from.slice(0, slash), name: from.slice(slash + 1) } : { namespace: '', name: from };
  const copy = caches.copy(at.namespace, at.name);
  if (copy === undefined) return { type: 'unproven', message: `adopted from ${from}, which carries no back-reference of the agent yet` };
  const problem = ownershipProblem('service object', copy, source, 'refuse');
  return problem === undefined ? { type: 'at', at } : { type: 'unproven', message: `adopted from ${from}, but ${problem.detail}` };
}
