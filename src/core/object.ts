// The shape of Kubernetes objects as rxfleet sees them on the wire: plain JSON, typed just enough.

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
 * A ConfigMap.
 *
 * @example
 * ```ts
 * const cm: ConfigMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' }, data: { k: 'v' } };
 * ```
 */
export interface ConfigMap extends KubeObject {
  /** UTF-8 text values by key. */
  readonly data?: Readonly<Record<string, string>>;
  /** Base64-encoded binary values by key; a key may not also appear in `data`. */
  readonly binaryData?: Readonly<Record<string, string>>;
}

/**
 * A Secret. Its data is base64 and must never be logged.
 *
 * @example
 * ```ts
 * const s: Secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'kc' }, data: { kubeconfig: '...' } };
 * ```
 */
export interface Secret extends KubeObject {
  /** Secret type, which fixes the keys it must hold (e.g. `kubernetes.io/tls`); the server defaults it to `Opaque`. */
  readonly type?: string;
  /** Base64-encoded values by key; never log them. */
  readonly data?: Readonly<Record<string, string>>;
  /** Write-only plain-text values that the server merges into `data`; never returned on reads. */
  readonly stringData?: Readonly<Record<string, string>>;
}

/**
 * A Namespace.
 *
 * @example
 * ```ts
 * const ns: Namespace = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a' } };
 * ```
 */
export interface Namespace extends KubeObject {
  /** Observed state of the namespace. */
  readonly status?: {
    /** `Active`, or `Terminating` once deletion has started. */
    readonly phase?: string;
  };
}

/**
 * A Lease (coordination.k8s.io/v1): who holds a named lock, and until when. rxfleet's leader
 * election and sharding hold Leases on a home cluster. Times are MicroTime strings (RFC 3339 with
 * microseconds, e.g. `2026-11-23T10:00:00.000000Z`).
 *
 * @example
 * ```ts
 * const lease: Lease = {
 *   metadata: { name: 'my-controller', namespace: 'ops' },
 *   spec: { holderIdentity: 'pod-a-1f2e3d', leaseDurationSeconds: 15, renewTime: '2026-11-23T10:00:00.000000Z', leaseTransitions: 0 },
 * };
 * ```
 */
export interface Lease extends KubeObject {
  /** Who holds the Lease and for how long; every field is optional on the wire. */
  readonly spec?: {
    /** Identity of the current holder; absent or `''` when nobody holds it (released). */
    readonly holderIdentity?: string;
    /** Seconds a holder's claim lasts after its last renew; others wait this long (by their own clocks) before taking over. */
    readonly leaseDurationSeconds?: number;
    /** When the current holder acquired the Lease (MicroTime). */
    readonly acquireTime?: string;
    /** When the current holder last renewed the Lease (MicroTime). */
    readonly renewTime?: string;
    /** How many times the holder changed. */
    readonly leaseTransitions?: number;
  };
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
