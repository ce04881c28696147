// Every related entry of a primary pair, each by the way it is located: a name (path or template,
// related.ts) or a label selector (related-selected.ts).
import type { Observable } from 'rxjs';
import { from, mergeMap } from 'rxjs';
import type { SinkContext, SourceIdentity } from 'rxfleet/sinks';
import type { PublishedPlan } from './plan.js';
import type { PrimaryPair, RelatedResult } from './related.js';
import { syncRelated } from './related.js';
import { syncSelected } from './related-selected.js';
import type { SyncCaches } from './sync-caches.js';

/**
 * Syncs every related resource of a primary pair (see `syncRelated` and `syncSelected`).
 *
 * @example
 * ```ts
 * syncAllRelated(ctx.sinks, plan, caches, pair, source).subscribe((r: RelatedResult) => console.log(r.type));
 * ```
 * @param sinks - the controller's sinks.
 * @param plan - the published resource's plan.
 * @param caches - the controller's cached reads.
 * @param pair - the two primaries.
 * @param source - the consumer primary's identity.
 * @returns the outcomes and refusals.
 */
export function syncAllRelated(sinks: SinkContext, plan: PublishedPlan, caches: SyncCaches, pair: PrimaryPair, source: SourceIdentity): Observable<RelatedResult> {
  return from(plan.published.related ?? []).pipe(
    mergeMap((related) => {
      const selector = related.object.selector;
      return selector === undefined ? syncRelated(sinks, plan, caches, pair, related, source) : syncSelected(sinks, plan, caches, pair, related, selector, source);
    }, 2),
  );
}
