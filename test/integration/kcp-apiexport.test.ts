// The APIExport provider against the run's shared kcp, through the common path (createFleet,
// fleetWatch over shared informers, reconcile): three consumer workspaces reconciled by one
// controller through the export's virtual workspace with no watch of their own, a fourth bound
// later, one unbound, the tenant guard, path-aware naming, and a namespaced watch.
import { beforeAll, describe, expect, it } from 'vitest';
import type { Subscription } from 'rxjs';
import { defer, map, tap } from 'rxjs';
import { E } from '../../src/fp/index.js';
import type { Cluster, ClusterName, KeyedEvent, ObjectKey } from '../../src/index.js';
import { clusterName, done, formatKey, objectKey } from '../../src/index.js';
import type { Outcome } from '../../src/operators/index.js';
import { reconcile } from '../../src/operators/index.js';
import { apiExportProvider, retarget } from '../../src/providers/kcp/index.js';
import type { Fleet, FleetEvent, Informers, ProviderReport } from '../../src/streams/index.js';
import { createFleet, createInformers, engaged, fleetWatch } from '../../src/streams/index.js';
import type { ApiExportFixture, Widget } from '../support/kcp-apiexport.js';
import { createIn, getIn, setupApiExport } from '../support/kcp-apiexport.js';
import { sharedKcp } from '../support/context.js';
import type { KcpWorkspace } from '../support/kcp.js';
import { eventually } from '../support/wait.js';

const fastWatch = { backoff: { initialMs: 200, factor: 2, maxMs: 2_000, resetAfterMs: 60_000 }, authBackoff: { initialMs: 500, factor: 2, maxMs: 2_000, resetAfterMs: 60_000 } };

interface Running {
  readonly fleet: Fleet;
  readonly informers: Informers;
  readonly fleetEvents: FleetEvent[];
  readonly outcomes: Outcome[];
  readonly reconciled: { key: ObjectKey; cluster: ClusterName }[];
  readonly reports: ProviderReport[];
  /** Watches asked of an engaged workspace's own client (none while its cache serves them). */
  readonly ownWatches: string[];
  lookup(key: ObjectKey): Widget | undefined;
  stop(): void;
}

/** The cluster as engaged, its client recording the watches asked of it. */
function recordingWatches(cluster: Cluster, into: string[]): Cluster {
  const { client } = cluster;
  return { ...cluster, client: { ...client, watch: (r, o) => (into.push(`${cluster.name} ${r.plural}${o?.namespace === undefined ? '' : ` ns=${o.namespace}`}`), client.watch(r, o)) } };
}

/** Runs the controller under test: every Widget gets `status.cluster` and `status.observedSize` written back. */
function runController(fx: ApiExportFixture, pathAware = false): Running {
  const fleetEvents: FleetEvent[] = [];
  const ownWatches: string[] = [];
  const provider = apiExportProvider({ management: () => ({ yaml: fx.providerKubeconfig() }), managementWatch: fastWatch, pathAware, exportName: fx.exportName }).pipe(
    tap((ev) => fleetEvents.push(ev)),
    map((ev) => (ev.type === 'engaged' ? engaged(recordingWatches(ev.cluster, ownWatches)) : ev)),
  );
  const fleet = createFleet(provider);
  const informers = createInformers(fastWatch);
  const lookup = (key: ObjectKey): Widget | undefined => {
    const c = fleet.get(key.cluster);
    return c === undefined ? undefined : informers.informer(c, fx.widgets).store.get(key);
  };
  const outcomes: Outcome[] = [];
  const reports: ProviderReport[] = [];
  const reconciled: { key: ObjectKey; cluster: ClusterName }[] = [];
  const subs: Subscription[] = [
    fleet.reports.subscribe((r) => reports.push(r)),
    fleetWatch(fleet, fx.widgets, { informers })
      .pipe(
        reconcile<Widget>(
          (req, ctx) => {
            reconciled.push({ key: req.key, cluster: req.cluster });
            const w = req.object;
            const c = ctx.fleet?.get(req.cluster);
            if (w === undefined || c === undefined) return done();
            // The logical cluster is the cluster's identity.
            const logical = c.identity?.id ?? '';
            if (w.status?.cluster === logical && w.status.observedSize === w.spec?.size) return done();
            return defer(() =>
              c.client.patch(fx.widgets, req.key.name, { status: { cluster: logical, observedSize: w.spec?.size } }, { type: 'merge', namespace: req.key.namespace, subresource: 'status' }),
            ).pipe(
              map((r) => {
                if (E.isLeft(r)) throw new Error(r.left.message);
                return done();
              }),
            );
          },
          { lookup, fleet, concurrency: 4 },
        ),
      )
      .subscribe((o) => outcomes.push(o)),
  ];
  return {
    fleet,
    informers,
    fleetEvents,
    outcomes,
    reconciled,
    reports,
    ownWatches,
    lookup,
    stop: () => {
      for (const s of subs) s.unsubscribe();
    },
  };
}

function widget(name: string, size: number): Widget {
  return { apiVersion: '', kind: 'Widget', metadata: { name, namespace: 'default' }, spec: { size } };
}

async function createWidget(fx: ApiExportFixture, ws: KcpWorkspace, name: string, size: number): Promise<void> {
  await createIn(fx.workspaceKubeConfig(ws), `/apis/${fx.group}/v1/namespaces/default/widgets`, { ...widget(name, size), apiVersion: `${fx.group}/v1` });
}

async function readWidget(fx: ApiExportFixture, ws: KcpWorkspace, name: string): Promise<Widget | undefined> {
  return (await getIn(fx.workspaceKubeConfig(ws), `/apis/${fx.group}/v1/namespaces/default/widgets/${name}`)) as Widget | undefined;
}

async function statusLands(fx: ApiExportFixture, ws: KcpWorkspace, name: string, size: number): Promise<void> {
  await eventually(`status of ${ws.path}/${name}`, async () => {
    const w = await readWidget(fx, ws, name);
    return w?.status?.cluster === ws.logicalCluster && w.status.observedSize === size ? true : undefined;
  }, { timeoutMs: 60_000 });
}

describe('apiExportProvider on a real kcp', () => {
  let fx: ApiExportFixture;
  beforeAll(async () => {
    fx = await setupApiExport(sharedKcp().adminKubeconfigPath, { consumers: 3 });
  });

  it('reconciles objects of three consumer workspaces with the right cluster, and the same name never collides', async () => {
    const [a, b, c] = fx.consumers;
    if (a === undefined || b === undefined || c === undefined) throw new Error('fixture');
    // The same namespace/name in every workspace, each with its own size.
    await createWidget(fx, a, 'shared', 1);
    await createWidget(fx, b, 'shared', 2);
    await createWidget(fx, c, 'shared', 3);
    await createWidget(fx, b, 'only-b', 20);
    const run = runController(fx);
    try {
      await statusLands(fx, a, 'shared', 1);
      await statusLands(fx, b, 'shared', 2);
      await statusLands(fx, c, 'shared', 3);
      await statusLands(fx, b, 'only-b', 20);
      // Objects created after engagement are reconciled too.
      await createWidget(fx, c, 'late', 30);
      await statusLands(fx, c, 'late', 30);
      const engagedNames = run.fleetEvents.flatMap((e) => (e.type === 'engaged' ? [e.cluster.name as string] : []));
      expect(new Set(engagedNames)).toEqual(new Set([a.logicalCluster, b.logicalCluster, c.logicalCluster]));
      // Keys carry the logical cluster: three distinct keys for 'shared'.
      const sharedKeys = new Set(run.reconciled.filter((r) => r.key.name === 'shared').map((r) => formatKey(r.key)));
      expect(sharedKeys).toEqual(new Set([a, b, c].map((ws) => formatKey(objectKey(clusterName(ws.logicalCluster), 'default', 'shared')))));
      for (const r of run.reconciled) expect(r.key.cluster).toBe(r.cluster);
      // 'only-b' exists only in b, and no status was written anywhere else.
      expect(await readWidget(fx, a, 'only-b')).toBeUndefined();
      expect(await readWidget(fx, c, 'only-b')).toBeUndefined();
      expect(run.outcomes.filter((o) => o.result === 'error' || o.result === 'terminal')).toEqual([]);
      // Reads come from the wildcard cache, per workspace (its informer's store is a view of it).
      expect(run.lookup(objectKey(clusterName(a.logicalCluster), 'default', 'shared'))?.spec?.size).toBe(1);
      const bCluster = run.fleet.get(clusterName(b.logicalCluster));
      if (bCluster === undefined) throw new Error('b engaged');
      expect(run.informers.informer(bCluster, fx.widgets).store.list().map((w) => w.metadata.name).sort()).toEqual(['only-b', 'shared']);
      // One wildcard watch per endpoint and resource: the engaged clusters opened none.
      expect(run.fleet.clusters().every((cl) => cl.cache !== undefined)).toBe(true);
      expect(run.ownWatches).toEqual([]);
      // Each cluster says who it is.
      expect(run.fleet.get(clusterName(a.logicalCluster))?.identity).toEqual({ provider: 'kcp-apiexport', from: `workspace ${a.logicalCluster} via APIExport ${fx.exportName}`, id: a.logicalCluster });
      expect(run.fleet.get(clusterName(a.logicalCluster))?.labels).toEqual({ 'kcp.io/cluster': a.logicalCluster });
      expect(run.reports.filter((r) => r.type === 'engaged').length).toBeGreaterThanOrEqual(3);
      expect(run.reports.filter((r) => r.type === 'error' || r.type === 'skipped')).toEqual([]);
    } finally {
      run.stop();
    }
  });

  it('engages a workspace bound later without a restart, and disengages an unbound one for good', async () => {
    const run = runController(fx);
    try {
      const [a] = fx.consumers;
      if (a === undefined) throw new Error('fixture');
      await eventually('three engaged', () => Promise.resolve(run.fleet.clusters().length >= 3 ? true : undefined));
      const d = await fx.addConsumer();
      fx.consumers.push(d);
      await eventually(`${d.path} engaged`, () => Promise.resolve(run.fleet.get(clusterName(d.logicalCluster)) === undefined ? undefined : true), { timeoutMs: 60_000 });
      await createWidget(fx, d, 'shared', 4);
      await statusLands(fx, d, 'shared', 4);

      await fx.unbind(a);
      const aName = clusterName(a.logicalCluster);
      await eventually(
        `${a.path} disengaged`,
        () =>
        Promise.resolve(run.fleetEvents.some((e) => e.type === 'disengaged' && e.cluster === aName) ? true : undefined),
      );
      expect(run.fleet.get(aName)).toBeUndefined();
      expect(run.lookup(objectKey(aName, 'default', 'shared'))).toBeUndefined();
      expect(run.reports.find((r) => r.type === 'disengaged' && r.cluster === aName)).toMatchObject({ provider: 'kcp-apiexport' });
      const seen = run.reconciled.length;
      const afterUnbind = (): number => run.reconciled.slice(seen).filter((r) => r.cluster === aName).length;
      // Activity elsewhere; nothing for the unbound workspace.
      await createWidget(fx, d, 'after-unbind', 5);
      await statusLands(fx, d, 'after-unbind', 5);
      expect(afterUnbind()).toBe(0);
      const events = run.fleetEvents.filter((e) => (e.type === 'engaged' ? e.cluster.name === aName : e.type === 'disengaged' && e.cluster === aName)).map((e) => e.type);
      expect(events).toEqual(['engaged', 'disengaged']);
      // Bind it again: engaged again (its objects were removed by kcp with the binding).
      await fx.bind(a);
      await eventually(`${a.path} engaged again`, () => Promise.resolve(run.fleet.get(aName) === undefined ? undefined : true), { timeoutMs: 60_000 });
    } finally {
      run.stop();
    }
  });

  it('refuses a cross-cluster write with an error naming both clusters, and allows it when targeted explicitly', async () => {
    const run = runController(fx);
    try {
      const [, b, c] = fx.consumers;
      if (b === undefined || c === undefined) throw new Error('fixture');
      const bName = clusterName(b.logicalCluster);
      const cName = clusterName(c.logicalCluster);
      const fromB = await eventually('b/only-b cached', () => Promise.resolve(run.lookup(objectKey(bName, 'default', 'only-b'))));
      const cClient = await eventually('c engaged', () => Promise.resolve(run.fleet.get(cName)?.client));
      const { resourceVersion: _rv, uid: _uid, ...meta } = fromB.metadata;
      const refused = await cClient.apply(fx.widgets, { ...fromB, metadata: meta }, { fieldManager: 'kcp-test' });
      expect(E.isLeft(refused)).toBe(true);
      if (E.isLeft(refused)) {
        expect(refused.left.type).toBe('Forbidden');
        expect(refused.left.message).toContain(`"${b.logicalCluster}"`);
        expect(refused.left.message).toContain(`"${c.logicalCluster}"`);
      }
      expect(await readWidget(fx, c, 'only-b')).toBeUndefined();
      // A merge patch that claims another cluster is refused the same way.
      const patched = await cClient.patch(fx.widgets, 'shared', { metadata: { annotations: { 'kcp.io/cluster': b.logicalCluster } } }, { type: 'merge', namespace: 'default' });
      expect(E.isLeft(patched) && patched.left.type === 'Forbidden').toBe(true);

      // Targeted on purpose: retarget() drops the source cluster's claim; the write lands in c only.
      const copy = retarget(fromB);
      const allowed = await cClient.create(fx.widgets, { apiVersion: `${fx.group}/v1`, kind: 'Widget', metadata: { name: 'copied-from-b', namespace: 'default', annotations: copy.metadata.annotations ?? {} }, spec: copy.spec ?? {} });
      expect(E.isRight(allowed)).toBe(true);
      expect((await readWidget(fx, c, 'copied-from-b'))?.metadata.annotations?.['kcp.io/cluster']).toBe(c.logicalCluster);
      expect(await readWidget(fx, b, 'copied-from-b')).toBeUndefined();
      // And b's own client writes b's object.
      const bClient = run.fleet.get(bName)?.client;
      const own = await bClient?.apply(fx.widgets, { metadata: { name: 'only-b', namespace: 'default', annotations: { 'kcp.io/cluster': b.logicalCluster } }, spec: { size: 20, owner: 'b' } }, { fieldManager: 'kcp-test' });
      expect(own !== undefined && E.isRight(own)).toBe(true);
    } finally {
      run.stop();
    }
  });

  it('names clusters by workspace path when path-aware, and still finds them by logical name', async () => {
    const run = runController(fx, true);
    try {
      const [, b] = fx.consumers;
      if (b === undefined) throw new Error('fixture');
      const byPath = await eventually(`${b.path} engaged by path`, () => Promise.resolve(run.fleet.get(clusterName(b.path))), { timeoutMs: 60_000 });
      expect(byPath.name).toBe(b.path);
      expect(byPath.labels?.['kcp.io/cluster']).toBe(b.logicalCluster);
      // The logical cluster is the cluster's identity (and label): found from either name.
      expect(run.fleet.clusters().find((cl) => cl.identity?.id === b.logicalCluster)?.name).toBe(b.path);
      expect(byPath.identity).toEqual({ provider: 'kcp-apiexport', from: `workspace ${b.path} via APIExport ${fx.exportName}`, id: b.logicalCluster });
      expect(byPath.labels?.['kcp.io/path']).toBe(b.path);
      await eventually(
        'keys by path',
        () =>
        Promise.resolve(run.reconciled.some((r) => r.key.cluster === b.path && r.key.name === 'shared') ? true : undefined),
      );
      expect(run.lookup(objectKey(clusterName(b.path), 'default', 'shared'))?.spec?.size).toBe(2);
      expect(run.ownWatches).toEqual([]);
      expect(run.reports.filter((r) => r.type === 'error')).toEqual([]);
      expect(run.fleetEvents.every((e) => (e.type === 'engaged' ? e.cluster.name.startsWith('root:') : true))).toBe(true);
    } finally {
      run.stop();
    }
  });

  it('serves a namespaced watch through each workspace\'s own URL, since kcp refuses a namespaced wildcard watch', async () => {
    const run = runController(fx);
    const seen = new Map<string, KeyedEvent<Widget>>();
    let sub: Subscription | undefined;
    try {
      const [, b, c] = fx.consumers;
      if (b === undefined || c === undefined) throw new Error('fixture');
      await eventually('b and c engaged', () => Promise.resolve(run.fleet.get(clusterName(b.logicalCluster)) !== undefined && run.fleet.get(clusterName(c.logicalCluster)) !== undefined ? true : undefined), { timeoutMs: 60_000 });
      sub = fleetWatch(run.fleet, fx.widgets, { informers: run.informers, namespace: 'default' }).subscribe((ev) => {
        if (ev.type === 'applied') seen.set(formatKey(ev.key), ev);
      });
      const key = (ws: KcpWorkspace, name: string): string => formatKey(objectKey(clusterName(ws.logicalCluster), 'default', name));
      await eventually('b/only-b and c/shared through namespaced watches', () => Promise.resolve(seen.has(key(b, 'only-b')) && seen.has(key(c, 'shared')) ? true : undefined));
      await createWidget(fx, c, 'namespaced', 7);
      await eventually('a live change through c\'s own watch', () => Promise.resolve(seen.has(key(c, 'namespaced')) ? true : undefined));
      expect(run.ownWatches).toContain(`${c.logicalCluster} widgets ns=default`);
      expect(run.ownWatches.every((w) => w.endsWith(' ns=default'))).toBe(true);
    } finally {
      sub?.unsubscribe();
      run.stop();
    }
  });
});
