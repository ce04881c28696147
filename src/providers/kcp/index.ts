// rxfleet/providers/kcp: kcp's virtual workspaces as ordinary providers — the consumers of an
// APIExport (optionally named by workspace path) and the workspaces of a type while they initialize.
export { apiExport } from './api-export.js';
export type { KcpProviderConfig, KcpWatchConfig } from './config.js';
export type { KcpKubeconfig } from './credentials.js';
export { kcpBase, kcpClient, loadProviderKubeConfig, rereadingAuth } from './credentials.js';
export { retarget, tenantGuard } from './guard.js';
export { finishInitialization, initializerLabel, initializingWorkspaces } from './initializing.js';
export type { PathResolverConfig } from './paths.js';
export { pathFromAnnotation, pathResolver } from './paths.js';
export type { PresenceTracker, PresenceTransition } from './presence.js';
export { isBoundTo, presenceTracker } from './presence.js';
export type { APIBinding, APIExportEndpointSlice, ExportReference, KcpCondition, LogicalCluster, WorkspaceType } from './types.js';
export { apiBindings, apiExportEndpointSlices, clusterAnnotation, logicalClusterOf, logicalClusters, pathAnnotation, workspaceTypes } from './types.js';
export { clusterUrl, urlsOf, wildcardUrl } from './urls.js';
