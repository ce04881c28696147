// Sharding is a filter on the fleet, so kcp's APIExport provider is sharded like any other: two
// replicas (two runs in this process, each with its own Lease and identity) split the workspaces
// bound to an export by rendezvous hashing, each reconciles only its own, and when one stops the
// other takes them all. The Leases live in the provider's own workspace.
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createClusterClient } from '../../src/client/index.js';
import { E } from '../../src/fp/index.js';
import type { Cluster, ClusterName, RunHandle } from '../../src/index.js';
import { clusterName, controller, done, leases, run } from '../../src/index.js';
import { apiExportProvider } from '../../src/providers/kcp/index.js';
import { rendezvousAssignments } from '../../src/runtime/ha/rendezvous.js';
import type { Widget } from '../support/kcp-apiexport.js';
import { createIn, setupApiExport } from '../support/kcp-apiexport.js';
import { sharedKcp } from '../support/context.js';
import { until } from './targets.js';

const timing = { leaseDurationMs: 3_000, renewDeadlineMs: 2_000, retryPeriodMs: 500 };
const fastWatch = { backoff: { initialMs: 200, maxMs: 2_000 }, authBackoff: { initialMs: 500, maxMs: 2_000 } };

describe('sharding the workspaces of a kcp APIExport', () => {
  it('splits the bound workspaces between two replicas by rendezvous hashing, and one takes all when the other stops', async () => {
    const fx = await setupApiExport(sharedKcp().adminKubeconfigPath, { consumers: 4 });
    for (const ws of fx.consumers) {
      await createIn(fx.workspaceKubeConfig(ws), `/apis/${fx.group}/v1/namespaces/default/widgets`, { apiVersion: `${fx.group}/v1`, kind: 'Widget', metadata: { name: 'w', namespace: 'default' }, spec: { size: 1 } });
    }
    const made = createClusterClient(clusterName('provider'), { yaml: fx.providerKubeconfig() });
    if (E.isLeft(made)) throw new Error(made.left.message);
    const home: Cluster = { name: clusterName('provider'), client: made.right };
    const reconciledBy = new Map<string, Set<ClusterName>>();
    const replica = async (identity: string): Promise<RunHandle> => {
      const seen = new Set<ClusterName>();
      reconciledBy.set(identity, seen);
      const c = controller<Widget>({
        name: 'widgets-sharded',
        provider: apiExportProvider({ kubeconfig: () => ({ yaml: fx.providerKubeconfig() }), managementWatch: fastWatch }, fx.exportName),
        resource: fx.widgets,
        watchConfig: fastWatch,
        reconcile: (req) => {
          seen.add(req.cluster);
          return done();
        },
      });
      return run(c, { logger: pino({ level: 'silent' }), http: false, signals: false, replicas: { type: 'sharding', home, namespace: 'default', identity, timing } });
    };
    const a = await replica('kcp-replica-a');
    const b = await replica('kcp-replica-b');
    try {
      const names = (h: RunHandle): ClusterName[] => h.fleet.clusters().map((c) => c.name);
      // Both confirmed, every workspace engaged by exactly one of them.
      await until(
        'the workspaces split between both replicas',
        () => {
          const [x, y] = [names(a), names(b)];
          return x.length + y.length === fx.consumers.length && new Set([...x, ...y]).size === fx.consumers.length ? true : undefined;
        },
        60_000,
      );
      const all = [...names(a), ...names(b)];
      const expected = rendezvousAssignments([{ identity: 'kcp-replica-a', weight: 1 }, { identity: 'kcp-replica-b', weight: 1 }], all);
      expect(new Set(names(a))).toEqual(new Set(all.filter((n) => expected.get(n) === 'kcp-replica-a')));
      expect(new Set(names(b))).toEqual(new Set(all.filter((n) => expected.get(n) === 'kcp-replica-b')));
      // Each reconciled the widgets of its own workspaces and none of the other's.
      await until('each replica reconciles its workspaces', () => ((reconciledBy.get('kcp-replica-a')?.size ?? 0) + (reconciledBy.get('kcp-replica-b')?.size ?? 0) >= all.length ? true : undefined), 30_000);
      for (const [id, seen] of reconciledBy) for (const n of seen) expect(expected.get(n)).toBe(id);

      await a.stop();
      await until('the remaining replica runs every workspace', () => (names(b).length === fx.consumers.length ? true : undefined), 30_000);
      await b.stop();
      // Both deleted their membership Leases on the way out: nothing is left behind.
      const left = await made.right.list(leases, { namespace: 'default', labelSelector: 'rxfleet.io/replicas=widgets-sharded' });
      expect(E.isRight(left) && left.right.items.map((l) => l.metadata.name)).toEqual([]);
    } finally {
      await a.stop();
      await b.stop();
      made.right.close();
    }
  }, 240_000);
});
