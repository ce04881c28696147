// An APIExport across the shards of a sharded kcp (rxfleet/envtest's startShardedKcp), for the
// kcp provider tests that need kcp as it is deployed: the export's provider workspace, consumer
// workspaces placed on each shard and bound, and the endpoint slice listing one URL per shard.
import type { Subscription } from 'rxjs';
import { defer, map } from 'rxjs';
import type { ShardedKcpHandle, ShardedKcpOptions } from '../../src/envtest/kcp-sharded-handle.js';
import { E } from '../../src/fp/index.js';
import type { Cluster, KubeObject, ObjectKey, ResourceDescriptor } from '../../src/index.js';
import { done } from '../../src/index.js';
import { reconcile } from '../../src/operators/index.js';
import { apiExportProvider } from '../../src/providers/kcp/index.js';
import type { Fleet, Informers, ProviderReport, WatchHealth, ListerWatcher } from '../../src/streams/index.js';
import { clusterListerWatcher, createFleet, createInformers, fleetWatch } from '../../src/streams/index.js';
import { startShardedKcp } from '../../src/envtest/kcp-sharded.js';
import { field, requestJson, stringField } from './http.js';
import type { ApiExportFixture, Widget } from './kcp-apiexport.js';
import { createIn, getIn, setupApiExport } from './kcp-apiexport.js';
import type { KcpWorkspace } from './kcp.js';
import { kcpClusterKubeConfig } from './kcp.js';
import { eventually } from './wait.js';

export interface ShardedExport {
  readonly kcp: ShardedKcpHandle;
  readonly fx: ApiExportFixture;
  /** Consumer workspaces by the shard they are on. */
  readonly consumers: Map<string, KcpWorkspace[]>;
  /** A new consumer workspace on `shard`, bound. */
  addConsumer(shard: string, name?: string): Promise<KcpWorkspace>;
  /** The endpoint slice's URLs now. */
  sliceUrls(): Promise<string[]>;
  /** Waits until the slice lists exactly `urls` (any order); returns them sorted. */
  sliceListsExactly(urls: readonly string[], timeoutMs?: number): Promise<string[]>;
  /** The URL a shard's virtual workspace serves the export at (`<shard base>/services/apiexport/<provider>/<export>`). */
  urlOf(shard: string): string;
  /** The shard a workspace is on. */
  shardOf(ws: KcpWorkspace): string;
}

/**
 * Starts a sharded kcp, exports widgets from a provider workspace and binds `perShard` consumer
 * workspaces on every shard; waits until the endpoint slice lists each shard's URL.
 *
 * @example
 * const sx = await startShardedExport(2);
 */
export async function startShardedExport(perShard: number, opts: ShardedKcpOptions = {}): Promise<ShardedExport> {
  const kcp = await startShardedKcp(opts);
  try {
    const fx = await setupApiExport(kcp.adminKubeconfigPath, { consumers: 0 });
    const providerLogical = fx.providerWorkspace.logicalCluster;
    const consumers = new Map<string, KcpWorkspace[]>();
    const addConsumer = async (shard: string, name?: string): Promise<KcpWorkspace> => {
      const made = await kcp.createWorkspace(name, { shard });
      const ws: KcpWorkspace = { ...made, kubeConfig: () => kcpClusterKubeConfig(kcp.adminKubeconfigPath, made.path) };
      await fx.bind(ws);
      consumers.set(shard, [...(consumers.get(shard) ?? []), ws]);
      return ws;
    };
    const sliceUrls = async (): Promise<string[]> => {
      const res = await requestJson(kcpClusterKubeConfig(kcp.adminKubeconfigPath, fx.providerWorkspace.path), 'GET', `/apis/apis.kcp.io/v1alpha1/apiexportendpointslices/${fx.exportName}`);
      if (res.status !== 200) throw new Error(`GET endpoint slice: ${res.status} ${res.text.slice(0, 200)}`);
      const endpoints = field(res.body, 'status', 'endpoints');
      return (Array.isArray(endpoints) ? (endpoints as unknown[]) : []).map((e) => stringField(e, 'url') ?? '').sort();
    };
    const sliceListsExactly = (urls: readonly string[], timeoutMs = 120_000): Promise<string[]> => {
      const want = [...urls].sort().join('\n');
      let seen: string[] = [];
      return eventually(
        `the endpoint slice to list ${urls.join(', ')}`,
        async () => {
          seen = await sliceUrls();
          return seen.join('\n') === want ? seen : undefined;
        },
        { timeoutMs, intervalMs: 250, context: () => `it lists: ${seen.join(', ')}` },
      );
    };
    const urlOf = (shard: string): string => `${kcp.shard(shard).baseUrl}/services/apiexport/${providerLogical}/${fx.exportName}`;
    for (const s of kcp.shards) for (let i = 0; i < perShard; i++) await addConsumer(s.name);
    await sliceListsExactly(kcp.shards.map((s) => urlOf(s.name)));
    return {
      kcp,
      fx,
      consumers,
      addConsumer,
      sliceUrls,
      sliceListsExactly,
      urlOf,
      shardOf: (ws) => [...consumers].find(([, list]) => list.some((w) => w.logicalCluster === ws.logicalCluster))?.[0] ?? '?',
    };
  } catch (err: unknown) {
    await kcp.stop();
    throw err;
  }
}

/** Merge-patches a Shard in root (e.g. its `spec.virtualWorkspaceURL`) as kcp's admin. */
export async function patchShard(kcp: ShardedKcpHandle, name: string, patch: unknown): Promise<void> {
  const kc = kcpClusterKubeConfig(kcp.adminKubeconfigPath, 'root');
  const res = await requestJson(kc, 'PATCH', `/apis/core.kcp.io/v1alpha1/shards/${name}`, patch);
  if (res.status !== 200) throw new Error(`PATCH shard ${name}: ${res.status} ${res.text.slice(0, 200)}`);
}

/** Watch timings of the sharded tests: fast retries, a stalled shard noticed and called degraded within seconds. */
export const shardedWatch = {
  backoff: { initialMs: 200, factor: 2, maxMs: 2_000, resetAfterMs: 60_000 },
  authBackoff: { initialMs: 500, factor: 2, maxMs: 2_000, resetAfterMs: 60_000 },
  // A healthy watch is closed by the server (cleanly) well before it would be presumed dead.
  serverTimeoutSeconds: { min: 5, max: 8 },
  inactivityTimeoutMs: 30_000,
  degradedAfterMs: 5_000,
};

export interface WidgetController {
  readonly fleet: Fleet;
  readonly informers: Informers;
  readonly reports: ProviderReport[];
  /** Every health snapshot of each engaged workspace's widget informer, by fleet name. */
  readonly health: Map<string, WatchHealth[]>;
  /** The management clusters (wildcard URLs) a watch was opened against, with the resource. */
  readonly watched: Set<string>;
  stop(): void;
}

/**
 * Runs the widget controller of the sharded tests over the export's provider: every Widget gets
 * `status.cluster` (its cluster's logical name) and `status.observedSize` written back.
 *
 * @example
 * const c = runWidgetController(sx.fx);
 */
export function runWidgetController(fx: ApiExportFixture, pathAware = false): WidgetController {
  const watched = new Set<string>();
  const listerWatcherFor = <T extends KubeObject>(cluster: Cluster, r: ResourceDescriptor<T>): ListerWatcher<T> => {
    watched.add(`${cluster.name} ${r.plural}`);
    return clusterListerWatcher(cluster, r);
  };
  const fleet = createFleet(apiExportProvider({ management: () => ({ yaml: fx.providerKubeconfig() }), exportName: fx.exportName, managementWatch: { ...shardedWatch, listerWatcherFor }, pathAware }));
  const informers = createInformers(shardedWatch);
  const reports: ProviderReport[] = [];
  const health = new Map<string, WatchHealth[]>();
  const lookup = (key: ObjectKey): Widget | undefined => {
    const c = fleet.get(key.cluster);
    return c === undefined ? undefined : informers.informer(c, fx.widgets).store.get(key);
  };
  const subs: Subscription[] = [
    fleet.reports.subscribe((r) => reports.push(r)),
    fleet.engagements.subscribe(({ cluster }) => {
      subs.push(informers.informer(cluster, fx.widgets).health.subscribe((h) => health.set(cluster.name, [...(health.get(cluster.name) ?? []), h])));
    }),
    fleetWatch(fleet, fx.widgets, { informers })
      .pipe(
        reconcile<Widget>(
          (req, ctx) => {
            const w = req.object;
            const c = ctx.fleet?.get(req.cluster);
            if (w === undefined || c === undefined) return done();
            const logical = c.identity?.id ?? '';
            if (w.status?.cluster === logical && w.status.observedSize === w.spec?.size) return done();
            return defer(() => c.client.patch(fx.widgets, req.key.name, { status: { cluster: logical, observedSize: w.spec?.size } }, { type: 'merge', namespace: req.key.namespace, subresource: 'status' })).pipe(
              map((r) => {
                if (E.isLeft(r)) throw new Error(r.left.message);
                return done();
              }),
            );
          },
          { lookup, fleet, concurrency: 4, backoff: { initialMs: 100, maxMs: 2_000 } },
        ),
      )
      .subscribe(),
  ];
  return {
    fleet,
    informers,
    reports,
    health,
    watched,
    stop: () => {
      for (const s of subs) s.unsubscribe();
    },
  };
}

/** Creates widget `name` (spec.size `size`) in a workspace through the front-proxy. */
export async function createWidget(fx: ApiExportFixture, ws: KcpWorkspace, name: string, size: number): Promise<void> {
  await createIn(fx.workspaceKubeConfig(ws), `/apis/${fx.group}/v1/namespaces/default/widgets`, { apiVersion: `${fx.group}/v1`, kind: 'Widget', metadata: { name, namespace: 'default' }, spec: { size } });
}

/** Waits until widget `name` in `ws` has its status written back by the controller, in ws's own logical cluster. */
export async function widgetReconciled(fx: ApiExportFixture, ws: KcpWorkspace, name: string, size: number, timeoutMs = 90_000): Promise<void> {
  let last: Widget | undefined;
  await eventually(
    `widget ${ws.path}/${name} reconciled`,
    async () => {
      last = (await getIn(fx.workspaceKubeConfig(ws), `/apis/${fx.group}/v1/namespaces/default/widgets/${name}`)) as Widget | undefined;
      return last?.status?.cluster === ws.logicalCluster && last.status.observedSize === size ? true : undefined;
    },
    { timeoutMs, intervalMs: 250, context: () => `last read: ${JSON.stringify(last?.status)}` },
  );
}
