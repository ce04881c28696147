// Which consumer objects a change of a related-kind object (of any related resource, on either side)
// concerns, so its reconcile runs: a copy the agent made names its consumer object by
// back-reference; an origin object is matched against the primaries of its namespace on its side,
// by the name each of them gives it there (the copy carries the service-side name; related-places.ts),
// in the workspace also by the namespace (`object.namespace`, related-namespace.ts).
import type { ClusterName } from 'rxfleet';
import type { ObjectKey } from 'rxfleet';
import { objectKey } from 'rxfleet';
import type { KubeObject } from 'rxfleet';
import type { ResourceDescriptor } from 'rxfleet';
import { resourceId } from 'rxfleet/client';
import { readBackReference } from 'rxfleet/sinks';
import { serviceCluster } from './clusters.js';
import { relatedName } from './naming.js';
import { referenceKind } from './related-places.js';
import { workspaceNamespace } from './related-namespace.js';
import type { PublishedPlan } from './plan.js';
import type { SyncCaches } from './sync-caches.js';
import { relatedOn } from './related-gvr.js';
import type { CompiledSelector } from './related-selector.js';
import { selectorLabels, selectorOf, selects } from './related-selector.js';

// The consumer objects whose copies, in the object's namespace, select it (by owner reference to a
// copy, or by the selector rendered for each copy and its consumer object): only a wake-up, the
// reconcile proves ownership. Bounded by the copies of the namespace.
function selectedKeys(caches: SyncCaches, c: CompiledSelector, obj: KubeObject): ObjectKey[] {
  const owners = new Set((obj.metadata.ownerReferences ?? []).map((o) => o.uid));
  const keys: ObjectKey[] = [];
  for (const copy of caches.copiesIn(obj.metadata.namespace ?? '')) {
    const src = readBackReference(copy);
    if (src === undefined) continue;
    const consumer = caches.primariesIn(src.cluster, src.namespace).find((p) => p.metadata.name === src.name);
    const wanted = consumer === undefined ? undefined : selectorLabels(c, { cluster: caches.logicalCluster(src.cluster), copy, consumer });
    if (owners.has(copy.metadata.uid ?? '') || (typeof wanted === 'object' && selects(c, wanted, obj))) keys.push(objectKey(src.cluster, src.namespace, src.name));
  }
  return keys;
}

// The consumer objects of the object's workspace namespace whose selector (origin kcp) may find it:
// rendered against each consumer object, a selector that reads the copy cannot be rendered here and
// wakes every consumer object of the namespace (the reconcile renders it with the copy and decides).
function selectedInWorkspace(caches: SyncCaches, c: CompiledSelector, cluster: ClusterName, obj: KubeObject): ObjectKey[] {
  const namespace = obj.metadata.namespace ?? '';
  const noCopy: KubeObject = { metadata: {} };
  return caches
    .primariesIn(cluster, namespace)
    .filter((consumer) => {
      const wanted = selectorLabels(c, { cluster: caches.logicalCluster(cluster), copy: noCopy, consumer });
      return typeof wanted !== 'object' || selects(c, wanted, obj);
    })
    .map((consumer) => objectKey(cluster, namespace, consumer.metadata.name ?? ''));
}

/**
 * The consumer keys a related-kind object concerns, on either side: a copy made by the agent (or
 * anything claiming to be one) names its primary by back-reference; an origin object is matched
 * against the primaries of its namespace on its side (the service copies there, by the name in the
 * copy, derived names included; or the workspace's consumer objects).
 *
 * @example
 * ```ts
 * const keys = relatedKeys(plan, caches, serviceCluster, secrets, operatorSecret); // the consumer objects whose copies name it
 * ```
 * @param plan - the published resource's plan.
 * @param caches - the controller's cached reads.
 * @param cluster - where the object is.
 * @param r - its resource (one of the related resources).
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
    if (resourceId(relatedOn(plan, related, cluster)) !== resourceId(r)) continue;
    const selector = related.object.selector;
    if (selector !== undefined) {
      if (onService !== (related.origin === 'kcp')) keys.push(...(onService ? selectedKeys(caches, selectorOf(selector), obj) : selectedInWorkspace(caches, selectorOf(selector), cluster, obj)));
      continue;
    }
    if (onService) {
      // Read from the copies (a derived name is in the copy's field): only a wake-up, the reconcile
      // proves ownership; a copy edited on the service side wakes the wrong object at worst.
      // The name first (a field read), the back-reference (a hash) only for the copies that name it:
      // in a namespace every workspace shares, this runs over every copy for every event.
      const byPath = related.object.path !== undefined;
      for (const copy of caches.copiesIn(namespace)) {
        const early = byPath ? undefined : readBackReference(copy);
        // A derived name is in the copy's field as it is (no regex): the agent wrote it there.
        const ref = byPath && referenceKind(related.object) === 'derived' ? { path: related.object.path } : related.object;
        const n = relatedName(ref, early === undefined ? '' : caches.logicalCluster(early.cluster), copy);
        if (n.type !== 'named' || n.name !== name) continue;
        const src = early ?? readBackReference(copy);
        if (src !== undefined) keys.push(objectKey(src.cluster, src.namespace, src.name));
      }
    } else {
      // With `object.namespace`, any consumer object of the workspace may name it there.
      const candidates = related.object.namespace === undefined ? caches.primariesIn(cluster, namespace) : caches.primaries(cluster);
      for (const primary of candidates) {
        const ns = workspaceNamespace(related, primary);
        if (ns.type !== 'named' || ns.name !== namespace) continue;
        const n = relatedName(related.object, caches.logicalCluster(cluster), primary);
        if (n.type === 'named' && n.name === name) keys.push(objectKey(cluster, primary.metadata.namespace ?? '', primary.metadata.name ?? ''));
      }
    }
  }
  return keys;
}
