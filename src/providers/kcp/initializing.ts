// The initializing-workspaces provider: workspaces of a WorkspaceType with an initializer, engaged
// while they wait for this initializer, through the type's initializing virtual workspace. The
// controller does its setup through the cluster's client, then calls finishInitialization.
import type { Cluster, Provider } from '../../streams/cluster.js';
import { ConfigError } from '../../core/config-error.js';
import type { KubeError } from '../../core/errors.js';
import { kubeError } from '../../core/errors.js';
import type { Either } from '../../internal/fp.js';
import { E } from '../../internal/fp.js';
import type { InitializingWorkspaceProviderOptions } from './config.js';
import { listedUrls } from './sources.js';
import type { LogicalCluster } from './types.js';
import { logicalClusters, workspaceTypes } from './types.js';
import { workspaceProvider } from './workspaces.js';

/**
 * The label an initializing cluster carries with the initializer it waits for (the last segment of
 * the virtual-workspace URL, `<type's logical cluster>:<type name>`): pass it to
 * {@link finishInitialization}.
 *
 * @example
 * ```ts
 * const initializer = cluster.labels?.[initializerLabel]; // '2x9k:my-type'
 * ```
 */
export const initializerLabel = 'rxfleet.dev/kcp-initializer';

function initializerOf(endpoint: string): string {
  const last = endpoint.replace(/\/+$/, '').split('/').pop() ?? '';
  return decodeURIComponent(last);
}

/**
 * Serves the workspaces of a WorkspaceType (with `spec.initializer: true`) while they are
 * initializing (Go: multicluster-provider `initializingworkspaces`). URLs come from the type's
 * `status.virtualWorkspaces[].url` (those containing `/initializingworkspaces/`); at each, the
 * wildcard watch of `core.kcp.io/v1alpha1` LogicalClusters lists the workspaces that still wait for
 * this initializer. Each is engaged with a client of `<url>/clusters/<logical name>` (which can
 * read and write the workspace's objects), `identity` `{ provider: 'kcp-initializing', from:
 * 'workspace <name> initializing for WorkspaceType <type>', id: <logical cluster> }`, the labels
 * `kcp.io/cluster`, {@link initializerLabel} (and `kcp.io/path` when path-aware) and the
 * `unservedResourceHint` `bind an APIExport that exports it in workspace <name>, or create its CRD
 * there` (what a run says to do about a resource the workspace answers 404 for), and disengaged
 * when kcp sends the synthetic DELETED that means it no longer matches (its initializer was
 * removed, or it was deleted). Its informers watch each workspace through that client.
 *
 * @example
 * ```ts
 * import { finishInitialization, initializerLabel, initializingWorkspaceProvider } from 'rxfleet/providers/kcp';
 * initializingWorkspaceProvider({ management: { file: 'provider.kubeconfig' }, workspaceType: 'tenant' }).pipe(
 *   filter((ev) => ev.type === 'engaged'),
 *   mergeMap(async ({ cluster }) => {
 *     await cluster.client.create(configMaps, { metadata: { name: 'welcome', namespace: 'default' }, data: { hello: 'world' } });
 *     return finishInitialization(cluster, cluster.labels?.[initializerLabel] ?? '');
 *   }),
 * ).subscribe();
 * ```
 * @param config - the kubeconfig of the workspace holding the WorkspaceType (`management`), the
 *   WorkspaceType's name (`workspaceType`) and options.
 * @returns the provider.
 * @throws ConfigError when `workspaceType` is empty.
 */
export function initializingWorkspaceProvider(config: InitializingWorkspaceProviderOptions): Provider {
  const { workspaceType: workspaceTypeName } = config;
  if (workspaceTypeName === '') throw new ConfigError('initializingWorkspaceProvider: the WorkspaceType name is empty; pass the name of a WorkspaceType with `spec.initializer: true`');
  return workspaceProvider<LogicalCluster>({
    provider: 'kcp-initializing',
    config,
    urls: (say) =>
      listedUrls(config, say, workspaceTypes, workspaceTypeName, (wt) => (wt.status?.virtualWorkspaces ?? []).map((v) => v.url).filter((u) => u.includes('/initializingworkspaces/'))),
    presence: logicalClusters,
    counts: (lc) => lc.metadata.deletionTimestamp === undefined,
    source: (workspace) => `workspace ${workspace} initializing for WorkspaceType ${workspaceTypeName}`,
    // Through the initializing virtual workspace a workspace serves what it serves itself: its bindings and its CRDs.
    unservedResourceHint: (workspace) => `bind an APIExport that exports it in workspace ${workspace}, or create its CRD there`,
    labels: (endpoint) => ({ [initializerLabel]: initializerOf(endpoint) }),
    // The initializing virtual workspace serves no resource set to share: each cluster's informers watch it themselves.
    serveWatches: false,
    removedReason: 'it no longer waits for this initializer (initialized, or deleted)',
  });
}

const ATTEMPTS = 5;

/**
 * Removes `initializer` from the LogicalCluster's `status.initializers`, through the cluster's
 * client (an initializing virtual workspace accepts exactly this status change). The patch carries
 * the resourceVersion read, so a concurrent change yields a Conflict, which is retried (5 reads in
 * all). Already removed is success.
 *
 * @example
 * ```ts
 * const r = await finishInitialization(cluster, cluster.labels?.[initializerLabel] ?? '');
 * if (E.isLeft(r)) console.warn(r.left.message);
 * ```
 * @param cluster - an engaged initializing cluster.
 * @param initializer - the initializer to remove (`<logical cluster of the type>:<type name>`).
 * @returns the updated LogicalCluster, or the error of the last attempt.
 */
export async function finishInitialization(cluster: Cluster, initializer: string): Promise<Either<KubeError, LogicalCluster>> {
  let last: KubeError = kubeError('Unknown', cluster.name, 'finishInitialization made no attempt');
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const read = await cluster.client.get(logicalClusters, 'cluster');
    if (E.isLeft(read)) return read;
    const initializers = read.right.status?.initializers ?? [];
    if (!initializers.includes(initializer)) return read;
    const patch = { metadata: { resourceVersion: read.right.metadata.resourceVersion }, status: { initializers: initializers.filter((i) => i !== initializer) } };
    const res = await cluster.client.patch(logicalClusters, 'cluster', patch, { type: 'merge', subresource: 'status' });
    if (E.isRight(res) || res.left.type !== 'Conflict') return res;
    last = res.left;
  }
  return E.left(last);
}
