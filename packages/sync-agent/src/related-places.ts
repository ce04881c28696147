// Where a related object is on each side. In the workspace, where the consumer says (its own
// namespace, so its own business). On the service cluster, never where a consumer says: a name a
// consumer writes (a path in the synced spec) is replaced by one the agent derives from the
// consumer object's identity, and the copy carries the derived name in that field, so the service's
// operator reads and writes there. Two consumer objects (two workspaces sharing a service
// namespace, or two namespaces of one workspace) can then never name the same service-side object.
// Names the consumer cannot write (the copy's own name, a status field the operator sets) are read
// from the copy.
import type { KubeObject } from 'rxfleet';
import { resourceId } from 'rxfleet/client';
import { getPath, setSegments, splitPath } from './object-path.js';
import type { RelatedNameResult } from './naming.js';
import { relatedName } from './naming.js';
import type { PublishedPlan } from './plan.js';
import { parseTemplate, sha3short, templateFields } from './template.js';
import type { RelatedReference, RelatedResource } from './types.js';

/**
 * Where a related object's service-side name comes from:
 * - `derived`: a path the consumer writes (anything synced down): the agent derives the name;
 * - `copy`: `metadata.name`, or a template of the copy's name, namespace and status;
 * - `status`: a status path the service's operator writes on the copy.
 *
 * @example
 * ```ts
 * referenceKind({ path: 'spec.connectionSecretName' }); // 'derived'
 * ```
 */
export type ReferenceKind = 'derived' | 'copy' | 'status';

/**
 * The kind of a related reference (see {@link ReferenceKind}).
 *
 * @example
 * ```ts
 * referenceKind({ path: 'status.secretName' }); // 'status'
 * ```
 * @param ref - the related resource's `object`.
 * @returns where its service-side name comes from.
 */
export function referenceKind(ref: RelatedReference): ReferenceKind {
  if (ref.path === undefined) return 'copy';
  const head = splitPath(ref.path)[0];
  return head === 'status' ? 'status' : head === 'metadata' ? 'copy' : 'derived';
}

const copyFields = new Set(['.ClusterName', '.Object.metadata.name', '.Object.metadata.namespace']);
const perObject = (f: string): boolean => f === '.Object.metadata.name' || f.startsWith('.Object.status.');

/**
 * What keeps a related reference from being safe on a shared service cluster, or `undefined`. A
 * path under `metadata` may only be `metadata.name`, and a template may read only `.ClusterName`,
 * `.Object.metadata.name`, `.Object.metadata.namespace` and `.Object.status.<field>` (the fields a
 * consumer cannot write on the copy), at least one of which tells objects apart (the name or a
 * status field): on the service side the template is rendered against the copy, and a field the
 * consumer writes could name another consumer object's related object. A path elsewhere is
 * always safe: its service-side name is derived.
 *
 * @example
 * ```ts
 * relatedReferenceProblem({ template: '{{ .Object.spec.secret }}' });
 * // 'template reads .Object.spec.secret, which the consumer writes: ...'
 * ```
 * @param ref - the related resource's `object`.
 * @returns the problem in words, or `undefined`.
 */
export function relatedReferenceProblem(ref: RelatedReference): string | undefined {
  if (ref.selector !== undefined) return undefined; // its own check: compileSelector
  if (ref.path !== undefined) {
    const [head, ...rest] = splitPath(ref.path);
    if (head === 'metadata' && ref.path !== 'metadata.name') return `path ${ref.path}: under metadata only metadata.name can name a related object (the agent sets the copy's metadata; a label or annotation a consumer writes could name another consumer object's related object)`;
    if ((head === 'apiVersion' || head === 'kind') && rest.length === 0) return `path ${ref.path} cannot name a related object`;
    return undefined;
  }
  const t = parseTemplate(ref.template);
  if (t.type === 'invalid') return undefined; // reported as a template problem
  const fields = templateFields(t.template);
  const written = fields.filter((f) => !copyFields.has(f) && !f.startsWith('.Object.status.'));
  if (written.length > 0) {
    return `template reads ${written.join(', ')}, which the consumer writes: on the service cluster the template is rendered against the copy, so a consumer could name another consumer object's related object; use a path (the agent then derives the service-side name) or read only .ClusterName, .Object.metadata.name, .Object.metadata.namespace and .Object.status.<field>`;
  }
  if (!fields.some(perObject)) return 'template reads neither .Object.metadata.name nor a status field, so every object of a namespace would name the same related object';
  return undefined;
}

/**
 * The service-side name the agent derives for a related object named by a path the consumer
 * writes: a hash of the workspace, the published resource, the consumer object's namespace and name
 * (20 hex characters of SHA3-256, as the default copy names), then a hash of the related
 * identifier. Stable while the consumer object lives, whatever name it gives the object in its
 * workspace, and different for every consumer object.
 *
 * @example
 * ```ts
 * derivedRelatedName(plan, related, '1x2y3z', { namespace: 'default', name: 'orders' }); // '<20 hex>-<8 hex>'
 * ```
 * @param plan - the published resource's plan.
 * @param related - the related resource.
 * @param logicalCluster - the consumer's workspace (logical cluster).
 * @param consumer - the consumer object's namespace and name.
 * @returns a DNS-1123 label.
 */
export function derivedRelatedName(plan: PublishedPlan, related: RelatedResource, logicalCluster: string, consumer: { readonly namespace: string; readonly name: string }): string {
  return `${sha3short(JSON.stringify([logicalCluster, resourceId(plan.kcp), consumer.namespace, consumer.name]))}-${sha3short(related.identifier, 8)}`;
}

/**
 * A related object's name on each side: in the workspace from the consumer object; on the service
 * cluster derived (see {@link derivedRelatedName}) or read from the copy (see {@link referenceKind}).
 *
 * @example
 * ```ts
 * const at = relatedPlaces(plan, related, '1x2y3z', consumer, copy);
 * if (at.kcp.type === 'named' && at.service.type === 'named') console.log(at.kcp.name, '<->', at.service.name);
 * ```
 */
export interface RelatedPlaces {
  /** In the consumer's workspace, in the consumer object's namespace. */
  readonly kcp: RelatedNameResult;
  /** On the service cluster, in the copy's namespace. */
  readonly service: RelatedNameResult;
}

/**
 * The names of one related object on both sides (see {@link RelatedPlaces}).
 *
 * @example
 * ```ts
 * const at = relatedPlaces(plan, related, pair.logicalCluster, pair.consumer, pair.copy);
 * ```
 * @param plan - the published resource's plan.
 * @param related - the related resource.
 * @param logicalCluster - the consumer's workspace.
 * @param consumer - the consumer object.
 * @param copy - its service copy.
 * @returns both names (or why one is missing or invalid).
 */
export function relatedPlaces(plan: PublishedPlan, related: RelatedResource, logicalCluster: string, consumer: KubeObject, copy: KubeObject): RelatedPlaces {
  const kcp = relatedName(related.object, logicalCluster, consumer);
  if (referenceKind(related.object) !== 'derived') return { kcp, service: relatedName(related.object, logicalCluster, copy) };
  const at = { namespace: consumer.metadata.namespace ?? '', name: consumer.metadata.name ?? '' };
  return { kcp, service: kcp.type === 'named' ? { type: 'named', name: derivedRelatedName(plan, related, logicalCluster, at) } : kcp };
}

/**
 * The copy's synced fields with every consumer-written related reference replaced by its derived
 * service-side name (only where the consumer set a non-empty string), so the service's operator
 * finds the related object where the agent puts it (or takes it from).
 *
 * @example
 * ```ts
 * const spec = withDerivedReferences(plan, '1x2y3z', consumer, { spec: { connectionSecretName: 'orders-db' } });
 * // { spec: { connectionSecretName: '<20 hex>-<8 hex>' } }
 * ```
 * @param plan - the published resource's plan.
 * @param logicalCluster - the consumer's workspace.
 * @param consumer - the consumer object.
 * @param fields - the top-level fields the copy gets (everything but apiVersion, kind, metadata, status).
 * @returns the fields with the references replaced.
 */
export function withDerivedReferences<T extends Readonly<Record<string, unknown>>>(plan: PublishedPlan, logicalCluster: string, consumer: KubeObject, fields: T): T {
  const at = { namespace: consumer.metadata.namespace ?? '', name: consumer.metadata.name ?? '' };
  let out = fields;
  for (const related of plan.published.related ?? []) {
    const path = related.object.path;
    if (path === undefined || referenceKind(related.object) !== 'derived') continue;
    const v = getPath(consumer, path);
    if (typeof v === 'string' && v !== '') out = setSegments(out, splitPath(path), derivedRelatedName(plan, related, logicalCluster, at));
  }
  return out;
}
