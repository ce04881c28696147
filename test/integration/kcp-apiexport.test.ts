// The APIExport provider against the run's shared kcp: three consumer workspaces reconciled by one
// controller through the export's virtual workspace, a fourth bound later, one unbound, the tenant
// guard, and path-aware naming.
import { beforeAll, describe, expect, it } from 'vitest';
import type { Subscription } from 'rxjs';
import { defer, map } from 'rxjs';
import type { ClusterName, FleetEvent, ObjectKey } from '../../src/index.js';
import { clusterName, E, formatKey, objectKey } from '../../src/index.js';
import type { Outcome } from '../../src/operators/index.js';
import { done, reconcile } from '../../src/operators/index.js';
import type { ApiExportFleet, KcpReport } from '../../src/providers/kcp/index.js';
import { apiExportFleet, retarget } from '../../src/providers/kcp/index.js';
import type { ApiExportFixture, Widget } from '../support/kcp-apiexport.js';
import { createIn, getIn, setupApiExport } from '../support/kcp-apiexport.js';
import { sharedKcp } from '../support/context.js';
import type { KcpWorkspace } from '../support/kcp.js';
import { until } from './targets.js';

const fastWatch = { backoff: { initialMs: 200, factor: 2, maxMs: 2_000, resetAfterMs: 60_000 }, authBackoff: { initialMs: 500, factor: 2, maxMs: 2_000, resetAfterMs: 60_000 } };

interface Running {
  readonly kcp: ApiExportFleet;
  readonly fleetEvents: FleetEvent[];
  readonly outcomes: Outcome[];
  readonly reconciled: { key: ObjectKey; cluster: ClusterName }[];
  readonly reports: KcpReport[];
  stop(): void;
}

/** Runs the controller under test: every Widget gets `status.cluster` and `status.observedSize` written back. */
function runController(fx: ApiExportFixture, pathAware = false): Running {
  const reports: KcpReport[] = [];
  const kcp = apiExportFleet({ kubeconfig: () => ({ yaml: fx.providerKubeconfig() }), resources: [fx.widgets], watch: fastWatch, pathAware, report: (r) => reports.push(r) }, fx.exportName);
  const fleetEvents: FleetEvent[] = [];
  const outcomes: Outcome[] = [];
  const reconciled: { key: ObjectKey; cluster: ClusterName }[] = [];
  const subs: Subscription[] = [
    kcp.provider.subscribe((ev) => fleetEvents.push(ev)),
    kcp
      .events(fx.widgets)
      .pipe(
        reconcile<Widget>(
          (req, ctx) => {
            reconciled.push({ key: req.key, cluster: req.cluster });
            const w = req.object;
            const c = ctx.fleet?.get(req.cluster);
            if (w === undefined || c === undefined) return done();
            const logical = kcp.logicalCluster(req.cluster) ?? '';
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
          { lookup: kcp.lookup(fx.widgets), fleet: kcp, concurrency: 4 },
        ),
      )
      .subscribe((o) => outcomes.push(o)),
  ];
  return {
    kcp,
    fleetEvents,
    outcomes,
    reconciled,
    reports,
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
  await until(`status of ${ws.path}/${name}`, async () => {
    const w = await readWidget(fx, ws, name);
    return w?.status?.cluster === ws.logicalCluster && w.status.observedSize === size ? true : undefined;
  }, 60_000);
}

describe('apiExport provider on a real kcp', () => {
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
      // Reads come from the wildcard cache, per workspace.
      expect(run.kcp.lookup(fx.widgets)(objectKey(clusterName(a.logicalCluster), 'default', 'shared'))?.spec?.size).toBe(1);
      expect(run.kcp.list(fx.widgets, clusterName(b.logicalCluster)).map((w) => w.metadata.name).sort()).toEqual(['only-b', 'shared']);
      // One wildcard watch per endpoint and resource: the engaged clusters opened none.
      const watched = new Set(run.reports.flatMap((r) => (r.kind === 'watch' ? [`${r.health.cluster} ${r.health.resource}`] : [])));
      expect([...watched].every((w) => w.includes('/clusters/*') || w.startsWith('kcp-provider:'))).toBe(true);
    } finally {
      run.stop();
    }
  });

  it('engages a workspace bound later without a restart, and disengages an unbound one for good', async () => {
    const run = runController(fx);
    try {
      const [a] = fx.consumers;
      if (a === undefined) throw new Error('fixture');
      await until('three engaged', () => Promise.resolve(run.kcp.clusters().length >= 3 ? true : undefined));
      const d = await fx.addConsumer();
      fx.consumers.push(d);
      await until(`${d.path} engaged`, () => Promise.resolve(run.kcp.get(clusterName(d.logicalCluster)) === undefined ? undefined : true), 60_000);
      await createWidget(fx, d, 'shared', 4);
      await statusLands(fx, d, 'shared', 4);

      await fx.unbind(a);
      const aName = clusterName(a.logicalCluster);
      await until(`${a.path} disengaged`, () =>
        Promise.resolve(run.fleetEvents.some((e) => e.type === 'disengaged' && e.name === aName) ? true : undefined),
      );
      expect(run.kcp.get(aName)).toBeUndefined();
      expect(run.kcp.lookup(fx.widgets)(objectKey(aName, 'default', 'shared'))).toBeUndefined();
      const seen = run.reconciled.length;
      const afterUnbind = (): number => run.reconciled.slice(seen).filter((r) => r.cluster === aName).length;
      // Activity elsewhere; nothing for the unbound workspace.
      await createWidget(fx, d, 'after-unbind', 5);
      await statusLands(fx, d, 'after-unbind', 5);
      expect(afterUnbind()).toBe(0);
      const events = run.fleetEvents.filter((e) => (e.type === 'engaged' ? e.cluster.name === aName : e.name === aName)).map((e) => e.type);
      expect(events).toEqual(['engaged', 'disengaged']);
      // Bind it again: engaged again (its objects were removed by kcp with the binding).
      await fx.bind(a);
      await until(`${a.path} engaged again`, () => Promise.resolve(run.kcp.get(aName) === undefined ? undefined : true), 60_000);
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
      const fromB = await until('b/only-b cached', () => Promise.resolve(run.kcp.lookup(fx.widgets)(objectKey(bName, 'default', 'only-b'))));
      const cClient = await until('c engaged', () => Promise.resolve(run.kcp.get(cName)?.client));
      const { resourceVersion: _rv, uid: _uid, ...meta } = fromB.metadata;
      const refused = await cClient.apply(fx.widgets, { ...fromB, metadata: meta }, { fieldManager: 'kcp-test' });
      expect(E.isLeft(refused)).toBe(true);
      if (E.isLeft(refused)) {
        expect(refused.left._tag).toBe('Forbidden');
        expect(refused.left.message).toContain(`"${b.logicalCluster}"`);
        expect(refused.left.message).toContain(`"${c.logicalCluster}"`);
      }
      expect(await readWidget(fx, c, 'only-b')).toBeUndefined();
      // A merge patch that claims another cluster is refused the same way.
      const patched = await cClient.patch(fx.widgets, 'shared', { metadata: { annotations: { 'kcp.io/cluster': b.logicalCluster } } }, { type: 'merge', namespace: 'default' });
      expect(E.isLeft(patched) && patched.left._tag === 'Forbidden').toBe(true);

      // Targeted on purpose: retarget() drops the source cluster's claim; the write lands in c only.
      const copy = retarget(fromB);
      const allowed = await cClient.create(fx.widgets, { apiVersion: `${fx.group}/v1`, kind: 'Widget', metadata: { name: 'copied-from-b', namespace: 'default', annotations: copy.metadata.annotations ?? {} }, spec: copy.spec ?? {} });
      expect(E.isRight(allowed)).toBe(true);
      expect((await readWidget(fx, c, 'copied-from-b'))?.metadata.annotations?.['kcp.io/cluster']).toBe(c.logicalCluster);
      expect(await readWidget(fx, b, 'copied-from-b')).toBeUndefined();
      // And b's own client writes b's object.
      const bClient = run.kcp.get(bName)?.client;
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
      const byPath = await until(`${b.path} engaged by path`, () => Promise.resolve(run.kcp.get(clusterName(b.path))), 60_000);
      expect(byPath.name).toBe(b.path);
      expect(byPath.labels?.['kcp.io/cluster']).toBe(b.logicalCluster);
      expect(run.kcp.get(clusterName(b.logicalCluster))?.name).toBe(b.path);
      expect(run.kcp.logicalCluster(clusterName(b.path))).toBe(b.logicalCluster);
      await until('keys by path', () =>
        Promise.resolve(run.reconciled.some((r) => r.key.cluster === b.path && r.key.name === 'shared') ? true : undefined),
      );
      expect(run.kcp.lookup(fx.widgets)(objectKey(clusterName(b.path), 'default', 'shared'))?.spec?.size).toBe(2);
      expect(run.fleetEvents.every((e) => (e.type === 'engaged' ? e.cluster.name.startsWith('root:') : true))).toBe(true);
    } finally {
      run.stop();
    }
  });

});
