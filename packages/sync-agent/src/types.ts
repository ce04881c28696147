// The sync agent's configuration: a list of published resources, each naming a CRD on the service
// cluster, how it appears in kcp, where consumer objects land on the service cluster, what syncs
// in which direction, and its related resources. The semantics follow kcp's api-syncagent
// (PublishedResource) where they are sound; docs/sync.md says where rxfleet differs and why.
import type { AdoptRule } from './adopt-config.js';
import type { KcpInstallation } from './installations.js';
import type { RelatedProjection, RelatedReference } from './types-related.js';
import type { MutationStep, PublishedMutation } from './types-mutation.js';

export type { RelatedNamespace, RelatedProjection, RelatedReference, RelatedSelector, SelectorRequirement } from './types-related.js';
export type { MutationStep, PublishedMutation } from './types-mutation.js';

/**
 * The CRD on the service cluster that is published.
 *
 * @example
 * ```ts
 * const source: PublishedCrd = { group: 'db.example.dev', kind: 'Database', versions: ['v1'] };
 * ```
 */
export interface PublishedCrd {
  /** The CRD's API group on the service cluster. */
  readonly group: string;
  /** The CRD's kind. */
  readonly kind: string;
  /** Versions to publish; each must be served. Default: every served version of the CRD. */
  readonly versions?: readonly string[];
}

/**
 * How the resource appears in kcp. Version names are kept unless `versions` renames them.
 *
 * @example
 * ```ts
 * const projection: PublishedProjection = { group: 'databases.example.dev', plural: 'databases', versions: { v1: 'v1beta1' } };
 * ```
 */
export interface PublishedProjection {
  /** The API group in kcp. Default: the source's group. */
  readonly group?: string;
  /** The resource (plural) name in kcp. Default: the CRD's plural. */
  readonly plural?: string;
  /** The kind in kcp. Default: the CRD's kind. */
  readonly kind?: string;
  /** Short names in kcp (`kubectl get db`); an empty list removes them. Default: the CRD's. */
  readonly shortNames?: readonly string[];
  /** Categories in kcp (`kubectl get all`); an empty list removes them. Default: the CRD's. */
  readonly categories?: readonly string[];
  /** The scope in kcp (default: the CRD's); across a change of scope, no related objects. */
  readonly scope?: 'Cluster' | 'Namespaced';
  /**
   * Version names in kcp, by the service cluster's name (`{ v1: 'v1beta1' }`: the CRD's v1 is
   * v1beta1 in kcp). Only the name changes, nothing is converted: consumers read and write the
   * object under the kcp name, its service copy keeps the service name. Each key must be a
   * published version, each value a version name kcp accepts, and no two versions may end up with
   * one name. Default: every version keeps its name.
   */
  readonly versions?: Readonly<Record<string, string>>;
}

/**
 * Where a consumer's object lands on the service cluster. Templates use api-syncagent's syntax, the
 * subset: `{{ .ClusterName }}` (the workspace's logical cluster), `{{ .Object.<path> }}` (a field of
 * the consumer's object, e.g. `.Object.metadata.name`), piped through `sha3short` (first 20 hex of
 * SHA3-256) or `shortHash` (first 20 hex of SHA-1); another length is the call form
 * `{{ sha3short .Object.metadata.name 8 }}`, as in Go templates.
 *
 * @example
 * ```ts
 * const naming: PublishedNaming = { namespace: '{{ .ClusterName }}', name: '{{ .Object.metadata.namespace | sha3short }}-{{ .Object.metadata.name | sha3short }}' };
 * ```
 */
export interface PublishedNaming {
  /** Default `{{ .ClusterName }}`: one service-side namespace per workspace. */
  readonly namespace?: string;
  /** Default `{{ .Object.metadata.namespace | sha3short }}-{{ .Object.metadata.name | sha3short }}`: collision-free within a workspace's namespace. */
  readonly name?: string;
}

/**
 * Which consumer objects are synced.
 *
 * @example
 * ```ts
 * const filter: PublishedFilter = { namespace: 'apps', labelSelector: 'tier=prod', release: 'delete' };
 * ```
 */
export interface PublishedFilter {
  /** Only objects in this namespace (in every workspace). */
  readonly namespace?: string;
  /** Only objects matching this label selector (`kubectl -l` syntax: `tier=prod,env in (a,b),!legacy`). */
  readonly labelSelector?: string;
  /**
   * What happens when a synced object stops matching `labelSelector`: the agent releases it (its
   * finalizer goes, nothing more syncs) after deleting its service copy and related copies
   * (`delete`, the default), or leaving them where they are (`keep`).
   */
  readonly release?: 'delete' | 'keep';
}

/**
 * What syncs down (consumer → service). Every top-level field except `apiVersion`, `kind`,
 * `metadata` and `status` always syncs (api-syncagent's "spec"); metadata only as listed.
 *
 * @example
 * ```ts
 * const down: SyncDown = { labels: ['app.kubernetes.io/*'], annotations: [] };
 * ```
 */
export interface SyncDown {
  /** Label keys copied down; a trailing `*` matches a prefix. Default: none. */
  readonly labels?: readonly string[];
  /** Annotation keys copied down; a trailing `*` matches a prefix. Default: none. */
  readonly annotations?: readonly string[];
}

/**
 * What syncs up (service → consumer).
 *
 * @example
 * ```ts
 * const up: SyncUp = { status: true };
 * ```
 */
export interface SyncUp {
  /** The whole status subresource. Default: true when the CRD has a status subresource. */
  readonly status?: boolean;
}

/**
 * An object of any namespaced resource that travels with each primary object, in the primary's
 * namespace on each side. Typically the connection Secret a service's operator creates
 * (`origin: 'service'`). The resource is given by `group`, `version` and `resource` (as
 * api-syncagent's), or by the older `kind` shorthand (`Secret` or `ConfigMap`); preflight resolves
 * it through discovery on both sides and refuses one that either side does not serve.
 *
 * @example
 * ```ts
 * const related: RelatedResource = { identifier: 'connection', origin: 'service', resource: 'secrets', object: { path: 'spec.connectionSecretName' } };
 * const lease: RelatedResource = { identifier: 'lock', origin: 'kcp', group: 'coordination.k8s.io', version: 'v1', resource: 'leases', object: { path: 'spec.lockName' } };
 * ```
 */
export interface RelatedResource {
  /** Unique within its published resource; used in labels, logs and metrics. */
  readonly identifier: string;
  /** The side that owns the object: `service` copies it to the workspace, `kcp` to the service cluster. */
  readonly origin: 'service' | 'kcp';
  /** The resource's API group (`''`, the default, for the core group). Not with `kind`. */
  readonly group?: string;
  /** The version; default: the one the origin side prefers (discovery). Not with `kind`. */
  readonly version?: string;
  /** The resource (plural name): `secrets`, `leases`, a CRD's plural. Give this or `kind`. */
  readonly resource?: string;
  /** Shorthand for core/v1 `secrets` or `configmaps` (api-syncagent's deprecated `kind`). Give this or `resource`. */
  readonly kind?: 'Secret' | 'ConfigMap';
  /**
   * The identity hash of the kcp APIExport that provides the resource in kcp (its
   * `status.identityHash`), when another export provides it: the permission claim names it, so a
   * consumer that binds both exports grants it. Only with `group`, `version` and `resource`.
   */
  readonly identityHash?: string;
  /**
   * The resource on the destination side, where it differs (api-syncagent's related `projection`):
   * `group`, `version` and `resource` as written above are the origin side's; each one given here
   * replaces it on the other side (its kind comes from that side's discovery).
   */
  readonly projection?: RelatedProjection;
  /** Where its name is found on each side. */
  readonly object: RelatedReference;
  /**
   * Rewrite rules of the copy, the primary's engine and syntax ({@link MutationStep}); `self` is the
   * origin object, `other` the copy as the destination holds it (absent on the first sync). `spec`
   * runs before the contents are copied (a rule on `metadata` has no effect); `status` before the
   * status is copied, so only with `syncStatus`.
   */
  readonly mutation?: { readonly spec?: readonly MutationStep[]; readonly status?: readonly MutationStep[] };
  /**
   * Also copy the status subresource, in the same direction as the contents (origin to destination,
   * as api-syncagent's `syncStatus`). Preflight refuses it for a resource that has no status
   * subresource on both sides. Default false.
   */
  readonly syncStatus?: boolean;
  /**
   * Whether the agent deletes the copies it made (when it lets go of the primary object, or when the
   * name changes). Default true. `false`, for origin `service` only: the agent never deletes the
   * copies in the workspace; when it lets go of the primary it detaches them (removes its labels and
   * back-reference), and they stay the consumer's. Copies on the service cluster (origin `kcp`) are
   * always deleted with their primary, as api-syncagent does.
   */
  readonly cleanup?: boolean;
}

/**
 * One published resource (api-syncagent's PublishedResource).
 *
 * @example
 * ```ts
 * const p: PublishedResource = { name: 'databases', crd: { group: 'db.example.dev', kind: 'Database' } };
 * ```
 */
export interface PublishedResource {
  /** Unique in the config; the `published` label of metrics and logs, and part of the controller's name. */
  readonly name: string;
  /** The CRD on the service cluster. */
  readonly crd: PublishedCrd;
  /** How it appears in kcp (default: as on the service cluster). */
  readonly projection?: PublishedProjection;
  /** Where consumer objects land on the service cluster. */
  readonly naming?: PublishedNaming;
  /** Which consumer objects are synced (default: all). */
  readonly filter?: PublishedFilter;
  /** The metadata that syncs down besides the spec. */
  readonly syncDown?: SyncDown;
  /** What syncs up. */
  readonly syncUp?: SyncUp;
  /** Objects of other resources (Secrets, ConfigMaps, any namespaced resource) that travel with each object. */
  readonly related?: readonly RelatedResource[];
  /** Rewrite rules of the spec going down and the status going up. */
  readonly mutation?: PublishedMutation;
  /** Service objects made without kcp, adopted into a workspace (see `AdoptRule`). Default none. */
  readonly adopt?: readonly AdoptRule[];
  /** Default true. False publishes the CRD and syncs nothing (api-syncagent's `synchronization.enabled: false`); refuses `related`, `adopt`. */
  readonly sync?: boolean;
  /** Where the entry was read from, when it was a PublishedResource (its file and name); errors name it. */
  readonly from?: string;
}

/**
 * The agent's whole configuration (the `rxfleet-sync-agent --config` file, YAML or JSON).
 *
 * @example
 * ```ts
 * const config: SyncConfig = { apiExport: 'databases.example.dev', published: [{ name: 'databases', crd: { group: 'db.example.dev', kind: 'Database' } }] };
 * ```
 */
export interface SyncConfig {
  /** Names the agent: field manager, finalizer, ownership labels. Default `rxfleet-sync`. */
  readonly agentName?: string;
  /** The APIExport (in the provider workspace) the agent keeps current; created when missing. */
  readonly apiExport: string;
  /**
   * More kcp installations served the same API, beside the default one (`--kcp-kubeconfig`), each
   * with its own kubeconfig, APIExport and service-side namespace prefix (see `KcpInstallation`). Default none.
   */
  readonly installations?: readonly KcpInstallation[];
  /**
   * The published resources (at least one, here or in `publishedResources`). An entry may also be
   * an api-syncagent PublishedResource object as it is (`apiVersion: syncagent.kcp.io/v1alpha1`):
   * it is converted, and what the agent does not support is refused field by field.
   */
  readonly published: readonly PublishedResource[];
  /**
   * YAML files of api-syncagent PublishedResource objects (one or more documents each, `List`s
   * included), relative to the config file; read by `syncOptions`, converted into `published`.
   */
  readonly publishedResources?: readonly string[];
  /**
   * Only PublishedResource objects whose labels match (`kubectl -l` syntax) are served, so agents
   * can split the work (api-syncagent's `--published-resource-selector`). Entries written in the
   * agent's own form have no labels and are always served.
   */
  readonly publishedResourceSelector?: string;
  /**
   * Also take PublishedResource objects from the service cluster (`syncagent.kcp.io/v1alpha1`,
   * the CRD in the package's `crd/`), as api-syncagent does: one created, changed or deleted there
   * takes effect while the agent runs, and one that cannot be served is refused on its own status
   * (condition `Ready`), leaving the others running. Default false.
   */
  readonly watchPublishedResources?: boolean;
}
