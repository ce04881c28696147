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
  readonly name: string;
  readonly served: boolean;
  readonly storage: boolean;
  readonly deprecated?: boolean;
  readonly deprecationWarning?: string;
  /** The OpenAPI v3 schema of the version (a CRD's `schema.openAPIV3Schema`). */
  readonly schema: JSONSchemaProps;
  readonly subresources?: CustomResourceSubresources;
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
    readonly group: string;
    readonly names: CustomResourceDefinitionNames;
    readonly scope: 'Namespaced' | 'Cluster';
    readonly versions: readonly APIResourceVersion[];
    /** Required by kcp when there is more than one version; `None` is the only strategy without a webhook. */
    readonly conversion?: { readonly strategy: 'None' };
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
  readonly group: string;
  /** The resource's plural. */
  readonly name: string;
  /** The APIResourceSchema's name (`<prefix>.<plural>.<group>`). */
  readonly schema: string;
  readonly storage?: { readonly crd?: Readonly<Record<string, never>> };
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
  readonly group?: string;
  readonly resource: string;
  readonly identityHash?: string;
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
    readonly resources?: readonly ExportResource[];
    readonly permissionClaims?: readonly PermissionClaim[];
    readonly [other: string]: unknown;
  };
}

/** `apis.kcp.io/v1alpha1` APIResourceSchemas (cluster-scoped in the provider workspace). @example `client.get(apiResourceSchemas, 'v1.widgets.example.dev')` */
export const apiResourceSchemas = resource<APIResourceSchema>({ group: 'apis.kcp.io', version: 'v1alpha1', plural: 'apiresourceschemas', kind: 'APIResourceSchema', namespaced: false });

/** `apis.kcp.io/v1alpha2` APIExports. @example `client.get(apiExports, 'widgets.example.dev')` */
export const apiExports = resource<APIExport>({ group: 'apis.kcp.io', version: 'v1alpha2', plural: 'apiexports', kind: 'APIExport', namespaced: false });
