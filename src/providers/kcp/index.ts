/**
 * rxfleet/providers/kcp: kcp's virtual workspaces as ordinary providers: the consumers of an
 * APIExport (`apiExportProvider`, optionally named by workspace path) and the workspaces of a type
 * while they initialize (`initializingWorkspaceProvider`, with `finishInitialization`); plus kcp's
 * own resources and annotations, path resolution, and the tenant guard every workspace client has.
 *
 * @example
 * ```ts
 * import { apiExportProvider } from 'rxfleet/providers/kcp';
 * const provider = apiExportProvider({ management: () => ({ file: 'provider.kubeconfig' }), exportName: 'widgets.example.com' });
 * ```
 * @packageDocumentation
 * @module rxfleet/providers/kcp
 */
// First: fails clearly on an unsupported Node before anything else loads.
import '../../internal/require-node.js';
export { apiExportProvider } from './api-export.js';
export { finishInitialization, initializerLabel, initializingWorkspaceProvider } from './initializing.js';
export type { ApiExportProviderOptions, InitializingWorkspaceProviderOptions, KcpProviderOptions } from './config.js';
export type { KcpKubeconfig } from './credentials.js';
export { retarget, tenantGuard } from './guard.js';
export type { PathResolverOptions } from './paths.js';
export { pathFromAnnotation, pathResolver } from './paths.js';
export type { APIBinding, APIExportEndpointSlice, ExportReference, KcpCondition, LogicalCluster, WorkspaceType } from './types.js';
export type { APIExport, APIResourceSchema, APIResourceVersion, ExportResource, PermissionClaim } from './export-types.js';
export { apiExports, apiResourceSchemas } from './export-types.js';
export { apiBindings, apiExportEndpointSlices, clusterAnnotation, logicalClusters, pathAnnotation, workspaceTypes } from './types.js';
