/**
 * @rxfleet/sync-agent: publish a service cluster's CRD-based API into kcp by configuration, kcp
 * api-syncagent's semantics built from rxfleet's own controllers. `syncAgent` checks the config
 * against both servers, then returns the controllers to run together: the publisher (CRD →
 * APIResourceSchema, APIExport kept current) and one sync controller per published resource
 * (spec down by server-side apply, status up, related Secrets/ConfigMaps, a finalizer that removes
 * the service side first, an orphan sweep at start, the tenant check on every write).
 *
 * @example
 * ```ts
 * import { main } from 'rxfleet';
 * import { parseSyncConfig, syncAgent } from '@rxfleet/sync-agent';
 * const config = parseSyncConfig({ apiExport: 'databases.example.dev', published: [{ name: 'databases', crd: { group: 'db.example.dev', kind: 'Database' } }] });
 * void main(await syncAgent({ config, kcp: { file: 'provider.kubeconfig' }, service: { file: 'service.kubeconfig' } }));
 * ```
 * @packageDocumentation
 * @module @rxfleet/sync-agent
 */
export type {
  MutationStep,
  PublishedFilter,
  PublishedMutation,
  PublishedNaming,
  PublishedProjection,
  PublishedResource,
  PublishedCrd,
  RelatedProjection,
  RelatedNamespace,
  RelatedReference,
  RelatedResource,
  RelatedSelector,
  SelectorRequirement,
  SyncConfig,
  SyncDown,
  SyncUp,
} from './types.js';
export { parseSyncConfig, syncConfigProblems } from './config.js';
export type { PublishedResourceFile } from './published-resource.js';
export type { SyncAgentOptions } from './agent.js';
export { syncAgent, syncAgentProvider } from './agent.js';
export type { SchemaFollower } from './schema-follow.js';
export type { PublishedPlan } from './plan.js';
export type { PreflightClients } from './preflight.js';
export { preflight } from './preflight.js';
export type { PublisherOptions } from './publisher.js';
export { publisherController } from './publisher.js';
export type { AdoptFrom, AdoptInto, AdoptRule } from './adopt-config.js';
export { defaultAdoptNamespace } from './adopt-config.js';
export type { AdoptOptions } from './adopt.js';
export { adoptControllers } from './adopt.js';
export { adoptedFromAnnotation, adoptedUidAnnotation } from './adopt-place.js';
export type { SyncControllerOptions } from './sync-controller.js';
export { syncController } from './sync-controller.js';
export { exportCluster, isConsumer, isExport, isService, serviceCluster } from './clusters.js';
export type { KcpInstallation } from './installations.js';
export type { InstallationCheck } from './installation-gate.js';
export { defaultInstallation, installationCluster, installationOf, installationSeparator } from './installations.js';
export { agentLabel, agentLabels, agentSelector, syncClusterAnnotation, defaultAgentName, publishedLabel, relatedLabel, syncFinalizer } from './labels.js';
export type { NamingError, RelatedNameResult, ServiceName } from './naming.js';
export { defaultNameTemplate, defaultNamespaceTemplate, relatedName, serviceName } from './naming.js';
export type { SyncFlags, SyncOptions } from './sync-options.js';
export { syncOptions } from './sync-options.js';
