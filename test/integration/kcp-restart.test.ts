// The APIExport provider across a kcp restart (a private kcp: the shared one must never restart),
// through the common path (createFleet, fleetWatch over shared informers, reconcile). kcp writes a
// new admin token at each start, so the provider's kubeconfig function is re-read after the 401s;
// the watches resume, every failing source recovers, and the final state is exact.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Subscription } from 'rxjs';
import { defer, map } from 'rxjs';
import { E } from '../../src/fp/index.js';
import type { ObjectKey } from '../../src/index.js';
import { clusterName, done, objectKey } from '../../src/index.js';
import { reconcile } from '../../src/operators/index.js';
import { apiExportProvider } from '../../src/providers/kcp/index.js';
import type { ProviderReport, WatchHealth } from '../../src/streams/index.js';
import { createFleet, createInformers, fleetWatch } from '../../src/streams/index.js';
import type { ApiExportFixture, Widget } from '../support/kcp-apiexport.js';
import { createIn, getIn, setupApiExport } from '../support/kcp-apiexport.js';
import type { KcpHandle } from '../support/kcp.js';
import { startKcp } from '../support/kcp.js';
import { requestJson } from '../support/http.js';
import { eventually } from '../support/wait.js';

const fastWatch = { backoff: { initialMs: 200, factor: 2, maxMs: 2_000, resetAfterMs: 60_000 }, authBackoff: { initialMs: 500, factor: 2, maxMs: 2_000, resetAfterMs: 60_000 } };

describe('apiExportProvider across a kcp restart', () => {
  let kcp: KcpHandle;
  let fx: ApiExportFixture;
  beforeAll(async () => {
    kcp = await startKcp();
    fx = await setupApiExport(kcp.adminKubeconfigPath, { consumers: 2 });
  });
  afterAll(async () => {
    await kcp.stop();
  });

  it('recovers after a restart with a new admin token, and the final state is exact', async () => {
    const [a, b] = fx.consumers;
    if (a === undefined || b === undefined) throw new Error('fixture');
    const path = `/apis/${fx.group}/v1/namespaces/default/widgets`;
    const create = (ws: typeof a, name: string, size: number): Promise<unknown> =>
      createIn(fx.workspaceKubeConfig(ws), path, { apiVersion: `${fx.group}/v1`, kind: 'Widget', metadata: { name, namespace: 'default' }, spec: { size } });
    const statusOf = async (ws: typeof a, name: string): Promise<Widget | undefined> => (await getIn(fx.workspaceKubeConfig(ws), `${path}/${name}`)) as Widget | undefined;
    const lands = (ws: typeof a, name: string, size: number): Promise<true> =>
      eventually(`status of ${ws.path}/${name}`, async () => ((await statusOf(ws, name))?.status?.observedSize === size ? true : undefined), { timeoutMs: 90_000 });

    await create(a, 'before', 1);
    await create(b, 'before', 2);
    const reports: ProviderReport[] = [];
    const health: WatchHealth[] = [];
    let reads = 0;
    const fleet = createFleet(
      apiExportProvider(
        { management: () => {
            reads++;
            return { yaml: fx.providerKubeconfig() };
          }, managementWatch: fastWatch, exportName: fx.exportName },
      ),
    );
    const informers = createInformers(fastWatch);
    const lookup = (key: ObjectKey): Widget | undefined => {
      const c = fleet.get(key.cluster);
      return c === undefined ? undefined : informers.informer(c, fx.widgets).store.get(key);
    };
    const subs: Subscription[] = [
      fleet.reports.subscribe((r) => reports.push(r)),
      // The served resource's wildcard watch, as each workspace's informer sees it.
      fleet.engagements.subscribe(({ cluster }) => subs.push(informers.informer(cluster, fx.widgets).health.subscribe((h) => health.push(h)))),
      fleetWatch(fleet, fx.widgets, { informers })
        .pipe(
          reconcile<Widget>(
            (req, ctx) => {
              const w = req.object;
              const c = ctx.fleet?.get(req.cluster);
              if (w === undefined || c === undefined || w.status?.observedSize === w.spec?.size) return done();
              return defer(() => c.client.patch(fx.widgets, req.key.name, { status: { observedSize: w.spec?.size } }, { type: 'merge', namespace: req.key.namespace, subresource: 'status' })).pipe(
                map((r) => {
                  if (E.isLeft(r)) throw new Error(r.left.message);
                  return done();
                }),
              );
            },
            { lookup, fleet, backoff: { initialMs: 100, maxMs: 2_000 } },
          ),
        )
        .subscribe(),
    ];
    try {
      await lands(a, 'before', 1);
      await lands(b, 'before', 2);
      const readsBefore = reads;

      await kcp.restart();
      // Changes made right after the restart, while the provider is still reconnecting.
      await create(a, 'after', 10);
      await requestJson(fx.workspaceKubeConfig(b), 'DELETE', `${path}/before`);
      await create(b, 'after', 20);

      await lands(a, 'after', 10);
      await lands(b, 'after', 20);
      // The new token was read from the kubeconfig function (after 401s).
      expect(reads).toBeGreaterThan(readsBefore);
      // The provider's own wildcard watches report their 401s as a failing source; the served
      // resource's wildcard watch shows them in the workspaces' informer health.
      const failing = reports.flatMap((r) => (r.type === 'source' && r.state === 'failing' ? [r] : []));
      expect(failing.some((r) => r.error === 'Unauthorized') || health.some((h) => h.lastError?.type === 'Unauthorized')).toBe(true);
      // Every source that failed recovered.
      await eventually(
        'every failing source recovered',
        () =>
        Promise.resolve(failing.every((f) => reports.some((r) => r.type === 'source' && r.state === 'recovered' && r.management === f.management && r.resource === f.resource && r.at >= f.at)) ? true : undefined),
      );
      // The cache is exactly the server's state, per workspace.
      const names = (ws: typeof a): string[] => {
        const c = fleet.get(clusterName(ws.logicalCluster));
        return c === undefined ? [] : informers.informer(c, fx.widgets).store.list().map((w) => w.metadata.name ?? '').sort();
      };
      await eventually('cache equals server', () => Promise.resolve(names(b).join(',') === 'after' ? true : undefined));
      expect(names(a)).toEqual(['after', 'before']);
      expect(names(b)).toEqual(['after']);
      expect(lookup(objectKey(clusterName(b.logicalCluster), 'default', 'before'))).toBeUndefined();
      expect(fleet.clusters().map((c) => c.name as string).sort()).toEqual([a.logicalCluster, b.logicalCluster].sort());
    } finally {
      for (const s of subs) s.unsubscribe();
    }
  });
});
