// The APIExport provider: every consumer workspace that binds an export, served through the
// export's virtual workspace, as a fleet; plus keyed events and reads of the served resources from
// one wildcard cache per shard endpoint, so engaging a workspace opens no new watch.
import type { Observable } from 'rxjs';
import { BehaviorSubject, concat, defer, distinctUntilChanged, filter, from, map } from 'rxjs';
import type { Provider } from '../../client/cluster.js';
import type { ClusterName } from '../../core/cluster.js';
import { clusterName } from '../../core/cluster.js';
import type { ObjectKey } from '../../core/key.js';
import { keyOf } from '../../core/key.js';
import type { KubeObject } from '../../core/object.js';
import type { ResourceDescriptor } from '../../core/resource.js';
import { resourceId } from '../../core/resource.js';
import type { KeyedEvent } from '../../streams/events.js';
import type { FleetView } from '../../client/cluster.js';
import { fleetSurface, kcpNamer, providerUrls, storeKey } from './common.js';
import type { KcpProviderConfig } from './config.js';
import type { EngineSignal, KcpReport } from './engine.js';
import { runEngine } from './engine.js';
import type { APIBinding } from './types.js';
import { apiBindings, apiExportEndpointSlices } from './types.js';
import { wildcardUrl } from './urls.js';
import { isBoundTo } from './wildcard.js';

/**
 * Options of {@link apiExportFleet}: the common kcp options plus the resources to serve.
 *
 * @example
 * ```ts
 * const config: ApiExportConfig = { kubeconfig: { file: 'provider.kubeconfig' }, resources: [widgets] };
 * ```
 */
export interface ApiExportConfig extends KcpProviderConfig {
  /** The exported resources to watch (wildcard, all namespaces) and serve events and reads of. */
  readonly resources: readonly ResourceDescriptor[];
}

/**
 * An APIExport's consumers as a fleet. Everything runs while `provider` or any `events` stream is
 * subscribed (one run shared by all of them); reads answer only while it runs.
 *
 * @example
 * ```ts
 * const kcp = apiExportFleet({ kubeconfig, resources: [widgets] }, 'widgets.example.com');
 * const fleet = createFleet(kcp.provider);
 * kcp.events(widgets).pipe(reconcile(fn, { lookup: kcp.lookup(widgets), fleet: kcp })).subscribe();
 * ```
 */
export interface ApiExportFleet extends FleetView {
  /** Engages each consumer workspace with a bound APIBinding, disengages it when the last one goes. */
  readonly provider: Provider;
  /**
   * Keyed events of a served resource across the engaged workspaces: at engagement every cached
   * object as `applied`, then changes, and at disengagement one `clusterRemoved` and nothing after.
   * Subscribing replays the engaged workspaces' objects first.
   */
  events<T extends KubeObject>(resource: ResourceDescriptor<T>): Observable<KeyedEvent<T>>;
  /** Reads a served object of an engaged workspace from the cache (usable as reconcile's `lookup`). */
  lookup<T extends KubeObject>(resource: ResourceDescriptor<T>): (key: ObjectKey) => T | undefined;
  /**
   * Whether the cache holds a full listing of a served resource for a workspace: `true` while the
   * workspace is engaged and the wildcard watch of its shard has listed, as it changes (replays the
   * current value; usable as a controller source's `synced`).
   */
  synced(resource: ResourceDescriptor): (cluster: ClusterName) => Observable<boolean>;
  /** The cached objects of a served resource in one engaged workspace (fleet name or logical name). */
  list<T extends KubeObject>(resource: ResourceDescriptor<T>, cluster: ClusterName): readonly T[];
  /** The logical cluster behind a fleet name (a path when path-aware), while engaged. */
  logicalCluster(name: ClusterName): ClusterName | undefined;
}

/**
 * Serves the consumers of an APIExport (Go: kcp-dev/multicluster-provider `apiexport`). It watches
 * the export's APIExportEndpointSlice in the provider workspace; for each endpoint URL (one per
 * shard) it opens one wildcard watch of APIBindings and one per served resource under
 * `<url>/clusters/*`, each keeping its own resourceVersions. A consumer workspace is engaged when
 * it has a Bound (or Ready) APIBinding for the export and disengaged when its last one is deleted
 * (or starts deleting); its {@link Cluster} client talks to `<url>/clusters/<logical name>` with
 * the provider's credentials, behind {@link tenantGuard}. Clusters are named by logical name (the
 * `kcp.io/cluster` annotation), or by path with `pathAware`. Failures (a URL that does not serve
 * yet, a restarted kcp, a refused token) are retried with backoff and reported; the provider never
 * errors because of one workspace or one endpoint.
 *
 * @example
 * ```ts
 * import { apiExportFleet } from 'rxfleet/providers/kcp';
 * const kcp = apiExportFleet({ kubeconfig: () => ({ file: 'provider.kubeconfig' }), resources: [widgets] }, 'widgets.example.com');
 * const outcomes = kcp.events(widgets).pipe(
 *   reconcile<Widget>(async (req, ctx) => {
 *     const c = ctx.fleet?.get(req.cluster);
 *     if (req.object === undefined || c === undefined) return done();
 *     await c.client.patch(widgets, req.key.name, { status: { seen: true } }, { type: 'merge', namespace: req.key.namespace, subresource: 'status' });
 *     return done();
 *   }, { lookup: kcp.lookup(widgets), fleet: kcp }),
 * );
 * ```
 * @see apiExport for the provider alone.
 * @param config - the provider workspace's kubeconfig, the resources to serve, options.
 * @param exportName - the APIExport's name (its endpoint slice has the same name).
 * @returns the fleet: provider, keyed events, lookups and the engaged clusters.
 */
export function apiExportFleet(config: ApiExportConfig, exportName: string): ApiExportFleet {
  const served = config.resources;
  // For `synced`: each engaged workspace's endpoint, and the served resources each endpoint's
  // wildcard watches have listed (their health names the cluster after the wildcard URL).
  const endpointOf = new Map<ClusterName, string>();
  const listed = new Map<ClusterName, ReadonlySet<string>>();
  const syncChanged = new BehaviorSubject<void>(undefined);
  const track = (r: KcpReport): void => {
    if (r.kind === 'engaged') endpointOf.set(r.cluster, r.endpoint);
    else if (r.kind === 'disengaged') endpointOf.delete(r.cluster);
    else if (r.kind === 'endpoints') {
      const current = new Set(r.urls.map((u) => clusterName(wildcardUrl(u))));
      for (const k of listed.keys()) if (!current.has(k)) listed.delete(k);
    } else if (r.kind === 'watch') {
      const ids = new Set(listed.get(r.health.cluster));
      if (r.health.synced) ids.add(r.health.resource);
      else ids.delete(r.health.resource);
      listed.set(r.health.cluster, ids);
    } else return;
    syncChanged.next();
  };
  const { signals, state } = runEngine<APIBinding>({
    ...config,
    report: (r) => {
      track(r);
      config.report?.(r);
    },
    urls: providerUrls(config, apiExportEndpointSlices, exportName, (s) => (s.status?.endpoints ?? []).map((e) => e.url)),
    presence: apiBindings,
    counts: (b) => isBoundTo(b, exportName),
    served,
    namer: kcpNamer(config, clusterName(`kcp-front:${exportName}`)),
  });
  const { shared, provider, view } = fleetSurface(signals, state);
  const indexOf = (r: ResourceDescriptor): number => {
    const i = served.findIndex((s) => resourceId(s) === resourceId(r) && s.version === r.version);
    if (i < 0) throw new TypeError(`apiExportFleet(${exportName}): ${resourceId(r)}/${r.version} is not one of the served resources`);
    return i;
  };
  const storeOf = <T extends KubeObject>(r: ResourceDescriptor<T>): { get(k: ObjectKey): T | undefined; byIndex(i: string, v: string): readonly T[] } | undefined => {
    const store = state()?.stores[indexOf(r)];
    // The store at this index holds objects of this resource.
    return store as unknown as { get(k: ObjectKey): T | undefined; byIndex(i: string, v: string): readonly T[] } | undefined;
  };
  return {
    ...view,
    provider,
    events<T extends KubeObject>(r: ResourceDescriptor<T>): Observable<KeyedEvent<T>> {
      const index = indexOf(r);
      return defer(() => {
        const s = state();
        const replay: KeyedEvent<T>[] = (s?.clusters() ?? []).flatMap((c) =>
          (storeOf(r)?.byIndex('cluster', s?.get(c.name)?.logical ?? c.name) ?? []).map((object): KeyedEvent<T> => ({ type: 'applied', key: keyOf(c.name, object), resource: r, object })),
        );
        return concat(
          from(replay),
          shared.pipe(
            filter((sig): sig is Extract<EngineSignal, { kind: 'object' }> => sig.kind === 'object' && sig.index === index),
            // Events at this index are of this resource.
            map((sig) => sig.event as KeyedEvent<T>),
          ),
        );
      });
    },
    lookup<T extends KubeObject>(r: ResourceDescriptor<T>) {
      indexOf(r);
      return (key: ObjectKey): T | undefined => {
        const k = storeKey(state(), key);
        return k === undefined ? undefined : storeOf(r)?.get(k);
      };
    },
    synced(r: ResourceDescriptor) {
      indexOf(r);
      const id = resourceId(r);
      const now = (cluster: ClusterName): boolean => {
        const engagedAs = state()?.get(cluster)?.name; // a logical name or a path finds the fleet name
        const endpoint = engagedAs === undefined ? undefined : endpointOf.get(engagedAs);
        return endpoint !== undefined && listed.get(clusterName(wildcardUrl(endpoint)))?.has(id) === true;
      };
      return (cluster: ClusterName): Observable<boolean> => syncChanged.pipe(map(() => now(cluster)), distinctUntilChanged());
    },
    list<T extends KubeObject>(r: ResourceDescriptor<T>, cluster: ClusterName): readonly T[] {
      const logical = state()?.get(cluster)?.logical;
      return logical === undefined ? [] : (storeOf(r)?.byIndex('cluster', logical) ?? []);
    },
  };
}

/**
 * The APIExport provider alone: {@link apiExportFleet}'s `provider`. Each engaged cluster's client
 * reads and writes that workspace through the virtual workspace (build watches on it with
 * `fleetWatch`, at the cost of one watch per workspace; `apiExportFleet().events` needs none).
 *
 * @example
 * ```ts
 * import { apiExport } from 'rxfleet/providers/kcp';
 * const fleet = createFleet(apiExport({ kubeconfig: { file: 'provider.kubeconfig' }, resources: [] }, 'widgets.example.com'));
 * fleet.engagements.subscribe(({ cluster }) => console.log('bound:', cluster.name));
 * ```
 * @param config - the provider workspace's kubeconfig and options.
 * @param exportName - the APIExport's name.
 * @returns the provider.
 */
export function apiExport(config: ApiExportConfig, exportName: string): Provider {
  return apiExportFleet(config, exportName).provider;
}
