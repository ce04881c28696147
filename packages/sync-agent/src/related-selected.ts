// Related objects found by a label selector on the service cluster (origin `service`), copied into
// the consumer's namespace under their rewritten names. Every object the selector matches is proven
// this consumer object's before it is read (related-selector.ts: an owner reference to the copy, a
// back-reference to the consumer object, or a selector that names the copy); what is not proven is
// refused, its names kept out of the consumer's status (they may be another tenant's).
import type { Observable } from 'rxjs';
import { EMPTY, concat, from, mergeMap, of } from 'rxjs';
import { objectKey } from 'rxfleet';
import type { SinkContext, SourceIdentity } from 'rxfleet/sinks';
import { refusal, writeFailed } from 'rxfleet/sinks';
import { serviceCluster } from './clusters.js';
import { originProblem, ownershipProblem } from './ownership.js';
import type { PublishedPlan } from './plan.js';
import type { PrimaryPair, RelatedResult } from './related.js';
import { refused, staleCopies, writeCopy } from './related.js';
import { relatedResource } from './related-gvr.js';
import { matchesLabels, rewriteName, selectedProof, selectorLabels, selectorOf } from './related-selector.js';
import type { SyncCaches } from './sync-caches.js';
import type { RelatedResource, RelatedSelector } from './types.js';

/**
 * Syncs one selector-located related entry of a primary pair: finds the service-side objects of the
 * copy's namespace that carry the rendered labels, refuses those not proven this consumer object's
 * (one refusal, the objects named only in the log), and copies each proven one to its rewritten name
 * in the consumer's namespace, unless a different object is there (the destination check) or two
 * found objects rewrite to one name. Copies made earlier at names no longer found are deleted.
 *
 * @example
 * ```ts
 * syncSelected(ctx.sinks, plan, caches, pair, related, selector, source).subscribe((r: RelatedResult) => console.log(r.type));
 * ```
 * @param sinks - the controller's sinks.
 * @param plan - the published resource's plan.
 * @param caches - the controller's cached reads.
 * @param pair - the two primaries.
 * @param related - the related entry.
 * @param selector - its selector.
 * @param source - the consumer object's identity.
 * @returns the writes' outcomes, or refusals.
 */
export function syncSelected(sinks: SinkContext, plan: PublishedPlan, caches: SyncCaches, pair: PrimaryPair, related: RelatedResource, selector: RelatedSelector, source: SourceIdentity): Observable<RelatedResult> {
  const r = relatedResource(plan, related);
  const c = selectorOf(selector);
  const at = { cluster: pair.logicalCluster, copy: pair.copy, consumer: pair.consumer };
  const namespace = pair.copy.metadata.namespace ?? '';
  const wsNamespace = pair.consumer.metadata.namespace ?? '';
  const consumerKey = objectKey(pair.workspace, wsNamespace, pair.consumer.metadata.name ?? '');
  if (!caches.relatedReady(serviceCluster, r) || !caches.relatedReady(pair.workspace, r)) return EMPTY;
  const wanted = selectorLabels(c, at);
  if (wanted === undefined) return EMPTY;
  if (typeof wanted === 'string') return of({ type: 'write', outcome: writeFailed('apply', consumerKey, refusal('Invalid', consumerKey, `related "${related.identifier}" of published "${plan.published.name}": selector: ${wanted}`), 0) });
  const primary = { resource: plan.service, object: pair.copy };
  const found = caches.relatedIn(serviceCluster, r, namespace).filter((o) => matchesLabels(wanted, o));
  const unproven = found.filter((o) => !selectedProof(c, o, pair.copy, source) || originProblem(r.kind, o, source, primary) !== undefined);
  const proven = found.filter((o) => !unproven.includes(o));
  const results: Observable<RelatedResult>[] = [];
  if (unproven.length > 0) {
    const names = unproven.map((o) => `${namespace}/${o.metadata.name ?? ''}`).join(', ');
    results.push(
      of(
        refused(r.kind, related, consumerKey, 'on the service cluster', {
          detail: `${unproven.length} ${r.kind} object(s) match the selector of the copy of ${pair.workspace}/${wsNamespace}/${pair.consumer.metadata.name ?? ''} without being proven its (no owner reference to the copy, no back-reference to the consumer object, and the selector does not name the copy; or they claim another owner): ${names}`,
          reason: `${unproven.length} object(s) match the selector without being proven to belong to this object`,
        }),
      ),
    );
  }
  const keep = new Set<string>();
  const targets: { readonly origin: (typeof found)[number]; readonly name: string }[] = [];
  for (const o of proven) {
    const n = rewriteName(c, o.metadata.name ?? '', at);
    if (n.type === 'invalid') return of({ type: 'write', outcome: writeFailed('apply', consumerKey, refusal('Invalid', consumerKey, `related "${related.identifier}" of published "${plan.published.name}": ${n.message}`), 0) });
    if (n.type !== 'named') continue;
    if (keep.has(n.name)) {
      const key = objectKey(pair.workspace, wsNamespace, n.name);
      results.push(of(refused(r.kind, related, key, 'in this workspace', { detail: `two ${r.kind} objects found by the selector rewrite to ${wsNamespace}/${n.name}`, reason: 'two found objects rewrite to this name' })));
      continue;
    }
    keep.add(n.name);
    targets.push({ origin: o, name: n.name });
  }
  const writes = from(targets).pipe(
    mergeMap(({ origin, name }) => {
      const key = objectKey(pair.workspace, wsNamespace, name);
      const current = caches.related(pair.workspace, r, wsNamespace, name);
      const notDest = current === undefined ? undefined : ownershipProblem(r.kind, current, source, 'refuse');
      return notDest !== undefined ? of(refused(r.kind, related, key, 'in this workspace', notDest)) : writeCopy(sinks, plan, related, origin, key, current, source);
    }, 2),
  );
  return concat(...results, writes, staleCopies(sinks, plan, caches, related, pair.workspace, wsNamespace, keep, source));
}
