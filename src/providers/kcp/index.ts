// rxfleet/providers/kcp: kcp's virtual workspaces as fleets — the consumers of an APIExport
// (optionally named by workspace path) and the workspaces of a type while they initialize.
export type { ApiExportConfig, ApiExportFleet } from './api-export.js';
export { apiExport, apiExportFleet } from './api-export.js';
export type { KcpProviderConfig } from './config.js';
export type { KcpKubeconfig } from './credentials.js';
export { kcpBase, kcpClient, loadProviderKubeConfig, rereadingAuth } from './credentials.js';
export type { KcpWatchConfig } from './endpoint.js';
export type { KcpReport } from './engine.js';
export { retarget, tenantGuard } from './guard.js';
export { finishInitialization, initializerLabel, initializingWorkspaces } from './initializing.js';
export type { PathResolverConfig } from './paths.js';
export { pathFromAnnotation, pathResolver } from './paths.js';
export type { APIBinding, APIExportEndpointSlice, KcpCondition, LogicalCluster, WorkspaceType } from './types.js';
export { apiBindings, apiExportEndpointSlices, clusterAnnotation, logicalClusterOf, logicalClusters, pathAnnotation, workspaceTypes } from './types.js';
export { clusterUrl, urlsOf, wildcardUrl } from './urls.js';
export type { ClusterObjectEvent, PresenceTransition } from './wildcard.js';
export { isBoundTo, presenceTracker, wildcardSplitter } from './wildcard.js';
