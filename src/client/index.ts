/**
 * rxfleet/client: one cluster's typed client and what it is built from: kubeconfig loading,
 * credentials (tokens, client certificates, exec plugins), the HTTP transport, and the constructors
 * of the `KubeError` every call returns on failure. Every call returns an `Either`, never throws.
 *
 * @example
 * ```ts
 * import { createClusterClient } from 'rxfleet/client';
 * const client = createClusterClient(clusterName('local'), { file: `${process.env['HOME'] ?? ''}/.kube/config` });
 * if (isRight(client)) {
 *   const cms = await client.right.list(configMaps, { namespace: 'default' });
 *   if (isRight(cms)) console.log(cms.right.items.length);
 * }
 * ```
 * @packageDocumentation
 * @module rxfleet/client
 */
// First: fails clearly on an unsupported Node before anything else loads.
import '../internal/require-node.js';
export type {
  ApplyOptions,
  ClusterClient,
  ClusterClientOptions,
  DeleteOptions,
  GetOptions,
  ListOptions,
  PatchOptions,
  PatchType,
  WatchOptions,
  WriteLimits,
  WriteOptions,
} from './client.js';
export { clientOver, createClusterClient } from './client.js';
export type { ClientRateLimit, RateLimitedClient, RateLimitedClientOptions, RateLimitHooks } from './rate-limited-client.js';
export { checkClientRateLimit, rateLimitedClient } from './rate-limited-client.js';
export type { KubeconfigLike, KubeconfigSource } from './kubeconfig.js';
export type { KubeconfigAuthProvider, KubeconfigCluster, KubeconfigContext, KubeconfigUser, LoadedKubeconfig } from './kubeconfig-types.js';
export type { KubeconfigTrust } from './kubeconfig-trust.js';
export { loadKubeconfig } from './kubeconfig.js';
export type { AuthSource, Credentials } from './auth.js';
export { authFromKubeconfig } from './auth.js';
export type { ExecPluginConfig } from './exec-credential.js';
export type { HttpRequest, HttpResponse, Transport, TransportOptions } from './transport.js';
export { createTransport } from './transport.js';
export type { ServedResource, ServedResources, ServedResourcesOptions } from './served-resources.js';
export { servedResources } from './served-resources.js';
export type { RequestRecorder } from './request-count.js';
export { countingRequests, requestResult, verbOfRequest } from './request-count.js';
export type { KubeErrorFields, Status, StatusCause } from '../core/errors.js';
export { fromStatus, fromTransport, kubeError } from '../core/errors.js';
export { apiVersionOf, resourceId } from '../core/resource.js';
