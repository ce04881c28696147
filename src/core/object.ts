// The shape of Kubernetes objects as rxfleet sees them on the wire: plain JSON, typed just enough.

// ConfigMap, Secret, Namespace and Lease have one home, rxfleet/resources (generated from a real
// kube-apiserver); named here too so that the core's users import them from one place.
export type { ConfigMap } from '../resources/core-v1/types-1.js';
export type { Namespace } from '../resources/core-v1/types-3.js';
export type { Secret } from '../resources/core-v1/types-5.js';
export type { Lease } from '../resources/coordination-v1/types.js';

/**
 * A reference from one object to its owner in the same cluster.
 *
 * @example
 * ```ts
 * const ref: OwnerReference = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: 'u-1', controller: true };
 * ```
 */
export interface OwnerReference {
  /** API group/version of the owner, e.g. `apps/v1`. */
  readonly apiVersion: string;
  /** Kind of the owner, e.g. `Deployment`. */
  readonly kind: string;
  /** Name of the owner, which lives in the dependent's namespace or is cluster-scoped. */
  readonly name: string;
  /** UID of the owner: a recreated owner with the same name does not match. */
  readonly uid: string;
  /** True on the one reference to the controller that manages this object; absent means false. */
  readonly controller?: boolean;
  /** With foreground deletion, true keeps the owner until this dependent is gone; absent means false. */
  readonly blockOwnerDeletion?: boolean;
}

/**
 * Object metadata, as JSON (timestamps stay RFC 3339 strings).
 *
 * @example
 * ```ts
 * const meta: ObjectMeta = { name: 'settings', namespace: 'default', labels: { app: 'web' } };
 * ```
 */
export interface ObjectMeta {
  /** Name, unique per kind within its namespace (or cluster-wide when cluster-scoped); absent on a create that uses `generateName`. */
  readonly name?: string;
  /** Prefix to which the server appends a random suffix on create when `name` is absent. */
  readonly generateName?: string;
  /** Namespace of the object; absent or `''` for cluster-scoped objects. */
  readonly namespace?: string;
  /** Unique ID assigned by the server on create and never reused; absent before the object exists. */
  readonly uid?: string;
  /** Opaque version the server changes on every write; sent back on a replace, a stale one fails with Conflict. */
  readonly resourceVersion?: string;
  /** Counter the server bumps on each change to the desired state (`spec`); absent for kinds that do not track it. */
  readonly generation?: number;
  /** When the server created the object (RFC 3339, UTC). */
  readonly creationTimestamp?: string;
  /** When deletion was requested (RFC 3339); the object stays until its finalizers are removed. Absent otherwise. */
  readonly deletionTimestamp?: string;
  /** Seconds left to the object to terminate gracefully; set only along with `deletionTimestamp`. */
  readonly deletionGracePeriodSeconds?: number;
  /** Identifying key/value pairs, matched by label selectors. */
  readonly labels?: Readonly<Record<string, string>>;
  /** Non-identifying key/value metadata for tools; not matched by selectors. */
  readonly annotations?: Readonly<Record<string, string>>;
  /** Names that must all be removed before a deleted object actually goes away. */
  readonly finalizers?: readonly string[];
  /** Objects this one depends on; the garbage collector deletes it once all its owners are gone. */
  readonly ownerReferences?: readonly OwnerReference[];
  /** Server-side apply bookkeeping of which field manager owns which fields; untyped, and never sent with an apply. */
  readonly managedFields?: readonly unknown[];
}

/**
 * Any Kubernetes object. Extend it to type your own resources; `spec` and `status` stay `unknown`
 * until you narrow them.
 *
 * @example
 * ```ts
 * interface Rollout extends KubeObject {
 *   spec: { image: string; clusterSelector: Record<string, string> };
 *   status?: { ready: number };
 * }
 * ```
 */
export interface KubeObject {
  /** API group/version (`v1`, `apps/v1`); often absent on list items, and taken from the resource descriptor on writes when absent. */
  readonly apiVersion?: string;
  /** Kind (`ConfigMap`); often absent on list items, and taken from the resource descriptor on writes when absent. */
  readonly kind?: string;
  /** Standard object metadata: name, namespace, labels, resourceVersion and the rest. */
  readonly metadata: ObjectMeta;
  /** Desired state, written by users and controllers; its shape depends on the kind, and some kinds have none. */
  readonly spec?: unknown;
  /** Observed state, written by the object's controller (usually through the `status` subresource); absent until first reported. */
  readonly status?: unknown;
}

/**
 * One page of a list response.
 *
 * @example
 * ```ts
 * const page: ObjectList<ConfigMap> = { items: [], metadata: { resourceVersion: '42' } };
 * ```
 */
export interface ObjectList<T extends KubeObject = KubeObject> {
  /** API group/version of the list (`v1`, `apps/v1`). */
  readonly apiVersion?: string;
  /** Kind of the list, e.g. `ConfigMapList`. */
  readonly kind?: string;
  /** List metadata: the snapshot's resourceVersion and the paging state. */
  readonly metadata: {
    /** resourceVersion of the snapshot the page was read from; a watch can start from it. */
    readonly resourceVersion?: string;
    /** Token that fetches the next page; absent or `''` on the last page. */
    readonly continue?: string;
    /** Estimated number of items after this page; absent when unknown or on the last page. */
    readonly remainingItemCount?: number;
  };
  /** The objects of this page (all pages, for `listAll`). */
  readonly items: readonly T[];
}

/**
 * Every field optional, all the way down: the shape of "the fields I own" in a server-side apply.
 *
 * @example
 * ```ts
 * const patch: DeepPartial<{ spec: { replicas: number; image: string } }> = { spec: { replicas: 3 } };
 * ```
 */
export type DeepPartial<T> = T extends readonly (infer U)[]
  ? readonly DeepPartial<U>[]
  : T extends object
    ? { readonly [K in keyof T]?: DeepPartial<T[K]> }
    : T;

/**
 * What a server-side apply sends: the object's identity (metadata) and only the fields the field
 * manager owns. Typed by the resource, so an inline literal is checked field by field.
 *
 * @example
 * ```ts
 * const intent: ApplyConfiguration<ConfigMap> = { metadata: { name: 'settings', namespace: 'default' }, data: { mode: 'on' } };
 * ```
 */
export type ApplyConfiguration<T extends KubeObject> = {
  /** API group/version; may be left out, as `apply` sends the resource descriptor's in its place. */
  readonly apiVersion?: string;
  /** Kind; may be left out, as `apply` sends the resource descriptor's in its place. */
  readonly kind?: string;
  /** The object's identity (name, namespace) plus the labels, annotations or owner references this manager owns. */
  readonly metadata: ObjectMeta;
} & { readonly [K in Exclude<keyof T, 'apiVersion' | 'kind' | 'metadata'>]?: DeepPartial<T[K]> };
