// kcp-sim (bench/kcp-sim), the simulated APIExport virtual workspace behind bench:kcp-sim, speaks
// the protocol points the benchmark relies on, checked with rxfleet's own client and provider:
// wildcard lists across logical clusters with paging, per-cluster reads, streaming lists, 410 Gone
// for a resourceVersion or continue token older than the history, bookmarks only when asked for,
// and the APIExport provider engaging every bound workspace and reconciling every object.
import https from 'node:https';
import { firstValueFrom, filter, take, toArray } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClusterClient } from '../../src/client/index.js';
import type { ClusterName, KubeObject, ObjectKey } from '../../src/index.js';
import { clusterName, done } from '../../src/index.js';
import { E } from '../../src/fp/index.js';
import { parseWatchLine } from '../../src/client/watch-line.js';
import { reconcile } from '../../src/operators/index.js';
import { kcpClient } from '../../src/providers/kcp/credentials.js';
import { apiExportProvider } from '../../src/providers/kcp/index.js';
import { apiBindings } from '../../src/providers/kcp/types.js';
import { clusterUrl, wildcardUrl } from '../../src/providers/kcp/urls.js';
import { createFleet, createInformers, fleetWatch } from '../../src/streams/index.js';
import type { KcpSim } from '../../bench/kcp-sim/server.js';
import { startKcpSim } from '../../bench/kcp-sim/server.js';
import type { SimExport } from '../../bench/kcp-sim/workspaces.js';
import { bindSimWorkspaces, setupSimExport } from '../../bench/kcp-sim/workspaces.js';
import { eventually, must } from '../support/wait.js';

const WORKSPACES = 5;
const OBJECTS = 3;
let sim: KcpSim;
let fx: SimExport;
let names: string[];
let wildcard: ClusterClient;
const clients: ClusterClient[] = [];

const client = (url: string): ClusterClient => {
  const c = must(kcpClient(clusterName(url), url, { yaml: fx.providerKubeconfig() }));
  clients.push(c);
  return c;
};
const parsed = (line: string): { type: string; object: KubeObject } => must(parseWatchLine(clusterName('sim'), line));

beforeAll(async () => {
  sim = await startKcpSim({ bookmarkIntervalMs: 50 });
  fx = setupSimExport(sim);
  names = bindSimWorkspaces(sim, fx, 0, WORKSPACES, OBJECTS);
  wildcard = client(wildcardUrl(fx.endpointUrl));
});
afterAll(async () => {
  for (const c of clients) c.close();
  await sim.close();
});

describe('kcp-sim', () => {
  it('lists a resource across every logical cluster through the wildcard, in pages, each object naming its cluster', async () => {
    const first = must(await wildcard.list(fx.widgets, { limit: 4 }));
    expect(first.items).toHaveLength(4);
    expect(first.metadata.continue).toBeTruthy();
    const all = must(await wildcard.listAll(fx.widgets, { limit: 4 }));
    const byCluster = new Map<string, number>();
    for (const w of all.items) byCluster.set(w.metadata.annotations?.['kcp.io/cluster'] ?? '', (byCluster.get(w.metadata.annotations?.['kcp.io/cluster'] ?? '') ?? 0) + 1);
    expect(new Map([...byCluster].sort())).toEqual(new Map(names.map((n): [string, number] => [n, OBJECTS]).sort()));
    // One logical cluster's own URL shows its objects only; a namespaced wildcard list is refused as kcp refuses it.
    const one = must(await client(clusterUrl(fx.endpointUrl, names[0] ?? '')).list(fx.widgets, { namespace: 'default' }));
    expect(one.items.map((w) => w.metadata.name).sort()).toEqual(['w-0', 'w-1', 'w-2']);
    const refused = await wildcard.list(fx.widgets, { namespace: 'default' });
    expect(E.isLeft(refused) && refused.left.type).toBe('BadRequest');
  });

  it('answers 410 Gone to a watch from a resourceVersion older than the history, and to an expired continue token', async () => {
    const page = must(await wildcard.list(fx.widgets, { limit: 2 }));
    const before = page.metadata.resourceVersion ?? '';
    sim.store.put(fx.widgets, names[0] ?? '', { metadata: { name: 'extra', namespace: 'default' }, spec: { size: 9 } });
    sim.store.compact();
    const line = await firstValueFrom(wildcard.watch(fx.widgets, { resourceVersion: before }));
    const ev = parseWatchLine(clusterName('sim'), line);
    expect(E.isLeft(ev) && ev.left.type).toBe('Gone');
    const next = await wildcard.list(fx.widgets, { limit: 2, continue: page.metadata.continue ?? '' });
    expect(E.isLeft(next) && next.left.type).toBe('Gone');
    // From the current resourceVersion the watch is served: the next change arrives.
    const now = must(await wildcard.list(fx.widgets, { limit: 1 })).metadata.resourceVersion ?? '';
    const next2 = firstValueFrom(wildcard.watch(fx.widgets, { resourceVersion: now, allowWatchBookmarks: false }));
    sim.store.delete(fx.widgets, names[0] ?? '', 'extra');
    expect(parsed(await next2)).toMatchObject({ type: 'DELETED', object: { metadata: { name: 'extra' } } });
  });

  it('sends bookmarks with the current resourceVersion to a watch that asks for them, and none to one that does not', async () => {
    const rv = must(await wildcard.list(apiBindings, { limit: 1 })).metadata.resourceVersion ?? '';
    const silent: string[] = [];
    const sub = wildcard.watch(apiBindings, { resourceVersion: rv, allowWatchBookmarks: false }).subscribe((l) => silent.push(l));
    // Two bookmarks on the asking watch: at least one bookmark round passed the silent one too.
    const marks = await firstValueFrom(wildcard.watch(apiBindings, { resourceVersion: rv }).pipe(take(2), toArray()));
    expect(marks.map((l) => parsed(l).type)).toEqual(['BOOKMARK', 'BOOKMARK']);
    expect(parsed(marks[1] ?? '').object.metadata.resourceVersion).toBe(String(sim.store.resourceVersion));
    // The sentinel: a change reaches the silent watch as its first line.
    sim.store.put(apiBindings, 'sentinel', { metadata: { name: 'sentinel' } });
    await eventually('the sentinel change reaches the watch without bookmarks', () => silent.length > 0);
    sub.unsubscribe();
    expect(silent.map((l) => `${parsed(l).type} ${parsed(l).object.metadata.name ?? ''}`)).toEqual(['ADDED sentinel']);
    sim.store.delete(apiBindings, 'sentinel', 'sentinel');
  });

  it('serves a streaming list: the current objects as ADDED, then the bookmark that ends the initial events', async () => {
    const lines = await firstValueFrom(
      wildcard.watch(apiBindings, { sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan', resourceVersion: '' }).pipe(
        filter((l) => parsed(l).type === 'ADDED' || parsed(l).object.metadata.annotations?.['k8s.io/initial-events-end'] === 'true'),
        take(WORKSPACES + 1),
        toArray(),
      ),
    );
    expect(lines.map((l) => parsed(l).type)).toEqual([...Array<string>(WORKSPACES).fill('ADDED'), 'BOOKMARK']);
  });

  it('refuses writes, a missing token and an unserved resource, each with its own status', async () => {
    const one = client(clusterUrl(fx.endpointUrl, names[0] ?? ''));
    const write = await one.create(fx.widgets, { apiVersion: `${fx.group}/v1`, kind: 'Widget', metadata: { name: 'nope', namespace: 'default' } });
    expect(E.isLeft(write) && write.left.code).toBe(405);
    // TLS verified against the sim's CA, no token: 401.
    const anonymous = await new Promise<number | undefined>((resolve, reject) => {
      https.get(`${sim.origin}/clusters/root:provider/apis/apis.kcp.io/v1alpha1/apibindings`, { ca: sim.ca }, (res) => {
        res.resume();
        resolve(res.statusCode);
      }).on('error', reject);
    });
    expect(anonymous).toBe(401);
    const unserved = await wildcard.list({ group: 'nope.io', version: 'v1', plural: 'things', kind: 'Thing', namespaced: false });
    expect(E.isLeft(unserved) && unserved.left.type).toBe('NotFound');
  });

  it('serves the APIExport provider: every bound workspace engaged, every Widget reconciled; after a 410 the relist drops a Widget deleted in the gap', async () => {
    const fleet = createFleet(apiExportProvider({ management: () => ({ yaml: fx.providerKubeconfig() }), exportName: fx.exportName, managementWatch: { backoff: { initialMs: 10, maxMs: 100 } } }));
    const informers = createInformers({ backoff: { initialMs: 10, maxMs: 100 } });
    const engaged = new Set<string>();
    const reconciled = new Set<string>();
    const lookup = (key: ObjectKey): KubeObject | undefined => {
      const c = fleet.get(key.cluster);
      return c === undefined ? undefined : informers.informer(c, fx.widgets).store.get(key);
    };
    const subs = [
      fleet.engagements.subscribe(({ cluster }) => engaged.add(cluster.name)),
      fleetWatch(fleet, fx.widgets, { informers })
        .pipe(
          reconcile(
            (req) => {
              const c: ClusterName = req.cluster;
              reconciled.add(`${c}/${req.key.name}${lookup(req.key) === undefined ? ' gone' : ''}`);
              return done();
            },
            { lookup, fleet },
          ),
        )
        .subscribe(),
    ];
    try {
      const expected = names.flatMap((n) => Array.from({ length: OBJECTS }, (_, j) => `${n}/w-${j}`));
      await eventually('every workspace engaged and every widget reconciled', () => engaged.size === WORKSPACES && expected.every((k) => reconciled.has(k)));
      // The watches are cut; before they resume, a Widget is deleted and the history compacted.
      const victim = names[1] ?? '';
      sim.dropWatches();
      sim.store.delete(fx.widgets, victim, 'w-0');
      sim.store.compact();
      await eventually('the relist after 410 removes the deleted Widget', () => reconciled.has(`${victim}/w-0 gone`));
      expect(informers.informer(fleet.get(clusterName(victim)) ?? fail(), fx.widgets).store.list().map((w) => w.metadata.name).sort()).toEqual(['w-1', 'w-2']);
    } finally {
      // The last subscriber leaving stops the provider and disengages every workspace.
      for (const s of subs) s.unsubscribe();
    }
  });
});

function fail(): never {
  throw new Error('the workspace is not engaged');
}
