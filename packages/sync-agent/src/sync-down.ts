// Spec down: the consumer object's copy on the service cluster, in its service-side namespace,
// written by server-side apply under the agent's field manager. The copy carries the agent's
// labels and rxfleet's back-reference to the consumer object: the way back up, the tenant check,
// and what cleanup and the orphan sweep select by. Nothing is sent when the cached copy already
// says what the apply would say.
import type { Observable } from 'rxjs';
import { concat, concatMap, map, of, toArray } from 'rxjs';
import { objectKey } from 'rxfleet';
import type { KubeObject, Namespace } from 'rxfleet';
import { namespaces } from 'rxfleet';
import { apiVersionOf } from 'rxfleet/client';
import { E } from 'rxfleet/fp';
import { apply } from 'rxfleet/sinks';
import type { SourceIdentity } from 'rxfleet/sinks';
import { readBackReference, withBackReference } from 'rxfleet/sinks';
import type { SinkContext } from 'rxfleet/sinks';
import type { WriteOutcome } from 'rxfleet/sinks';
import { serviceCluster } from './clusters.js';
import { agentLabel, agentLabels, syncClusterAnnotation } from './labels.js';
import type { PublishedPlan } from './plan.js';
import type { ServiceName } from './naming.js';
import type { SyncCaches } from './sync-caches.js';
import type { Refusal } from './condition.js';
import { mutate } from './mutation.js';
import { withDerivedReferences } from './related-places.js';
import { withCopyNamespaces } from './related-namespace.js';

// From getBuiltinModule, not `import`: see rxfleet's src/client/h2-pool.ts.
const { isDeepStrictEqual } = process.getBuiltinModule('node:util');

type Fields = Readonly<Record<string, unknown>>;
type Strings = Readonly<Record<string, string>>;

// The top-level fields that never sync down: the rest is api-syncagent's "spec".
const notSpec = new Set(['apiVersion', 'kind', 'metadata', 'status']);

// Keys that never sync down, whatever the patterns (`*` included), as api-syncagent leaves them out:
// kcp's (the workspace annotation, permission-claim labels), kubectl's last applied configuration,
// api-syncagent's own and rxfleet's (the agent's labels, back-references): the agent sets these
// itself, and a consumer's value must never stand in for them.
const reservedKeys = new Set(['kcp.io/cluster', 'kubectl.kubernetes.io/last-applied-configuration']);
const reservedDomains = ['rxfleet.dev', 'syncagent.kcp.io', 'apis.kcp.io'];

function reserved(key: string): boolean {
  if (reservedKeys.has(key)) return true;
  const slash = key.indexOf('/');
  const domain = slash < 0 ? '' : key.slice(0, slash);
  return reservedDomains.some((d) => domain === d || domain.endsWith(`.${d}`));
}

/**
 * True when `key` is selected by a SyncDown key list (exact keys, or a prefix ending in `*`; `*`
 * alone is every key) and is not one the agent, kcp or api-syncagent keep for themselves
 * (`kcp.io/cluster`, `*.apis.kcp.io/*`, `syncagent.kcp.io/*`, `rxfleet.dev/*`, `sync.rxfleet.dev/*`,
 * kubectl's last applied configuration).
 *
 * @example
 * ```ts
 * keyMatches(['app.kubernetes.io/*'], 'app.kubernetes.io/name'); // true
 * keyMatches(['*'], 'kcp.io/cluster'); // false
 * ```
 * @param patterns - the configured keys.
 * @param key - a label or annotation key.
 * @returns whether it syncs.
 */
export function keyMatches(patterns: readonly string[] | undefined, key: string): boolean {
  return !reserved(key) && (patterns ?? []).some((p) => (p.endsWith('*') ? key.startsWith(p.slice(0, -1)) : key === p));
}

const pick = (from: Strings | undefined, patterns: readonly string[] | undefined): Record<string, string> =>
  Object.fromEntries(Object.entries(from ?? {}).filter(([k]) => keyMatches(patterns, k)));

/**
 * The annotation on a copy listing the label and annotation keys synced down by a prefix pattern
 * (`app/*`, `*`): the service side adds keys of its own under the same patterns, so only this
 * record tells a key the consumer dropped (to remove) from one the operator set (to leave).
 */
const syncedKeysAnnotation = 'sync.rxfleet.dev/synced-keys';
const prefixes = (patterns: readonly string[] | undefined): boolean => (patterns ?? []).some((p) => p.endsWith('*'));
const exact = (patterns: readonly string[] | undefined): readonly string[] => (patterns ?? []).filter((p) => !p.endsWith('*'));
const syncedKeys = (labels: Strings, annotations: Strings): string => `labels=${Object.keys(labels).sort().join(',')};annotations=${Object.keys(annotations).sort().join(',')}`;

/**
 * The service copy the agent applies for a consumer object: every top-level field but
 * `apiVersion`, `kind`, `metadata` and `status`, with each related reference the consumer writes
 * replaced by the name the agent derived for it (see `withDerivedReferences`), each related
 * namespace field by the copy's namespace (`withCopyNamespaces`); the labels and
 * annotations `syncDown` lists; the agent's labels; the back-reference to the consumer object.
 *
 * @example
 * ```ts
 * const desired = desiredCopy(plan, db, { namespace: 'ws-a', name: 'x-y' }, sourceIdentity(cluster, plan.kcp, db), 'ws-a');
 * ```
 * @param plan - the published resource's plan.
 * @param obj - the consumer object.
 * @param at - where it lands.
 * @param source - the consumer object's identity.
 * @param logicalCluster - the consumer's workspace (for the derived names).
 * @returns the apply configuration.
 */
export function desiredCopy(plan: PublishedPlan, obj: KubeObject, at: ServiceName, source: SourceIdentity, logicalCluster: string): KubeObject {
  const down = plan.published.syncDown ?? {};
  const spec = withCopyNamespaces(plan, at.namespace, obj, withDerivedReferences(plan, logicalCluster, obj, Object.fromEntries(Object.entries(obj as unknown as Fields).filter(([k]) => !notSpec.has(k)))));
  const picked = pick(obj.metadata.annotations, down.annotations);
  const labels = pick(obj.metadata.labels, down.labels);
  const annotations = prefixes(down.labels) || prefixes(down.annotations) ? { ...picked, [syncedKeysAnnotation]: syncedKeys(labels, picked) } : picked;
  const copy: KubeObject = {
    ...spec,
    apiVersion: apiVersionOf(plan.service),
    kind: plan.service.kind,
    metadata: {
      name: at.name,
      ...(plan.service.namespaced ? { namespace: at.namespace } : {}),
      labels: { ...labels, ...agentLabels(plan.agentName, plan.published.name) },
      ...(Object.keys(annotations).length === 0 ? {} : { annotations }),
    },
  };
  return withBackReference(copy, source);
}

const sameEntries = (want: Strings | undefined, have: Strings | undefined): boolean => Object.entries(want ?? {}).every(([k, v]) => have?.[k] === v);

/**
 * True when the copy on the service cluster already holds what `desired` says: the same spec
 * fields (none more, none less), the desired labels and annotations, and no synced label or
 * annotation the consumer has since dropped. Then no apply is sent.
 *
 * @example
 * ```ts
 * const skip: boolean = copyUpToDate(plan, cached, desired);
 * ```
 * @param plan - the published resource's plan (for the synced key lists).
 * @param copy - the cached copy.
 * @param desired - what would be applied.
 * @returns whether an apply would change nothing.
 */
export function copyUpToDate(plan: PublishedPlan, copy: KubeObject, desired: KubeObject): boolean {
  const down = plan.published.syncDown ?? {};
  const specOf = (o: KubeObject): Fields => Object.fromEntries(Object.entries(o as unknown as Fields).filter(([k]) => !notSpec.has(k)));
  if (!isDeepStrictEqual(specOf(copy), specOf(desired))) return false;
  const [have, want] = [copy.metadata, desired.metadata];
  if (!sameEntries(want.labels, have.labels) || !sameEntries(want.annotations, have.annotations)) return false;
  // A key a prefix synced and the consumer dropped changes the synced-keys record (compared above);
  // under exact keys, a synced key on the copy that is no longer wanted is the change.
  const stale = (mine: Strings | undefined, theirs: Strings | undefined, patterns: readonly string[] | undefined): boolean =>
    Object.keys(theirs ?? {}).some((k) => keyMatches(exact(patterns), k) && mine?.[k] === undefined);
  return !stale(want.labels, have.labels, down.labels) && !stale(want.annotations, have.annotations, down.annotations);
}

// The same consumer object, perhaps an earlier incarnation (another uid): its copy is adopted.
const sameObject = (ref: SourceIdentity | undefined, source: SourceIdentity): boolean =>
  ref?.cluster === source.cluster && ref.resource === source.resource && ref.namespace === source.namespace && ref.name === source.name;

/**
 * What {@link syncDown} did: the outcomes of its writes (none when everything was in place), the
 * copy as it now stands (`undefined` when a write failed or was refused), and the refusal when the
 * place belongs to another object.
 *
 * @example
 * ```ts
 * const r: DownResult = { outcomes: [], copy: cached, refusals: [] };
 * ```
 */
export interface DownResult {
  readonly outcomes: readonly WriteOutcome[];
  readonly copy: KubeObject | undefined;
  readonly refusals: readonly Refusal[];
}

/**
 * Syncs a consumer object down: makes sure its service-side namespace exists (labelled with the
 * agent, annotated with the workspace; left alone once the agent's label is on it), then applies
 * the copy unless the cached one is already up to date. A copy at that name that belongs to
 * another object (another workspace, namespace or name, or no back-reference at all) is never
 * overwritten: a refusal, checked before anything is written. A copy of an earlier object of
 * the same workspace, namespace and name (another uid) is adopted.
 *
 * @example
 * ```ts
 * syncDown(ctx.sinks, plan, caches, req.cluster, obj, at, source).subscribe((r: DownResult) => console.log(r.copy?.metadata.name));
 * ```
 * @param sinks - the controller's sinks.
 * @param plan - the published resource's plan.
 * @param caches - the controller's cached reads (ready).
 * @param workspace - the consumer's logical cluster, for the namespace annotation.
 * @param obj - the consumer object.
 * @param at - where it lands.
 * @param source - the consumer object's identity.
 * @param adopted - the copy is an adopted service object, in a namespace the agent did not make and leaves alone. Default false.
 * @returns one result, then completes.
 */
export function syncDown(sinks: SinkContext, plan: PublishedPlan, caches: SyncCaches, workspace: string, obj: KubeObject, at: ServiceName, source: SourceIdentity, adopted = false): Observable<DownResult> {
  const key = objectKey(serviceCluster, plan.service.namespaced ? at.namespace : '', at.name);
  const cached = caches.copy(key.namespace, key.name);
  if (cached !== undefined) {
    const ref = readBackReference(cached);
    if (!sameObject(ref, source)) {
      const owner = ref === undefined ? 'no valid back-reference' : `a back-reference to ${ref.cluster}/${ref.namespace}/${ref.name}`;
      const detail = `sync refused: tenant check: ${plan.service.plural} ${at.namespace}/${at.name} on the service cluster carries ${owner}, not ${source.cluster}/${source.namespace}/${source.name}`;
      const reason = `the service-side name ${at.namespace}/${at.name} is taken by another object (check the naming templates)`;
      return of({ outcomes: [], copy: undefined, refusals: [{ key, detail, reason }] });
    }
  }
  // api-syncagent's spec mutation: on the consumer object, its service copy (if any) as `other`.
  const mutated = mutate(plan.mutations?.spec, obj, cached);
  if (mutated.type === 'failed') {
    const detail = `sync refused: ${plan.published.name}: ${mutated.message} (consumer object ${source.cluster}/${source.namespace}/${source.name})`;
    return of({ outcomes: [], copy: undefined, refusals: [{ key, detail, reason: `the spec mutation failed: ${mutated.message}` }] });
  }
  const desired = desiredCopy(plan, mutated.object, at, source, workspace);
  const ns: Observable<WriteOutcome>[] = [];
  if (plan.service.namespaced && !adopted && caches.namespace(at.namespace) === undefined) {
    const namespace: Namespace = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: at.namespace, labels: { [agentLabel]: plan.agentName }, annotations: { [syncClusterAnnotation]: source.cluster } } };
    ns.push(apply(sinks, { cluster: serviceCluster, resource: namespaces, object: namespace }));
  }
  const upToDate = cached !== undefined && copyUpToDate(plan, cached, desired);
  return concat(...ns).pipe(
    toArray(),
    concatMap((before): Observable<DownResult> => {
      // Without its namespace the copy cannot be written: report the namespace's failure alone.
      if (before.some(E.isLeft)) return of({ outcomes: before, copy: undefined, refusals: [] });
      if (upToDate) return of({ outcomes: before, copy: cached, refusals: [] });
      return apply(sinks, { cluster: serviceCluster, resource: plan.service, object: desired, current: cached ?? null }).pipe(
        map((o) => ({ outcomes: [...before, o], copy: E.isRight(o) ? o.right.object : undefined, refusals: [] })),
      );
    }),
  );
}
