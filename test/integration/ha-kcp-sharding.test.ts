// Sharding is a filter on the fleet, so kcp's APIExport provider is sharded like any other: two
// replicas (two runs in this process, each with its own Lease and identity) split the workspaces
// bound to an export by rendezvous hashing, each reconciles only its own, and when one stops the
// other takes them all. The Leases live in the provider's own workspace.
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createClusterClient } from '../../src/client/index.js';
import { E } from '../../src/fp/index.js';
import type { Cluster, ClusterName, RunHandle } from '../../src/index.js';
import type { ReplicaState } from '../../src/runtime/index.js';
import { clusterName, controller, done, leases, run } from '../../src/index.js';
import { apiExportProvider } from '../../src/providers/kcp/index.js';
import { rendezvousAssignments } from '../../src/runtime/ha/rendezvous.js';
import type { Widget } from '../support/kcp-apiexport.js';
import { createIn, setupApiExport } from '../support/kcp-apiexport.js';
import { sharedKcp } from '../support/context.js';
import { eventually } from '../support/wait.js';

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
    // Which replica reconciled which widget, per workspace: `w2` widgets are created after the split.
    const reconciled: { readonly by: string; readonly cluster: ClusterName; readonly name: string }[] = [];
    const latest = new Map<string, ReplicaState>();
    const replica = async (identity: string): Promise<RunHandle> => {
      const c = controller<Widget>({
        name: 'widgets-sharded',
        provider: apiExportProvider({ management: () => ({ yaml: fx.providerKubeconfig() }), managementWatch: fastWatch, exportName: fx.exportName }),
        resource: fx.widgets,
        watchOptions: fastWatch,
        reconcile: (req) => {
          reconciled.push({ by: identity, cluster: req.cluster, name: req.key.name });
          return done();
        },
      });
      const h = await run(c, { logger: pino({ level: 'silent' }), http: false, signals: false, replicas: { type: 'sharding', home, namespace: 'default', identity, timing } });
      h.replica?.states.subscribe((s: ReplicaState) => latest.set(identity, s));
      return h;
    };
    const a = await replica('kcp-replica-a');
    const b = await replica('kcp-replica-b');
    try {
      const names = (h: RunHandle): ClusterName[] => h.fleet.clusters().map((c) => c.name);
      const settled = (id: string): boolean => {
        const s = latest.get(id);
        return s?.type === 'sharing' && s.confirmed && s.members.length === 2;
      };
      // Both confirmed in the two-member view (a replica alone at first legitimately runs them all),
      // and every workspace engaged by exactly one of them.
      await eventually(
        'the workspaces split between both replicas',
        () => {
          const [x, y] = [names(a), names(b)];
          return settled('kcp-replica-a') && settled('kcp-replica-b') && x.length + y.length === fx.consumers.length && new Set([...x, ...y]).size === fx.consumers.length ? true : undefined;
        },
        { timeoutMs: 60_000 },
      );
      const all = [...names(a), ...names(b)];
      const expected = rendezvousAssignments([{ identity: 'kcp-replica-a', weight: 1 }, { identity: 'kcp-replica-b', weight: 1 }], all);
      expect(new Set(names(a))).toEqual(new Set(all.filter((n) => expected.get(n) === 'kcp-replica-a')));
      expect(new Set(names(b))).toEqual(new Set(all.filter((n) => expected.get(n) === 'kcp-replica-b')));
      // A widget created in every workspace now is reconciled by its workspace's owner only.
      for (const ws of fx.consumers) {
        await createIn(fx.workspaceKubeConfig(ws), `/apis/${fx.group}/v1/namespaces/default/widgets`, { apiVersion: `${fx.group}/v1`, kind: 'Widget', metadata: { name: 'w2', namespace: 'default' }, spec: { size: 2 } });
      }
      const late = (): typeof reconciled => reconciled.filter((r) => r.name === 'w2');
      await eventually('every new widget is reconciled', () => (new Set(late().map((r) => r.cluster)).size === all.length ? true : undefined), { timeoutMs: 30_000 });
      for (const r of late()) expect(`${r.cluster} by ${r.by}`).toBe(`${r.cluster} by ${expected.get(r.cluster) ?? '?'}`);

      await a.stop();
      await eventually('the remaining replica runs every workspace', () => (names(b).length === fx.consumers.length ? true : undefined), { timeoutMs: 30_000 });
      // The workspaces it took over bring their objects (its shared watch had dropped them as another replica's): it reconciles their widgets.
      const moved = all.filter((n) => expected.get(n) === 'kcp-replica-a');
      const byB = (name: string): Set<ClusterName> => new Set(reconciled.filter((r) => r.by === 'kcp-replica-b' && r.name === name).map((r) => r.cluster));
      await eventually('the remaining replica reconciles the widgets of the workspaces it took over', () => (moved.every((n) => byB('w').has(n) && byB('w2').has(n)) ? true : undefined), { timeoutMs: 30_000 });
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
