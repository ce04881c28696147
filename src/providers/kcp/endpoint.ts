// One endpoint (one shard's virtual-workspace URL): one wildcard watch per resource, never shared
// with another endpoint, because resourceVersions are only comparable within one shard.
import type { Observable } from 'rxjs';
import { defer, finalize, map, merge, of } from 'rxjs';
import type { ClusterClientOptions } from '../../client/client.js';
import type { Cluster } from '../../client/cluster.js';
import { clusterName } from '../../core/cluster.js';
import type { KubeError } from '../../core/errors.js';
import type { KubeObject } from '../../core/object.js';
import type { ResourceDescriptor } from '../../core/resource.js';
import { E } from '../../internal/fp.js';
import type { WatchConfig } from '../../streams/watch-config.js';
import type { WatchHealth, WatchSignal } from '../../streams/watch-health.js';
import { watchSignals } from '../../streams/watch-signals.js';
import { clusterWatchSource } from '../../streams/watch-source.js';
import type { KcpKubeconfig } from './credentials.js';
import { kcpClient } from './credentials.js';
import { wildcardUrl } from './urls.js';

/**
 * The options every kcp watch uses: {@link WatchConfig} without the selection (wildcard watches
 * see everything the virtual workspace serves).
 *
 * @example
 * ```ts
 * const w: KcpWatchConfig = { backoff: { initialMs: 200, factor: 2, maxMs: 5_000, resetAfterMs: 60_000 } };
 * ```
 */
export type KcpWatchConfig = Omit<WatchConfig, 'namespace' | 'labelSelector' | 'fieldSelector'>;

/**
 * What an endpoint's watches emit: events tagged with the index of their resource in the list
 * given, health snapshots, and a configuration error (the endpoint then watches nothing).
 *
 * @example
 * ```ts
 * const s: EndpointSignal = { kind: 'event', index: 0, event: { type: 'initDone' } };
 * ```
 */
export type EndpointSignal =
  | { readonly kind: 'event'; readonly index: number; readonly event: Extract<WatchSignal, { kind: 'event' }>['event'] }
  | { readonly kind: 'health'; readonly health: WatchHealth }
  | { readonly kind: 'error'; readonly error: KubeError };

/**
 * Watches `resources` under `<endpoint>/clusters/*` with one client of its own (closed when the
 * stream ends). Each watch retries by itself (the URL of a new shard may not serve for a while);
 * the stream never errors.
 *
 * @example
 * ```ts
 * endpointWatches(url, [apiBindings, widgets], { kubeconfig }).subscribe((s: EndpointSignal) => {
 *   if (s.kind === 'error') console.error(s.error.message);
 * });
 * ```
 * @param endpoint - the endpoint URL.
 * @param resources - what to watch there, in order (the index tags the events).
 * @param options - credentials, client options, watch options.
 * @returns the cold stream of signals.
 */
export function endpointWatches(
  endpoint: string,
  resources: readonly ResourceDescriptor[],
  options: { readonly kubeconfig: KcpKubeconfig; readonly client?: ClusterClientOptions; readonly watch?: KcpWatchConfig },
): Observable<EndpointSignal> {
  return defer(() => {
    const url = wildcardUrl(endpoint);
    const name = clusterName(url);
    const client = kcpClient(name, url, options.kubeconfig, options.client);
    if (E.isLeft(client)) return of<EndpointSignal>({ kind: 'error', error: client.left });
    const cluster: Cluster = { name, client: client.right };
    return merge(
      ...resources.map((r, index) =>
        watchSignals<KubeObject>(clusterWatchSource(cluster, r), { ...options.watch, cluster: name, resource: r }).pipe(
          map((s): EndpointSignal => (s.kind === 'event' ? { kind: 'event', index, event: s.event } : { kind: 'health', health: s.health })),
        ),
      ),
    ).pipe(
      finalize(() => {
        client.right.close();
      }),
    );
  });
}
