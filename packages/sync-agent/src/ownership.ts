// The ownership proof behind every read, write and copy of the sync agent. An object is this consumer
// object's when its back-reference (verified: the label's hash matches the annotations) names the
// consumer's workspace, resource, namespace, name and uid. An object that claims an owner it cannot
// prove (a back-reference that does not verify, or names someone else; an owner reference to another
// object of the primary's kind) is never used. Each refusal has two texts: the detail, for the
// agent's log (the service provider's eyes, naming both sides), and the reason, for the consumer's
// status, which names nothing of any other object.
import type { KubeObject } from 'rxfleet';
import type { ResourceDescriptor } from 'rxfleet';
import type { SourceIdentity } from 'rxfleet/sinks';
import { readBackReference, sourceClusterAnnotation, sourceLabel, sourceNameAnnotation, sourceNamespaceAnnotation, sourceResourceAnnotation, sourceUidAnnotation } from 'rxfleet/sinks';

/**
 * Why an object is not this consumer object's: `detail` names both sides (for the agent's log),
 * `reason` names nothing of another object (for the consumer object's status).
 *
 * @example
 * ```ts
 * const p: OwnershipProblem = { detail: 'Secret shared/x belongs to ws-a/default/orders (uid 1), not ws-b/default/orders (uid 2)', reason: 'belongs to another object' };
 * ```
 */
export interface OwnershipProblem {
  /** For the agent's log: both objects named. */
  readonly detail: string;
  /** For the consumer's status: nothing of another object. */
  readonly reason: string;
}

const backReferenceKeys = [sourceClusterAnnotation, sourceResourceAnnotation, sourceNamespaceAnnotation, sourceNameAnnotation, sourceUidAnnotation] as const;

/**
 * True when an object carries any part of a back-reference (the label or any of its annotations),
 * whether or not it verifies: such an object claims an owner.
 *
 * @example
 * ```ts
 * claimsOwner({ metadata: { name: 'x', annotations: { 'rxfleet.dev/source-name': 'orders' } } }); // true
 * ```
 * @param obj - any object.
 * @returns whether it claims an owner.
 */
export function claimsOwner(obj: KubeObject): boolean {
  const a = obj.metadata.annotations ?? {};
  return obj.metadata.labels?.[sourceLabel] !== undefined || backReferenceKeys.some((k) => a[k] !== undefined);
}

const sameIdentity = (a: SourceIdentity, b: SourceIdentity): boolean =>
  a.cluster === b.cluster && a.resource === b.resource && a.namespace === b.namespace && a.name === b.name && a.uid === b.uid;

const where = (what: string, obj: KubeObject): string => `${what} ${obj.metadata.namespace ?? ''}/${obj.metadata.name ?? ''}`;
const self = (s: SourceIdentity): string => `${s.cluster}/${s.namespace}/${s.name} (uid ${s.uid})`;
const who = (s: SourceIdentity): string => `${s.cluster}/${s.namespace}/${s.name} (${s.resource}, uid ${s.uid})`;

/**
 * The ownership check of an object the agent made or would use for `source`: `undefined` when its
 * back-reference verifies and names exactly `source` (workspace, resource, namespace, name, uid).
 * An object with no back-reference at all is refused unless `unmarked: 'accept'` (an origin object
 * found where only this consumer object's can be: the service operator's Secret at the name the agent
 * derived, or the consumer's own ConfigMap in its own namespace).
 *
 * @example
 * ```ts
 * const problem = ownershipProblem('Secret', current, source, 'refuse');
 * if (problem !== undefined) log.warn(problem.detail);
 * ```
 * @param what - what the object is, for the texts (e.g. `Secret`, `service copy`).
 * @param obj - the object.
 * @param source - the consumer object it must belong to.
 * @param unmarked - what an object without any back-reference gets.
 * @returns the problem, or `undefined` when it is this consumer object's.
 */
export function ownershipProblem(what: string, obj: KubeObject, source: SourceIdentity, unmarked: 'accept' | 'refuse'): OwnershipProblem | undefined {
  const ref = readBackReference(obj);
  if (ref === undefined) {
    if (claimsOwner(obj)) return { detail: `${where(what, obj)} carries a back-reference that does not verify (its label and annotations disagree), so it cannot belong to ${self(source)}`, reason: `${what} carries a back-reference that does not verify` };
    if (unmarked === 'accept') return undefined;
    return { detail: `${where(what, obj)} carries no valid back-reference, so it cannot belong to ${self(source)}`, reason: `${what} ${obj.metadata.name ?? ''} exists and was not made by the agent for this object` };
  }
  if (!sameIdentity(ref, source)) return { detail: `${where(what, obj)} belongs to ${who(ref)}, not to ${self(source)}`, reason: `${what} belongs to another object` };
  return undefined;
}

const groupOf = (apiVersion: string): string => (apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '');

/**
 * A primary object with its resource (list items may lack `apiVersion` and `kind`).
 *
 * @example
 * ```ts
 * const primary: Primary = { resource: plan.service, object: copy };
 * ```
 */
export interface Primary {
  /** Its resource: the group and kind an owner reference to it names. */
  readonly resource: ResourceDescriptor;
  /** The object (its uid and name). */
  readonly object: KubeObject;
}

/**
 * The owner-reference check of an origin object: `undefined` unless it names an owner of the
 * primary's kind (same API group and kind) that is not the primary (another uid). An operator that
 * sets owner references on what it makes (as controller-runtime's `SetControllerReference` does)
 * thus proves, on its own, which copy a Secret is for.
 *
 * @example
 * ```ts
 * const problem = ownerReferenceProblem('Secret', operatorSecret, { resource: plan.service, object: copy });
 * ```
 * @param what - what the object is, for the texts.
 * @param obj - the origin object.
 * @param primary - the primary on the same side (the service copy, or the consumer object).
 * @returns the problem, or `undefined`.
 */
export function ownerReferenceProblem(what: string, obj: KubeObject, primary: Primary): OwnershipProblem | undefined {
  const { group, kind } = primary.resource;
  const uid = primary.object.metadata.uid;
  const other = (obj.metadata.ownerReferences ?? []).find((o) => o.kind === kind && groupOf(o.apiVersion) === group && o.uid !== uid);
  if (other === undefined) return undefined;
  return {
    detail: `${where(what, obj)} is owned by ${other.kind} ${other.name} (uid ${other.uid}), not by ${kind} ${primary.object.metadata.name ?? ''} (uid ${uid ?? ''})`,
    reason: `${what} is owned by another ${other.kind}`,
  };
}

/**
 * The check of an origin object (what a related object is copied from): a back-reference, if it
 * carries one, must name `source` exactly; an owner reference of the primary's kind must name
 * `primary`. An origin object that claims nothing is the one at the place only this consumer object
 * can name (see `relatedPlaces`), and is accepted.
 *
 * @example
 * ```ts
 * const problem = originProblem('Secret', origin, source, { resource: plan.service, object: copy });
 * ```
 * @param what - what the object is, for the texts.
 * @param origin - the origin object.
 * @param source - the consumer object.
 * @param primary - the primary on the origin's side.
 * @returns the problem, or `undefined`.
 */
export function originProblem(what: string, origin: KubeObject, source: SourceIdentity, primary: Primary): OwnershipProblem | undefined {
  return ownershipProblem(what, origin, source, 'accept') ?? ownerReferenceProblem(what, origin, primary);
}
