// The APIExport provider in process, every watch answered by a fake kcp (no server): an APIExport's
// bound workspaces become ordinary clusters (identity, labels, guarded client, a cache that serves
// their informers from one wildcard watch per endpoint), bindings and endpoints come and go, reports
// travel in the provider's stream, and every client the provider made is closed. A resource the
// virtual workspace does not serve is reported with the provider's hint, not the runtime's default.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Subscription } from 'rxjs';
import { filter, firstValueFrom, of, Subject } from 'rxjs';
import { pino } from 'pino';
import { kubeError } from '../../src/client/index.js';
import { E } from '../../src/fp/index.js';
import type { KeyedEvent } from '../../src/index.js';
import { clusterName, controller, done, formatKey, run } from '../../src/index.js';
import { apiExportProvider } from '../../src/providers/kcp/index.js';
import type { ProviderReport } from '../../src/streams/index.js';
import { createFleet, createInformers, fleetWatch } from '../../src/streams/index.js';
import { bound, closed, ENDPOINT, FakeKcp, inWs, kubeconfig, slice, WILDCARD, widgets } from './fake-kcp.js';

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
