// The kcp objects the kcp providers read, typed just enough, with their resource descriptors.
// Versions are the ones kcp v0.28.1 serves (checked against the binary): APIExportEndpointSlice
// and LogicalCluster in v1alpha1, APIBinding in v1alpha1 and v1alpha2 (the APIExport virtual
// workspace serves both; v1alpha1 is read because the phase and conditions are the same).
import type { KubeObject } from '../../core/object.js';
import { resource } from '../../core/resource.js';

/** The annotation kcp puts on every object: its logical cluster's name. @example `obj.metadata.annotations?.[clusterAnnotation]` */
export const clusterAnnotation = 'kcp.io/cluster';

/** The annotation kcp puts on LogicalClusters (and some kcp objects): the workspace path, e.g. `root:org:ws`. @example `lc.metadata.annotations?.[pathAnnotation]` */
export const pathAnnotation = 'kcp.io/path';

/** One `status.conditions[]` entry of a kcp object. @example `{ type: 'Ready', status: 'True' }` */
export interface KcpCondition {
  readonly type: string;
  readonly status: string;
  readonly reason?: string;
  readonly message?: string;
}

/**
 * An `APIExportEndpointSlice`: where the virtual workspace of an export is served, one URL per shard.
 *
 * @example
 * ```ts
 * const urlsOfSlice = (slice: APIExportEndpointSlice): string[] => (slice.status?.endpoints ?? []).map((e) => e.url);
 * ```
 */
export interface APIExportEndpointSlice extends KubeObject {
  readonly spec?: { readonly export?: { readonly path?: string; readonly name?: string } };
  readonly status?: { readonly endpoints?: readonly { readonly url: string }[]; readonly conditions?: readonly KcpCondition[] };
}

/**
 * An `APIBinding` of a consumer workspace, as the APIExport virtual workspace shows it.
 *
 * @example
 * ```ts
 * const bound = binding.status?.phase === 'Bound';
 * ```
 */
export interface APIBinding extends KubeObject {
  readonly spec?: { readonly reference?: { readonly export?: { readonly path?: string; readonly name?: string } } };
  readonly status?: { readonly phase?: string; readonly apiExportClusterName?: string; readonly conditions?: readonly KcpCondition[] };
}

/**
 * A `LogicalCluster` (always named `cluster` inside its workspace).
 *
 * @example
 * ```ts
 * const pending = lc.status?.initializers ?? [];
 * ```
 */
export interface LogicalCluster extends KubeObject {
  readonly status?: { readonly phase?: string; readonly initializers?: readonly string[]; readonly URL?: string };
}

/**
 * A `WorkspaceType`; an initializer type lists its initializing virtual workspace URLs in status.
 *
 * @example
 * ```ts
 * const initializingUrls = (wt: WorkspaceType): string[] => (wt.status?.virtualWorkspaces ?? []).map((v) => v.url);
 * ```
 */
export interface WorkspaceType extends KubeObject {
  readonly spec?: { readonly initializer?: boolean };
  readonly status?: { readonly virtualWorkspaces?: readonly { readonly url: string }[] };
}

/** `apis.kcp.io/v1alpha1` APIExportEndpointSlices. @example `client.get(apiExportEndpointSlices, 'widgets.example.com')` */
export const apiExportEndpointSlices = resource<APIExportEndpointSlice>({
  group: 'apis.kcp.io',
  version: 'v1alpha1',
  plural: 'apiexportendpointslices',
  kind: 'APIExportEndpointSlice',
  namespaced: false,
});

/** `apis.kcp.io/v1alpha1` APIBindings. @example `client.list(apiBindings)` */
export const apiBindings = resource<APIBinding>({ group: 'apis.kcp.io', version: 'v1alpha1', plural: 'apibindings', kind: 'APIBinding', namespaced: false });

/** `core.kcp.io/v1alpha1` LogicalClusters. @example `client.get(logicalClusters, 'cluster')` */
export const logicalClusters = resource<LogicalCluster>({ group: 'core.kcp.io', version: 'v1alpha1', plural: 'logicalclusters', kind: 'LogicalCluster', namespaced: false });

/** `tenancy.kcp.io/v1alpha1` WorkspaceTypes. @example `client.get(workspaceTypes, 'my-type')` */
export const workspaceTypes = resource<WorkspaceType>({ group: 'tenancy.kcp.io', version: 'v1alpha1', plural: 'workspacetypes', kind: 'WorkspaceType', namespaced: false });

/**
 * The logical cluster an object lives in, from its `kcp.io/cluster` annotation.
 *
 * @example
 * ```ts
 * logicalClusterOf({ metadata: { annotations: { 'kcp.io/cluster': '2x9k' } } }); // '2x9k'
 * ```
 * @param obj - an object read from kcp.
 * @returns the logical cluster name, or `undefined` when the annotation is missing or empty.
 */
export function logicalClusterOf(obj: KubeObject): string | undefined {
  const v = obj.metadata.annotations?.[clusterAnnotation];
  return v === undefined || v === '' ? undefined : v;
}
