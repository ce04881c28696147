// The APIExport provider: every consumer workspace that binds an export, reached through the
// export's virtual workspace, as an ordinary cluster of the fleet. Its watches are views of one
// wildcard watch per shard endpoint and resource, so engaging a workspace opens no watch.
import { ConfigError } from '../../core/config-error.js';
import type { Provider } from '../../streams/cluster.js';
import type { ApiExportProviderOptions } from './config.js';
import { isBoundTo } from './presence.js';
import { listedUrls } from './sources.js';
import { apiBindings, apiExportEndpointSlices } from './types.js';
import { workspaceProvider } from './workspaces.js';

/**
 * Serves the consumers of an APIExport (Go: kcp-dev/multicluster-provider `apiexport`). It watches
 * the export's APIExportEndpointSlice in the provider workspace; for each endpoint URL (one per
 * shard) it watches APIBindings under `<url>/clusters/*`. A consumer workspace is engaged when it
 * has a Bound (or Ready) APIBinding for the export, and disengaged when its last one is deleted (or
 * starts deleting) or its endpoint goes away.
 *
 * Each engaged `Cluster` has:
 * - a client of `<url>/clusters/<logical name>` with the provider's credentials, behind
 *   {@link tenantGuard} (closed when the workspace is disengaged or the provider unsubscribed);
 * - `identity`: `{ provider: 'kcp-apiexport', from: 'workspace <name> via APIExport <export>', id: <logical cluster> }`;
 * - `labels`: `kcp.io/cluster` (the logical name) and, when path-aware, `kcp.io/path`;
 * - `unservedResourceHint` (what a run says to do about a resource the virtual workspace answers
 *   404 for): `export it from APIExport <export> (as one of its resource schemas, or as a
 *   permission claim that workspace <name>'s APIBinding accepts)`;
 * - a `cache` that serves its informers from one wildcard watch per endpoint, resource and label
 *   selection (made when the first workspace's informer asks, stopped after the last leaves),
 *   split by each object's `kcp.io/cluster`. So `fleetWatch`, `controller` and informers read any
 *   resource the virtual workspace serves with no watch per workspace. A namespaced selection is
 *   not served that way (kcp refuses namespaced wildcard watches): the informer then watches the
 *   workspace itself.
 *
 * Clusters are named by logical name, or by path with `pathAware`. Reports (the endpoint slice and
 * presence watches as `source` failing/recovered, paths that cannot be read as `error`, engagement
 * as `engaged`/`disengaged`) travel in the provider's own stream. Failures are retried with backoff;
 * the provider never errors because of one workspace or one endpoint.
 *
 * @example
 * ```ts
 * import { apiExportProvider } from 'rxfleet/providers/kcp';
 * const c = controller({
 *   name: 'widgets',
 *   provider: apiExportProvider({ management: () => ({ file: 'provider.kubeconfig' }), exportName: 'widgets.example.com' }),
 *   resource: widgets,
 *   reconcile: (req, ctx) => done(), // req.cluster is the workspace; ctx.fleet.get(req.cluster)?.identity?.id its logical cluster
 * });
 * ```
 * @param config - the provider workspace's kubeconfig (`management`), the APIExport's name
 *   (`exportName`; its endpoint slice has the same name) and options.
 * @returns the provider.
 * @throws ConfigError when `exportName` is empty.
 */
export function apiExportProvider(config: ApiExportProviderOptions): Provider {
  const { exportName } = config;
  if (exportName === '') throw new ConfigError('apiExportProvider: the APIExport name is empty; pass the name of the APIExport in the provider workspace');
  return workspaceProvider({
    provider: 'kcp-apiexport',
    config,
    urls: (say) => listedUrls(config, say, apiExportEndpointSlices, exportName, (s) => (s.status?.endpoints ?? []).map((e) => e.url)),
    presence: apiBindings,
    counts: (b) => isBoundTo(b, exportName),
    source: (workspace) => `workspace ${workspace} via APIExport ${exportName}`,
    // The virtual workspace serves a workspace the export's resources and the claims its binding accepted, nothing else.
    unservedResourceHint: (workspace) => `export it from APIExport ${exportName} (as one of its resource schemas, or as a permission claim that workspace ${workspace}'s APIBinding accepts)`,
    serveWatches: true,
    removedReason: `its APIBinding to ${exportName} was deleted, or its virtual-workspace endpoint went away`,
  });
}
