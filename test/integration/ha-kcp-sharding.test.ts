// Sharding is a filter on the fleet, so kcp's APIExport provider is sharded like any other: two
// replicas (two runs in this process, each with its own Lease and identity) split the workspaces
// bound to an export by rendezvous hashing, each reconciles only its own, and when one stops the
// other takes them all. The Leases live in the provider's own workspace.
import { describe, expect, it } from 'vitest';
import type { ClusterName } from '../../src/index.js';
import { createIn, setupApiExport } from '../support/kcp-apiexport.js';
import { sharedKcp } from '../support/context.js';
import { shardingReplicas } from '../support/sharding-replicas.js';
import { eventually } from '../support/wait.js';

const fastWatch = { backoff: { initialMs: 200, maxMs: 2_000 }, authBackoff: { initialMs: 500, maxMs: 2_000 } };

describe('sharding the workspaces of a kcp APIExport', () => {
  it('splits the bound workspaces between two replicas by rendezvous hashing, and one takes all when the other stops', async () => {
    const fx = await setupApiExport(sharedKcp().adminKubeconfigPath, { consumers: 4 });
    for (const ws of fx.consumers) {
      await createIn(fx.workspaceKubeConfig(ws), `/apis/${fx.group}/v1/namespaces/default/widgets`, { apiVersion: `${fx.group}/v1`, kind: 'Widget', metadata: { name: 'w', namespace: 'default' }, spec: { size: 1 } });
    }
    // Which replica reconciled which widget, per workspace: `w2` widgets are created after the split.
    const rs = shardingReplicas(fx, 'widgets-sharded', fastWatch);
    const reconciled = rs.reconciled;
    const a = await rs.start('kcp-replica-a');
    const b = await rs.start('kcp-replica-b');
    try {
      const names = rs.names;
      // Both confirmed in the two-member view, and every workspace engaged by exactly one of them.
      const { all, expected } = await rs.split(a, b, fx.consumers.length, 60_000);
      expect(new Set(names(a))).toEqual(new Set(all.filter((n) => expected.get(n) === 'kcp-replica-a')));
      expect(new Set(names(b))).toEqual(new Set(all.filter((n) => expected.get(n) === 'kcp-replica-b')));
      // A widget created in every workspace now is reconciled by its workspace's owner only.
      for (const ws of fx.consumers) {
        await createIn(fx.workspaceKubeConfig(ws), `/apis/${fx.group}/v1/namespaces/default/widgets`, { apiVersion: `${fx.group}/v1`, kind: 'Widget', metadata: { name: 'w2', namespace: 'default' }, spec: { size: 2 } });
      }
      const late = (): typeof reconciled => reconciled.filter((r) => r.name === 'w2');
      await eventually('every new widget is reconciled', () => (new Set(late().map((r) => r.cluster)).size === all.length ? true : undefined), { timeoutMs: 30_000 });
      for (const r of late()) expect(`${r.cluster} by ${r.by}`).toBe(`${r.cluster} by ${expected.get(r.cluster) ?? '?'}`);

      await a.handle.stop();
      await eventually('the remaining replica runs every workspace', () => (names(b).length === fx.consumers.length ? true : undefined), { timeoutMs: 30_000 });
      // The workspaces it took over bring their objects (its shared watch had dropped them as another replica's): it reconciles their widgets.
      const moved = all.filter((n) => expected.get(n) === 'kcp-replica-a');
      const byB = (name: string): Set<ClusterName> => new Set(reconciled.filter((r) => r.by === 'kcp-replica-b' && r.name === name).map((r) => r.cluster));
      await eventually('the remaining replica reconciles the widgets of the workspaces it took over', () => (moved.every((n) => byB('w').has(n) && byB('w2').has(n)) ? true : undefined), { timeoutMs: 30_000 });
      await b.handle.stop();
      // Both deleted their membership Leases on the way out: nothing is left behind.
      expect(await rs.leasesLeft()).toEqual([]);
    } finally {
      await rs.close();
    }
  }, 240_000);
});
