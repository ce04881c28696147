// A related object's status, copied with `syncStatus` in the same direction as its contents (origin
// to destination, api-syncagent's rule), through the destination's status subresource, after the
// entry's `mutation.status` ran on the origin object. Only onto a copy already proven this consumer
// object's (the caller's ownership check), and only over what the cache saw (the cached
// resourceVersion is a precondition), so a copy someone changed meanwhile is read again first.
import type { Observable } from 'rxjs';
import { EMPTY, map, of } from 'rxjs';
import type { KubeObject, ObjectKey } from 'rxfleet';
import type { SinkContext } from 'rxfleet/sinks';
import { patch, refusal, writeFailed } from 'rxfleet/sinks';
import type { PublishedPlan } from './plan.js';
import type { RelatedResult } from './related.js';
import { relatedOn } from './related-gvr.js';
import { mutateRelated } from './related-mutation.js';
import { mergePatchTo } from './sync-up.js';
import type { RelatedResource } from './types.js';

const statusOf = (o: KubeObject): unknown => (o as KubeObject & { readonly status?: unknown }).status;

/**
 * Copies the origin object's status (after `mutation.status`) onto its copy's status subresource:
 * one merge patch of the difference, nothing when they are equal, when the entry has no
 * `syncStatus`, or when there is no copy yet (its creation wakes the consumer object again). A
 * failing rule is an Invalid outcome, nothing written.
 *
 * @example
 * ```ts
 * syncRelatedStatus(sinks, plan, related, origin, destKey, cachedCopy).subscribe((r: RelatedResult) => console.log(r.type));
 * ```
 * @param sinks - the controller's sinks.
 * @param plan - the published resource's plan.
 * @param related - the related entry.
 * @param origin - the origin object.
 * @param at - where the copy is.
 * @param current - the copy as cached (already proven this consumer object's), if any.
 * @returns the patch's outcome, or nothing.
 */
export function syncRelatedStatus(sinks: SinkContext, plan: PublishedPlan, related: RelatedResource, origin: KubeObject, at: ObjectKey, current: KubeObject | undefined): Observable<RelatedResult> {
  if (related.syncStatus !== true || current === undefined) return EMPTY;
  const mutated = mutateRelated(related, origin, current, 'status');
  if (mutated.type === 'failed') return of({ type: 'write', outcome: writeFailed('patch', at, refusal('Invalid', at, `related "${related.identifier}" of published "${plan.published.name}": status ${mutated.message}`), 0, 'status') });
  const diff = mergePatchTo(statusOf(current) ?? {}, statusOf(mutated.object) ?? {});
  if (diff === undefined) return EMPTY;
  const rv = current.metadata.resourceVersion;
  const body = { ...(rv === undefined ? {} : { metadata: { resourceVersion: rv } }), status: diff };
  return patch(sinks, { key: at, resource: relatedOn(plan, related, at.cluster), subresource: 'status', patch: body, current }).pipe(map((outcome): RelatedResult => ({ type: 'write', outcome })));
}
