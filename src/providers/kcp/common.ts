// What both kcp providers build from their config: the stream of virtual-workspace URLs read from
// the provider workspace, the cluster namer (logical names, or paths when path-aware), and the
// public fleet surface over the engine's state.
import type { Observable } from 'rxjs';
import { concat, defer, filter, finalize, from, map, of, share, tap } from 'rxjs';
import type { Cluster, FleetView, Provider } from '../../client/cluster.js';
import { engaged } from '../../client/cluster.js';
import type { ClusterName } from '../../core/cluster.js';
import { clusterName } from '../../core/cluster.js';
import { objectKey } from '../../core/key.js';
import type { KubeObject } from '../../core/object.js';
import type { ResourceDescriptor } from '../../core/resource.js';
import { resourceId } from '../../core/resource.js';
import { E } from '../../internal/fp.js';
import { signalEvents } from '../../streams/signal-events.js';
import { watchSignals } from '../../streams/watch-signals.js';
import { clusterWatchSource } from '../../streams/watch-source.js';
import type { KcpProviderConfig } from './config.js';
import { kcpBase, kcpClient, loadProviderKubeConfig, providerServer } from './credentials.js';
import type { EngineSignal, EngineState, Namer } from './engine.js';
import { pathResolver } from './paths.js';
import { urlsOf } from './urls.js';

/**
 * The namer of a provider: logical names, or workspace paths read through kcp's front door when
 * `pathAware` is set.
 *
 * @example
 * ```ts
 * const namer = kcpNamer({ kubeconfig, pathAware: true }, clusterName('kcp-front'));
 * ```
 * @param config - the provider's config.
 * @param name - a name for the front-door client (in errors).
 * @returns the namer.
 */
export function kcpNamer(config: KcpProviderConfig, name: ClusterName): Namer {
  if (config.pathAware === undefined || config.pathAware === false) return (logical) => of(E.right(logical));
  const kc = loadProviderKubeConfig(name, config.kubeconfig);
  if (E.isLeft(kc)) return () => of(E.left(kc.left));
  const front = kcpClient(name, kcpBase(providerServer(kc.right)), config.kubeconfig, config.client);
  if (E.isLeft(front)) return () => of(E.left(front.left));
  const opts = config.pathAware === true ? {} : config.pathAware;
  const scheduler = config.watch?.scheduler;
  return pathResolver(front.right, { ...(scheduler === undefined ? {} : { scheduler }), ...opts });
}

/**
 * The URLs listed by one object of the provider workspace, as a stream of sets, watched with a
 * client of the provider workspace that is closed when the stream ends. A kubeconfig that cannot
 * be loaded yields one empty set and one `error` report.
 *
 * @example
 * ```ts
 * const urls = providerUrls(config, apiExportEndpointSlices, 'widgets.example.com', (s: APIExportEndpointSlice) =>
 *   (s.status?.endpoints ?? []).map((e) => e.url),
 * );
 * urls.subscribe((list: readonly string[]) => console.log(list));
 * ```
 * @param config - the provider's config.
 * @param r - the resource of the URL-listing object.
 * @param objectName - its name.
 * @param pick - the URLs it lists.
 * @returns the cold stream of URL sets.
 */
export function providerUrls<T extends KubeObject>(config: KcpProviderConfig, r: ResourceDescriptor<T>, objectName: string, pick: (obj: T) => readonly string[]): Observable<readonly string[]> {
  return defer(() => {
    const name = clusterName(`kcp-provider:${resourceId(r)}/${objectName}`);
    const kc = loadProviderKubeConfig(name, config.kubeconfig);
    const client = E.isLeft(kc) ? kc : kcpClient(name, providerServer(kc.right), config.kubeconfig, config.client);
    if (E.isLeft(client)) {
      config.report?.({ kind: 'error', error: client.left });
      return of<readonly string[]>([]);
    }
    const cluster: Cluster = { name, client: client.right };
    return watchSignals(clusterWatchSource(cluster, r), { ...config.watch, cluster: name, resource: r, fieldSelector: `metadata.name=${objectName}` }).pipe(
      tap((s) => {
        if (s.kind === 'health') config.report?.({ kind: 'watch', health: s.health });
      }),
      signalEvents<T>(),
      urlsOf(pick),
      finalize(() => {
        client.right.close();
      }),
    );
  });
}

/**
 * The fleet surface over an engine: a provider that replays the engaged clusters to late
 * subscribers, and a {@link FleetView} that accepts logical names and (when path-aware) paths.
 *
 * @example
 * ```ts
 * const { provider, view, shared } = fleetSurface(signals, state);
 * ```
 * @param signals - the engine's signals.
 * @param state - the current run's state.
 * @returns the shared signals, the provider and the view.
 */
export function fleetSurface(
  signals: Observable<EngineSignal>,
  state: () => EngineState | undefined,
): { readonly shared: Observable<EngineSignal>; readonly provider: Provider; readonly view: FleetView & { logicalCluster(name: ClusterName): ClusterName | undefined } } {
  const shared = signals.pipe(share());
  const provider: Provider = defer(() =>
    concat(
      from((state()?.clusters() ?? []).map(engaged)),
      shared.pipe(
        filter((s): s is Extract<EngineSignal, { kind: 'fleet' }> => s.kind === 'fleet'),
        map((s) => s.event),
      ),
    ),
  );
  return {
    shared,
    provider,
    view: {
      get: (name) => {
        const c = state()?.get(name);
        return c === undefined ? undefined : { name: c.name, client: c.client, ...(c.labels === undefined ? {} : { labels: c.labels }) };
      },
      clusters: () => state()?.clusters() ?? [],
      logicalCluster: (name) => state()?.get(name)?.logical,
    },
  };
}

/**
 * The cache key of an object of an engaged cluster, given the fleet name (path or logical).
 *
 * @example
 * ```ts
 * storeKey(state, objectKey(clusterName('root:a'), 'default', 'w')); // cluster://2x9k/default/w
 * ```
 * @param state - the run's state.
 * @param key - a key with the fleet name.
 * @returns the key under the logical name, or `undefined` when the cluster is not engaged.
 */
export function storeKey(state: EngineState | undefined, key: { readonly cluster: ClusterName; readonly namespace: string; readonly name: string }): ReturnType<typeof objectKey> | undefined {
  const logical = state?.get(key.cluster)?.logical;
  return logical === undefined ? undefined : objectKey(logical, key.namespace, key.name);
}
