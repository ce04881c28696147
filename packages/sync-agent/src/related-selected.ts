// Related objects found by a label selector on their origin side, in either direction.
// - Origin `service`: found in the copy's namespace on the service cluster (which other workspaces
//   may share), each proven this consumer object's before it is read (related-selector.ts: an owner
//   reference to the copy, a back-reference to the consumer object, or a selector that names the
//   copy), copied into the consumer's namespace under its rewritten name.
// - Origin `kcp`: found only in the consumer object's own workspace and namespace (nothing of
//   another tenant's is ever in reach), copied into the copy's namespace under a name the agent
//   derives from the consumer object and the rewritten name, so two consumers sharing a service
//   namespace never collide; the agent's own copies are never origins.
// In both, what is not proven is refused, its names kept out of the consumer's status.
import type { Observable } from 'rxjs';
import { EMPTY, concat, from, mergeMap, of } from 'rxjs';
import type { ClusterName, KubeObject, ObjectKey } from 'rxfleet';
import { objectKey } from 'rxfleet';
import type { SinkContext, SourceIdentity } from 'rxfleet/sinks';
import { refusal, writeFailed } from 'rxfleet/sinks';
import { serviceCluster } from './clusters.js';
import { agentLabel, relatedLabel } from './labels.js';
import { originProblem, ownershipProblem } from './ownership.js';
import type { PublishedPlan } from './plan.js';
import type { PrimaryPair, RelatedResult } from './related.js';
import { refused, staleCopies, writeCopy } from './related.js';
import { relatedResource } from './related-gvr.js';
import { derivedRelatedName } from './related-places.js';
import { rewriteName, selectedProof, selectorLabels, selectorOf, selects } from './related-selector.js';
import { sha3short } from './template.js';
import type { SyncCaches } from './sync-caches.js';
import type { RelatedResource, RelatedSelector } from './types.js';

/**
 * The service-side name of an object an origin-`kcp` selector found: the name the agent derives for
 * the consumer object's related entry (see `derivedRelatedName`), then 8 hex characters of SHA3-256
 * of the found object's rewritten name. Never a name the consumer writes, so consumer objects sharing
 * a service namespace (other workspaces, other namespaces) can never name the same object.
 *
 * @example
 * ```ts
 * selectedServiceName(plan, related, '1x2y3z', { namespace: 'default', name: 'orders' }, 'cfg-1'); // '<20 hex>-<8 hex>-<8 hex>'
 * ```
 * @param plan - the published resource's plan.
 * @param related - the related entry.
 * @param logicalCluster - the consumer's workspace.
 * @param consumer - the consumer object's namespace and name.
 * @param rewritten - the found object's rewritten name.
 * @returns a DNS-1123 label.
 */
export function selectedServiceName(plan: PublishedPlan, related: RelatedResource, logicalCluster: string, consumer: { readonly namespace: string; readonly name: string }, rewritten: string): string {
  return `${derivedRelatedName(plan, related, logicalCluster, consumer)}-${sha3short(rewritten, 8)}`;
}

const invalid = (plan: PublishedPlan, related: RelatedResource, key: ObjectKey, message: string): RelatedResult => ({
  type: 'write',
  outcome: writeFailed('apply', key, refusal('Invalid', key, `related "${related.identifier}" of published "${plan.published.name}": ${message}`), 0),
});

interface Side {
  readonly cluster: ClusterName;
  readonly namespace: string;
  readonly side: string;
}

// A copy the agent made (of this or another related entry) is never an origin: it would travel back.
const agentMade = (plan: PublishedPlan, o: KubeObject): boolean => o.metadata.labels?.[agentLabel] === plan.agentName && o.metadata.labels[relatedLabel] !== undefined;

/**
 * Syncs one selector-located related entry of a primary pair (see the file's header): finds the
 * objects of its namespace on the origin side that carry the rendered labels and meet the
 * `matchExpressions`, refuses those not proven this consumer object's (one refusal, the objects
 * named only in the log), and copies each proven one to its name on the other side, unless a
 * different object is there (the destination check) or two found objects rewrite to one name.
 * Copies made earlier at names no longer found are deleted.
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
  const rDest = relatedResource(plan, related, related.origin === 'kcp' ? 'service' : 'kcp');
  const c = selectorOf(selector);
  const at = { cluster: pair.logicalCluster, copy: pair.copy, consumer: pair.consumer };
  const down = related.origin === 'kcp';
  const wsNamespace = pair.consumer.metadata.namespace ?? '';
  const consumerName = pair.consumer.metadata.name ?? '';
  const consumerKey = objectKey(pair.workspace, wsNamespace, consumerName);
  const onService: Side = { cluster: serviceCluster, namespace: pair.copy.metadata.namespace ?? '', side: 'on the service cluster' };
  const inWorkspace: Side = { cluster: pair.workspace, namespace: wsNamespace, side: 'in this workspace' };
  const [origin, dest] = down ? [inWorkspace, onService] : [onService, inWorkspace];
  if (!caches.relatedReady(origin.cluster, r) || !caches.relatedReady(dest.cluster, rDest)) return EMPTY;
  const wanted = selectorLabels(c, at);
  if (wanted === undefined) return EMPTY;
  if (typeof wanted === 'string') return of(invalid(plan, related, consumerKey, `selector: ${wanted}`));
  const primary = down ? { resource: plan.kcp, object: pair.consumer } : { resource: plan.service, object: pair.copy };
  const found = caches.relatedIn(origin.cluster, r, origin.namespace).filter((o) => selects(c, wanted, o) && !agentMade(plan, o));
  // In the consumer's own namespace every object is its own business: only a claimed other owner disproves it.
  const unproven = found.filter((o) => (!down && !selectedProof(c, o, pair.copy, source)) || originProblem(r.kind, o, source, primary) !== undefined);
  const results: Observable<RelatedResult>[] = [];
  if (unproven.length > 0) {
    const names = unproven.map((o) => `${origin.namespace}/${o.metadata.name ?? ''}`).join(', ');
    const why = down ? 'they claim another owner (a back-reference or an owner reference to another object)' : 'no owner reference to the copy, no back-reference to the consumer object, and the selector does not name the copy; or they claim another owner';
    results.push(
      of(
        refused(r.kind, related, consumerKey, origin.side, {
          detail: `${unproven.length} ${r.kind} object(s) ${origin.side} match the selector of ${pair.workspace}/${wsNamespace}/${consumerName} without being proven its (${why}): ${names}`,
          reason: `${unproven.length} object(s) match the selector without being proven to belong to this object`,
        }),
      ),
    );
  }
  const keep = new Set<string>();
  const targets: { readonly origin: KubeObject; readonly key: ObjectKey }[] = [];
  for (const o of found.filter((x) => !unproven.includes(x))) {
    const n = rewriteName(c, o.metadata.name ?? '', at);
    if (n.type === 'invalid') return of(invalid(plan, related, consumerKey, n.message));
    if (n.type !== 'named') continue;
    const name = down ? selectedServiceName(plan, related, pair.logicalCluster, { namespace: wsNamespace, name: consumerName }, n.name) : n.name;
    const key = objectKey(dest.cluster, dest.namespace, name);
    if (keep.has(name)) {
      results.push(of(refused(rDest.kind, related, key, dest.side, { detail: `two ${r.kind} objects found by the selector rewrite to ${n.name}`, reason: 'two found objects rewrite to this name' })));
      continue;
    }
    keep.add(name);
    targets.push({ origin: o, key });
  }
  const writes = from(targets).pipe(
    mergeMap(({ origin: o, key }) => {
      const current = caches.related(key.cluster, rDest, key.namespace, key.name);
      const notDest = current === undefined ? undefined : ownershipProblem(rDest.kind, current, source, 'refuse');
      return notDest !== undefined ? of(refused(rDest.kind, related, key, dest.side, notDest)) : writeCopy(sinks, plan, related, o, key, current, source);
    }, 2),
  );
  return concat(...results, writes, staleCopies(sinks, plan, caches, related, dest.cluster, dest.namespace, keep, source));
}
