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
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly uid: string;
  readonly controller?: boolean;
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
  readonly name?: string;
  readonly generateName?: string;
  readonly namespace?: string;
  readonly uid?: string;
  readonly resourceVersion?: string;
  readonly generation?: number;
  readonly creationTimestamp?: string;
  readonly deletionTimestamp?: string;
  readonly deletionGracePeriodSeconds?: number;
  readonly labels?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
  readonly finalizers?: readonly string[];
  readonly ownerReferences?: readonly OwnerReference[];
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
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata: ObjectMeta;
  readonly spec?: unknown;
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
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata: {
    readonly resourceVersion?: string;
    readonly continue?: string;
    readonly remainingItemCount?: number;
  };
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
  readonly data?: Readonly<Record<string, string>>;
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
  readonly type?: string;
  readonly data?: Readonly<Record<string, string>>;
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
  readonly status?: { readonly phase?: string };
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
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata: ObjectMeta;
} & { readonly [K in Exclude<keyof T, 'apiVersion' | 'kind' | 'metadata'>]?: DeepPartial<T[K]> };
