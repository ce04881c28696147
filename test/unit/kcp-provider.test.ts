// The kcp providers in process, every watch answered by a fake source (no server): an APIExport's
// bound workspaces become ordinary clusters (identity, labels, guarded client, a cache that serves
// their informers from one wildcard watch per endpoint), bindings and endpoints come and go, reports
// travel in the provider's stream, and every client the provider made is closed. A resource the
// virtual workspace does not serve is reported with the provider's hint, not the runtime's default.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Subscription } from 'rxjs';
import { filter, firstValueFrom, of, Subject } from 'rxjs';
import { pino } from 'pino';
import type { ClusterClient, ListOptions } from '../../src/client/index.js';
import { kubeError } from '../../src/client/index.js';
import { E } from '../../src/fp/index.js';
import type { Cluster, KeyedEvent, KubeObject, ResourceDescriptor } from '../../src/index.js';
import { clusterName, controller, done, formatKey, namespaces, resource, run } from '../../src/index.js';
import type { APIBinding, APIExportEndpointSlice, LogicalCluster } from '../../src/providers/kcp/index.js';
import { apiExportProvider, initializerLabel, initializingWorkspaceProvider } from '../../src/providers/kcp/index.js';
import type { ProviderReport, ListerWatcher } from '../../src/streams/index.js';
import { createFleet, createInformers, fleetWatch } from '../../src/streams/index.js';
import type { WatchesOptions } from '../../src/streams/watched.js';

const widgets = resource({ group: 'example.com', version: 'v1', plural: 'widgets', kind: 'Widget', namespaced: true });
const SERVER = 'https://kcp.test:6443';
const ENDPOINT = `${SERVER}/services/apiexport/prov/widgets`;
const WILDCARD = `${ENDPOINT}/clusters/*`;
const kubeconfig = {
  yaml: JSON.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'kcp', cluster: { server: `${SERVER}/clusters/root:prov` } }],
    users: [{ name: 'u', user: { token: 't' } }],
    contexts: [{ name: 'c', context: { cluster: 'kcp', user: 'u' } }],
    'current-context': 'c',
  }),
};

const inWs = (logical: string, name: string, rv: string, extra: Partial<KubeObject['metadata']> = {}): KubeObject => ({
  metadata: { name, namespace: 'default', resourceVersion: rv, annotations: { 'kcp.io/cluster': logical }, ...extra },
});
const bound = (logical: string, rv = '1'): APIBinding => ({
  metadata: { name: 'widgets', resourceVersion: rv, annotations: { 'kcp.io/cluster': logical } },
  spec: { reference: { export: { name: 'widgets' } } },
  status: { phase: 'Bound' },
});
const slice = (urls: string[], rv = '1'): APIExportEndpointSlice => ({ metadata: { name: 'widgets', resourceVersion: rv }, status: { endpoints: urls.map((url) => ({ url })) } });

/** A fake kcp: per (cluster, resource) an initial listing and a line stream, every call recorded. */
class FakeKcp {
  readonly calls: string[] = [];
  readonly parents = new Map<string, Cluster>();
  private readonly listings = new Map<string, readonly KubeObject[] | E.Either<never, never>>();
  private readonly streams = new Map<string, Subject<string>>();
  private readonly unserved = new Set<string>();

  has(cluster: string, plural: string, items: readonly KubeObject[]): this {
    this.listings.set(`${cluster} ${plural}`, items);
    return this;
  }

  /** Lists of `plural` at `cluster` answer 404, as for a resource that is not served there. */
  notServing(cluster: string, plural: string): this {
    this.unserved.add(`${cluster} ${plural}`);
    return this;
  }

  send(cluster: string, plural: string, type: 'ADDED' | 'MODIFIED' | 'DELETED', object: KubeObject): void {
    this.stream(`${cluster} ${plural}`).next(JSON.stringify({ type, object }));
  }

  private stream(key: string): Subject<string> {
    let s = this.streams.get(key);
    if (s === undefined) this.streams.set(key, (s = new Subject<string>()));
    return s;
  }

  readonly sourceFor = <T extends KubeObject>(cluster: Cluster, r: ResourceDescriptor<T>): ListerWatcher<T> => {
    const key = `${cluster.name} ${r.plural}`;
    this.parents.set(cluster.name, cluster);
    const where = (o: ListOptions): string => `${key}${o.namespace === undefined ? '' : ` ns=${o.namespace}`}`;
    return {
      list: (o) => {
        this.calls.push(`list ${where(o)}`);
        if (this.unserved.has(key)) return of(E.left(kubeError('NotFound', cluster.name, 'the server could not find the requested resource', { code: 404 })));
        const items = (this.listings.get(key) ?? []) as readonly T[];
        return of(E.right({ metadata: { resourceVersion: '1' }, items: [...items] }));
      },
      watch: (o) => {
        this.calls.push(`watch ${where(o)}`);
        return this.stream(key);
      },
    };
  };

  watchConfig(): WatchesOptions {
    return { streamingList: false, listerWatcherFor: this.sourceFor };
  }
}

const closed = async (client: ClusterClient | undefined): Promise<boolean> => {
  const r = await client?.get(namespaces, 'default');
  return r !== undefined && E.isLeft(r) && r.left.type === 'NotEngaged';
};

const subs: Subscription[] = [];
afterEach(() => {
  for (const s of subs.splice(0)) s.unsubscribe();
});

describe('apiExportProvider on a fake kcp', () => {
  it('engages each bound workspace as an ordinary cluster whose watches are views of one wildcard watch per endpoint', async () => {
    const kcp = new FakeKcp()
      .has('root:prov', 'apiexportendpointslices', [slice([ENDPOINT])])
      .has(WILDCARD, 'apibindings', [bound('a'), bound('b')])
      .has(WILDCARD, 'widgets', [inWs('a', 'w', '1'), inWs('b', 'w', '2')]);
    const fleet = createFleet(apiExportProvider({ management: kubeconfig, managementWatch: kcp.watchConfig(), exportName: 'widgets' }));
    const reports: ProviderReport[] = [];
    const seen: KeyedEvent[] = [];
    const informers = createInformers({ streamingList: false, listerWatcherFor: kcp.sourceFor });
    subs.push(fleet.reports.subscribe((r) => reports.push(r)));
    subs.push(fleetWatch(fleet, widgets, { informers }).subscribe((ev) => seen.push(ev)));

    await vi.waitFor(() => {
      expect(seen.flatMap((ev) => (ev.type === 'applied' ? [formatKey(ev.key)] : [])).sort()).toEqual([
        'cluster://a/default/w',
        'cluster://b/default/w',
      ]);
    });
    const a = fleet.get(clusterName('a'));
    expect(a?.identity).toEqual({ provider: 'kcp-apiexport', from: 'workspace a via APIExport widgets', id: 'a' });
    expect(a?.labels).toEqual({ 'kcp.io/cluster': 'a' });
    expect(a?.unservedResourceHint).toBe("export it from APIExport widgets (as one of its resource schemas, or as a permission claim that workspace a's APIBinding accepts)");
    expect(a?.client.server).toBe(`${ENDPOINT}/clusters/a`);
    // One wildcard watch of widgets for both workspaces; neither opened its own.
    expect(kcp.calls.filter((c) => c.endsWith(' widgets') && c.startsWith('list'))).toEqual([`list ${WILDCARD} widgets`]);
    expect(reports.flatMap((r) => (r.type === 'engaged' ? [`${r.provider} ${r.cluster}`] : [])).sort()).toEqual(['kcp-apiexport a', 'kcp-apiexport b']);

    // A live change reaches its own workspace only, read from the split cache.
    kcp.send(WILDCARD, 'widgets', 'MODIFIED', inWs('b', 'w', '3', { labels: { v: '2' } }));
    await vi.waitFor(() => {
      expect(seen.at(-1)).toMatchObject({ type: 'applied', key: { cluster: 'b', name: 'w' } });
    });
    const b = fleet.get(clusterName('b'));
    if (b === undefined) throw new Error('b engaged');
    expect(informers.informer(b, widgets).store.list().map((o) => o.metadata.labels)).toEqual([{ v: '2' }]);

    // A namespaced selection cannot be served by the wildcard: each workspace watches itself.
    subs.push(fleetWatch(fleet, widgets, { informers, namespace: 'default' }).subscribe());
    expect(kcp.calls.filter((c) => c.endsWith('ns=default') && c.startsWith('list')).sort()).toEqual(['list a widgets ns=default', 'list b widgets ns=default']);

    // Unbinding b disengages it: one clusterRemoved, its client closed, a report with the reason.
    kcp.send(WILDCARD, 'apibindings', 'DELETED', bound('b', '4'));
    await vi.waitFor(() => {
      expect(seen.at(-1)).toEqual({ type: 'clusterRemoved', cluster: 'b' });
    });
    expect(fleet.get(clusterName('b'))).toBeUndefined();
    expect(await closed(b.client)).toBe(true);
    expect(reports.find((r) => r.type === 'disengaged')).toMatchObject({ cluster: 'b', reason: 'its APIBinding to widgets was deleted, or its virtual-workspace endpoint went away' });

    // Unsubscribing closes every client the provider made: a's, the endpoint's, the provider workspace's.
    for (const s of subs.splice(0)) s.unsubscribe();
    expect(await closed(a?.client)).toBe(true);
    expect(await closed(kcp.parents.get(WILDCARD)?.client)).toBe(true);
    expect(await closed(kcp.parents.get('root:prov')?.client)).toBe(true);
  });

  it('disengages the workspaces of an endpoint that goes away, then closes that endpoint', async () => {
    const kcp = new FakeKcp().has('root:prov', 'apiexportendpointslices', [slice([ENDPOINT])]).has(WILDCARD, 'apibindings', [bound('a')]);
    const events: string[] = [];
    subs.push(apiExportProvider({ management: kubeconfig, managementWatch: kcp.watchConfig(), exportName: 'widgets' }).subscribe((ev) => events.push(ev.type === 'report' ? `report ${ev.report.type}` : ev.type)));
    await vi.waitFor(() => {
      expect(events).toContain('engaged');
    });
    kcp.send('root:prov', 'apiexportendpointslices', 'MODIFIED', slice([], '2'));
    await vi.waitFor(() => {
      expect(events.slice(-2)).toEqual(['disengaged', 'report disengaged']);
    });
    expect(await closed(kcp.parents.get(WILDCARD)?.client)).toBe(true);
  });

  it('reports a missing endpoint slice and a failing presence watch as its source, naming where and why', async () => {
    const kcp = new FakeKcp();
    const failing: FakeKcp['sourceFor'] = (cluster, r) =>
      cluster.name === WILDCARD && r.plural === 'apibindings'
        ? { list: () => of(E.left({ type: 'Forbidden', cluster: cluster.name, message: 'apibindings is forbidden' } as never)), watch: () => new Subject<string>() }
        : kcp.sourceFor(cluster, r);
    const reports: ProviderReport[] = [];
    subs.push(
      apiExportProvider({ management: kubeconfig, managementWatch: { streamingList: false, listerWatcherFor: failing }, exportName: 'widgets' }).subscribe((ev) => {
        if (ev.type === 'report') reports.push(ev.report);
      }),
    );
    await vi.waitFor(() => {
      expect(reports[0]).toMatchObject({ type: 'source', state: 'failing', provider: 'kcp-apiexport', management: 'root:prov', resource: 'apiexportendpointslices.apis.kcp.io', error: 'NotFound' });
    });
    kcp.send('root:prov', 'apiexportendpointslices', 'ADDED', slice([ENDPOINT]));
    await vi.waitFor(() => {
      expect(reports.map((r) => (r.type === 'source' ? `${r.state} ${r.management} ${r.resource}` : r.type))).toEqual([
        'failing root:prov apiexportendpointslices.apis.kcp.io',
        'recovered root:prov apiexportendpointslices.apis.kcp.io',
        `failing ${WILDCARD} apibindings.apis.kcp.io`,
      ]);
    });
    expect(reports[2]).toMatchObject({ error: 'Forbidden' });
  });

  it("reports a resource the virtual workspace does not serve with the provider's hint in the cluster's health", async () => {
    const kcp = new FakeKcp()
      .has('root:prov', 'apiexportendpointslices', [slice([ENDPOINT])])
      .has(WILDCARD, 'apibindings', [bound('a')])
      .notServing(WILDCARD, 'widgets');
    const c = controller({ name: 'widgets', provider: apiExportProvider({ management: kubeconfig, managementWatch: kcp.watchConfig(), exportName: 'widgets' }), resource: widgets, reconcile: () => done() });
    const handle = await run(c, { logger: pino({ level: 'silent' }), signals: false, http: false });
    try {
      const report = await firstValueFrom(handle.health.changes.pipe(filter((r) => r.clusters.some((h) => h.state === 'unhealthy'))));
      expect(report.clusters.find((h) => h.cluster === 'a')?.reason).toBe(
        "resource widgets.example.com is not served by this cluster (list answered 404): export it from APIExport widgets (as one of its resource schemas, or as a permission claim that workspace a's APIBinding accepts), or check the group, version and plural of the descriptor",
      );
    } finally {
      await handle.stop();
    }
  });

  it("reads the provider's kubeconfig once per endpoint, not once per workspace", async () => {
    // The kubeconfig reads (one per load) of a provider that engaged `n` bound workspaces.
    const loadsFor = async (n: number): Promise<number> => {
      const logicals = Array.from({ length: n }, (_, i) => `ws-${i}`);
      const kcp = new FakeKcp().has('root:prov', 'apiexportendpointslices', [slice([ENDPOINT])]).has(WILDCARD, 'apibindings', logicals.map((l) => bound(l)));
      let loads = 0;
      const management = (): typeof kubeconfig => {
        loads++;
        return kubeconfig;
      };
      const fleet = createFleet(apiExportProvider({ management, managementWatch: kcp.watchConfig(), exportName: 'widgets' }));
      const sub = fleet.engagements.subscribe();
      await vi.waitFor(() => {
        expect(fleet.clusters().length).toBe(n);
      });
      sub.unsubscribe();
      return loads;
    };
    expect(await loadsFor(40)).toBe(await loadsFor(1));
  });

  it('logs a failing shared wildcard watch once, naming its URL and how many workspaces read it, not once per workspace', async () => {
    const n = 30;
    const logicals = Array.from({ length: n }, (_, i) => `ws-${i}`);
    const kcp = new FakeKcp()
      .has('root:prov', 'apiexportendpointslices', [slice([ENDPOINT])])
      .has(WILDCARD, 'apibindings', logicals.map((l) => bound(l)))
      .has(WILDCARD, 'widgets', logicals.map((l) => inWs(l, 'w', '1')));
    // The wildcard watch of widgets: works, then its stream breaks and every relist is refused.
    let down = false;
    const widgetLines = new Subject<string>();
    const source: FakeKcp['sourceFor'] = (cluster, r) => {
      const inner = kcp.sourceFor(cluster, r);
      if (cluster.name !== WILDCARD || r.plural !== 'widgets') return inner;
      return { list: (o) => (down ? of(E.left(kubeError('ClusterUnreachable', cluster.name, 'connection refused'))) : inner.list(o)), watch: () => widgetLines };
    };
    const lines: { readonly msg: string; readonly watch?: string; readonly clusters?: number; readonly resource?: string }[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as (typeof lines)[number]) });
    const c = controller({ name: 'widgets', provider: apiExportProvider({ management: kubeconfig, managementWatch: { streamingList: false, listerWatcherFor: source }, exportName: 'widgets' }), resource: widgets, reconcile: () => done() });
    const handle = await run(c, { logger, signals: false, http: false });
    try {
      await vi.waitFor(() => {
        expect(lines.filter((l) => l.msg === 'cache synced' && l.resource === 'widgets.example.com')).toHaveLength(n);
      });
      down = true;
      widgetLines.error(kubeError('ClusterUnreachable', clusterName(WILDCARD), 'connection reset'));
      await vi.waitFor(() => {
        expect(lines.some((l) => l.msg.startsWith('shared watch failing'))).toBe(true);
      });
      // Every view got the failure in the same step as the first: one line for all of them.
      expect(lines.filter((l) => l.msg.startsWith('shared watch failing'))).toEqual([expect.objectContaining({ watch: WILDCARD, clusters: n, resource: 'widgets.example.com' })]);
      expect(lines.filter((l) => l.msg === 'watch failing, retrying with backoff')).toEqual([]);
    } finally {
      await handle.stop();
    }
  });

  it('refuses an empty export name and a backoff that can never work', () => {
    expect(() => apiExportProvider({ management: kubeconfig, exportName: '' })).toThrow(/APIExport name is empty/);
    expect(() => apiExportProvider({ management: kubeconfig, managementWatch: { backoff: { initialMs: 0 } }, exportName: 'widgets' })).toThrow(/managementWatch\.backoff\.initialMs/);
  });
});

describe('initializingWorkspaces on a fake kcp', () => {
  it('names initializing workspaces by the path on their LogicalCluster, with identity and the initializer label, and no shared cache', async () => {
    const INIT = `${SERVER}/services/initializingworkspaces/root:org:tenant`;
    const lc = (logical: string, path: string): LogicalCluster => ({
      metadata: { name: 'cluster', resourceVersion: '1', annotations: { 'kcp.io/cluster': logical, 'kcp.io/path': path } },
      status: { initializers: ['root:org:tenant'] },
    });
    const kcp = new FakeKcp()
      .has('root:prov', 'workspacetypes', [{ metadata: { name: 'tenant', resourceVersion: '1' }, status: { virtualWorkspaces: [{ url: INIT }, { url: `${SERVER}/services/other` }] } }])
      .has(`${INIT}/clusters/*`, 'logicalclusters', [lc('x1', 'root:org:x')]);
    const fleet = createFleet(initializingWorkspaceProvider({ management: kubeconfig, pathAware: true, managementWatch: kcp.watchConfig(), workspaceType: 'tenant' }));
    subs.push(fleet.engagements.subscribe());
    const x = await vi.waitFor(() => {
      const c = fleet.get(clusterName('root:org:x'));
      if (c === undefined) throw new Error('not yet');
      return c;
    });
    expect(x.identity).toEqual({ provider: 'kcp-initializing', from: 'workspace root:org:x initializing for WorkspaceType tenant', id: 'x1' });
    expect(x.labels).toEqual({ [initializerLabel]: 'root:org:tenant', 'kcp.io/cluster': 'x1', 'kcp.io/path': 'root:org:x' });
    expect(x.cache).toBeUndefined();
    expect(x.unservedResourceHint).toBe('bind an APIExport that exports it in workspace root:org:x, or create its CRD there');
    // kcp's synthetic DELETED once it no longer waits for this initializer.
    kcp.send(`${INIT}/clusters/*`, 'logicalclusters', 'DELETED', lc('x1', 'root:org:x'));
    await vi.waitFor(() => {
      expect(fleet.clusters()).toEqual([]);
    });
    expect(await closed(x.client)).toBe(true);
  });
});
