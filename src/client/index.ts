// The per-cluster client layer: kubeconfig loading, credentials, transport, and the typed client.
export type { KubeConfigSource } from './kubeconfig.js';
export { loadKubeConfig } from './kubeconfig.js';
export type { AuthSource, Credentials } from './auth.js';
export { authFromKubeConfig } from './auth.js';
export type { ExecClusterInfo, ExecCredentialStatus, ExecPluginConfig } from './exec-credential.js';
export { execCredentialCache, execPluginTimeoutMs, runExecPlugin } from './exec-credential.js';
export type { HttpRequest, HttpResponse, Transport, TransportOptions } from './transport.js';
export { createTransport } from './transport.js';
export type { ResourcePathParts, QueryValue } from './paths.js';
export { resourcePath, withQuery } from './paths.js';
export type { RawWatchEvent } from './watch-line.js';
export { parseWatchLine } from './watch-line.js';
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
  WriteOptions,
} from './client.js';
export { clientOver, createClusterClient } from './client.js';
