// The related-resource configuration types that are not the entry itself: where its objects are
// found (RelatedReference: a path, a template, or a label selector with its requirements and
// rewrite; RelatedNamespace: another namespace of the workspace), and a projection to another
// resource on the other side. types.ts re-exports them beside the entry.

/**
 * One requirement of a related selector beside its labels (a Kubernetes label selector's
 * `matchExpressions` entry): `In` / `NotIn` a list of values, or `Exists` / `DoesNotExist` (no
 * values). Taken as written (no templates, as in api-syncagent).
 *
 * @example
 * ```ts
 * const gold: SelectorRequirement = { key: 'tier', operator: 'In', values: ['gold', 'silver'] };
 * ```
 */
export interface SelectorRequirement {
  /** The label key. */
  readonly key: string;
  /** How the label's value is tested. */
  readonly operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';
  /** The values, for `In` and `NotIn` (at least one); none for `Exists` and `DoesNotExist`. */
  readonly values?: readonly string[];
}

/**
 * Labels that find related objects on their origin side (api-syncagent's `object.selector`), and how
 * each found object is named on the other side. Label values are templates with `.ClusterName`,
 * `.LocalObject` (the service copy) and `.RemoteObject` (the consumer's object);
 * `matchExpressions` are taken as written.
 *
 * Origin `service`: the selector runs in the copy's namespace on the service cluster, which other
 * workspaces may share, so a found object is used only once it is proven to be this consumer
 * object's: an owner reference to the copy (its uid), a back-reference to the consumer object, or
 * a selector that names the copy itself (a `matchLabels` value that reads
 * `.LocalObject.metadata.name` or `.LocalObject.metadata.uid`); anything else it matches is
 * refused, never copied. Each is copied into the consumer's namespace under its rewritten name.
 *
 * Origin `kcp`: the selector runs only in the consumer object's own workspace and namespace (it
 * can select nothing of another tenant's); an object the agent made, or one claiming another
 * owner, is never an origin. Each is copied into the copy's namespace under a name the agent
 * derives from the consumer object and the rewritten name (so consumers sharing a service
 * namespace never collide), with an owner reference to the copy, which the service's operator
 * finds them by.
 *
 * @example
 * ```ts
 * const selector: RelatedSelector = { matchLabels: { 'db.example.dev/owner': '{{ .LocalObject.metadata.name }}' }, rewrite: { template: '{{ .RemoteObject.metadata.name }}-{{ .Value }}' } };
 * const down: RelatedSelector = { matchLabels: { app: '{{ .RemoteObject.metadata.name }}' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['gold'] }], rewrite: { template: '{{ .Value }}' } };
 * ```
 */
export interface RelatedSelector {
  /** Label key → value (a template); every one must match. Not empty unless `matchExpressions` is given. */
  readonly matchLabels?: Readonly<Record<string, string>>;
  /** Requirements every found object must meet as well (no templates). */
  readonly matchExpressions?: readonly SelectorRequirement[];
  /**
   * The found object's name on the other side: a template with `.Value` (its name on its origin
   * side) and the selector's roots, or a regular expression (RE2, `$1` in the replacement) over
   * the name. On the service side the agent derives the name from it (origin `kcp`).
   */
  readonly rewrite: { readonly template: string; readonly regex?: undefined } | { readonly regex: { readonly pattern?: string; readonly replacement?: string }; readonly template?: undefined };
}

/**
 * Where a related object is in the consumer's workspace when not in the primary object's namespace
 * (api-syncagent's `object.namespace`, by reference): a dotted path in the synced spec of the
 * consumer object (`spec.secretNamespace`), with an optional RE2 rewrite. Only the workspace side
 * follows it (any namespace of the consumer's own workspace); on the service cluster the related
 * object stays in the copy's namespace, and the agent writes that namespace into the copy's field,
 * so a consumer can never name a service-side namespace.
 *
 * @example
 * ```ts
 * const ns: RelatedNamespace = { path: 'spec.secretNamespace' };
 * ```
 */
export interface RelatedNamespace {
  /** A dotted path in the consumer object's synced fields (not `metadata`, not `status`). */
  readonly path: string;
  /** An RE2 rewrite of the value read: `pattern` (absent: the whole value) and `replacement` (`$1`). */
  readonly regex?: { readonly pattern?: string; readonly replacement?: string };
}

/**
 * A related resource's group, version or resource on its destination side, where they differ from
 * its origin side's (a ConfigMap in kcp copied into a CRD's object on the service cluster). A
 * field not given is the origin side's.
 *
 * @example
 * ```ts
 * const projection: RelatedProjection = { group: 'tokens.example.dev', resource: 'tokens' };
 * ```
 */
export interface RelatedProjection {
  /** The API group on the destination side (`''` for core). */
  readonly group?: string;
  /** The version on the destination side. */
  readonly version?: string;
  /** The resource (plural) on the destination side. */
  readonly resource?: string;
}

/**
 * Where a related object's name is found, evaluated on each side's primary object (the consumer's
 * object in kcp, its copy on the service cluster): a dotted path (`spec.connectionSecret`) or a
 * template (see `PublishedNaming`); or a label selector on the origin side ({@link RelatedSelector}). A missing field means "not yet": no error, nothing synced.
 *
 * @example
 * ```ts
 * const ref: RelatedReference = { path: 'spec.connectionSecretName' };
 * ```
 */
export type RelatedReference =
  | {
      /** A dotted path in the primary object whose value is the related object's name. */
      readonly path: string;
      /**
       * An RE2 rewrite of the value read (api-syncagent's `reference.regex`): `pattern` (absent: the
       * whole value replaced) and `replacement` (`$1`). Applied on each side, except where the agent
       * derives the service-side name (a path the consumer writes): there the name is the derived one.
       */
      readonly regex?: { readonly pattern?: string; readonly replacement?: string };
      /** Not with `path`. */
      readonly template?: undefined;
      /** Not with `path`. */
      readonly selector?: undefined;
      /** The namespace in the workspace (default: the primary object's); see {@link RelatedNamespace}. */
      readonly namespace?: RelatedNamespace;
    }
  | {
      /** A template rendered against the primary object; its output is the name. */
      readonly template: string;
      /** Not with `template`. */
      readonly path?: undefined;
      /** Not with `template`. */
      readonly selector?: undefined;
      /** The namespace in the workspace (default: the primary object's); see {@link RelatedNamespace}. */
      readonly namespace?: RelatedNamespace;
    }
  | {
      /** Labels that find the objects on their origin side. */
      readonly selector: RelatedSelector;
      /** Not with `selector`. */
      readonly path?: undefined;
      /** Not with `selector`. */
      readonly template?: undefined;
      /** Not with `selector` (a selector finds objects in the primary object's namespace). */
      readonly namespace?: undefined;
    };
