// kcp's publishing API, as far as the publisher writes it: APIResourceSchema (apis.kcp.io/v1alpha1)
// and APIExport (apis.kcp.io/v1alpha2), the versions kcp v0.28.1 serves. Shapes checked against the
// server's OpenAPI: an ARS version holds the OpenAPI schema itself (not wrapped in openAPIV3Schema)
// and has no selectableFields; v1alpha2 permission claims are keyed by group+resource and carry verbs.
import type { KubeObject } from '../../core/object.js';
import { resource } from '../../core/resource.js';
import type { CustomResourceColumnDefinition, CustomResourceDefinitionNames, CustomResourceSubresources, JSONSchemaProps } from '../../resources/apiextensions-v1/types.js';

/**
 * One version of an APIResourceSchema.
 *
 * @example
 * ```ts
 * const v: APIResourceVersion = { name: 'v1', served: true, storage: true, schema: { type: 'object' } };
 * ```
 */
export interface APIResourceVersion {
  /** The version's name, e.g. `v1` (kcp accepts `v<N>[alpha|beta<M>]`). */
  readonly name: string;
  /** Whether the version is served. */
  readonly served: boolean;
  /** Whether objects are stored in this version (exactly one version is). */
  readonly storage: boolean;
  /** Whether clients are warned that the version is deprecated. */
  readonly deprecated?: boolean;
  /** The warning sent instead of the default one. */
  readonly deprecationWarning?: string;
  /** The OpenAPI v3 schema of the version (a CRD's `schema.openAPIV3Schema`). */
  readonly schema: JSONSchemaProps;
  /** The status and scale subresources, as in a CRD. */
  readonly subresources?: CustomResourceSubresources;
  /** Columns `kubectl get` prints, as in a CRD. */
  readonly additionalPrinterColumns?: readonly CustomResourceColumnDefinition[];
}

/**
 * An `APIResourceSchema`: a CRD's spec as kcp keeps it, immutable once created.
 *
 * @example
 * ```ts
 * const ars: APIResourceSchema = { metadata: { name: 'v1.widgets.example.dev' }, spec: { group: 'example.dev', names: { kind: 'Widget', plural: 'widgets' }, scope: 'Namespaced', versions: [] } };
 * ```
 */
export interface APIResourceSchema extends KubeObject {
  readonly spec: {
    /** The API group the schema serves. */
    readonly group: string;
    /** Kind, plural, singular, list kind, short names and categories, as in a CRD. */
    readonly names: CustomResourceDefinitionNames;
    /** Whether objects live in namespaces. */
    readonly scope: 'Namespaced' | 'Cluster';
    /** The versions served. */
    readonly versions: readonly APIResourceVersion[];
    /** Required by kcp when there is more than one version; `None` is the only strategy without a webhook. */
    readonly conversion?: {
      /** How objects convert between versions. */
      readonly strategy: 'None';
    };
  };
}

/**
 * One resource of an APIExport (v1alpha2): its group and plural, and the schema that defines it.
 *
 * @example
 * ```ts
 * const r: ExportResource = { group: 'example.dev', name: 'widgets', schema: 'v1.widgets.example.dev', storage: { crd: {} } };
 * ```
 */
export interface ExportResource {
  /** The resource's API group. */
  readonly group: string;
  /** The resource's plural. */
  readonly name: string;
  /** The APIResourceSchema's name (`<prefix>.<plural>.<group>`). */
  readonly schema: string;
  /** Where its objects are stored. */
  readonly storage?: {
    /** Stored like a CRD's objects (the only storage the agent uses). */
    readonly crd?: Readonly<Record<string, never>>;
  };
}

/**
 * A permission claim of an APIExport (v1alpha2): access to a resource the export does not define,
 * granted by each consumer's APIBinding when accepted.
 *
 * @example
 * ```ts
 * const claim: PermissionClaim = { group: '', resource: 'secrets', verbs: ['*'] };
 * ```
 */
export interface PermissionClaim {
  /** The claimed resource's API group (`''` for core). */
  readonly group?: string;
  /** The claimed resource (plural), e.g. `secrets`. */
  readonly resource: string;
  /** The identity of the export defining the resource, for a resource of another export (`''` for built-ins). */
  readonly identityHash?: string;
  /** The verbs claimed, e.g. `['*']`. */
  readonly verbs: readonly string[];
}

/**
 * An `APIExport` (v1alpha2), the fields the publisher reads and writes.
 *
 * @example
 * ```ts
 * const ex: APIExport = { metadata: { name: 'widgets.example.dev' }, spec: { resources: [], permissionClaims: [] } };
 * ```
 */
export interface APIExport extends KubeObject {
  readonly spec?: {
    /** The resources the export defines. */
    readonly resources?: readonly ExportResource[];
    /** Access the export asks of each consumer, to resources it does not define. */
    readonly permissionClaims?: readonly PermissionClaim[];
    readonly [other: string]: unknown;
  };
}

/** `apis.kcp.io/v1alpha1` APIResourceSchemas (cluster-scoped in the provider workspace). @example `client.get(apiResourceSchemas, 'v1.widgets.example.dev')` */
export const apiResourceSchemas = resource<APIResourceSchema>({ group: 'apis.kcp.io', version: 'v1alpha1', plural: 'apiresourceschemas', kind: 'APIResourceSchema', namespaced: false });

/** `apis.kcp.io/v1alpha2` APIExports. @example `client.get(apiExports, 'widgets.example.dev')` */
export const apiExports = resource<APIExport>({ group: 'apis.kcp.io', version: 'v1alpha2', plural: 'apiexports', kind: 'APIExport', namespaced: false });
