// The other kcp providers and sharding across replicas against kcp as it is deployed (a cache
// server, the root shard, shard-1 and a front-proxy): path-aware naming resolves paths through the
// front-proxy for workspaces on both shards; the initializing-workspaces provider initialises
// workspaces on both shards through each shard's initializing virtual workspace; two sharding
// replicas split a fleet spread over both shards by rendezvous hashing, each reconciles only its
// own, and one takes all when the other stops (the audit of ha-kcp-sharding.test.ts, on two shards).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterName } from '../../src/index.js';
import { apiExportProvider, initializingWorkspaceProvider } from '../../src/providers/kcp/index.js';
import type { ProviderReport } from '../../src/streams/index.js';
import { createFleet } from '../../src/streams/index.js';
import { requestJson, stringField } from '../support/http.js';
import { createInitializerType, createTypedWorkspace, welcomeEach, workspaceReady } from '../support/kcp-initializing.js';
import type { ShardedExport } from '../support/kcp-sharded.js';
import { createWidget, shardedWatch, startShardedExport } from '../support/kcp-sharded.js';
import type { KcpWorkspace } from '../support/kcp.js';
import { kcpClusterKubeConfig } from '../support/kcp.js';
import { shardingReplicas } from '../support/sharding-replicas.js';
import { eventually } from '../support/wait.js';

describe('kcp providers across the shards of a sharded kcp', () => {
  let sx: ShardedExport;
  beforeAll(async () => {
    sx = await startShardedExport(2);
  });
  afterAll(async () => {
    await sx.kcp.stop();
  });
  const consumers = (): KcpWorkspace[] => [...sx.consumers.values()].flat();

  it('path-aware: workspaces on both shards are named by the paths read through the front-proxy', async () => {
    const fleet = createFleet(apiExportProvider({ management: () => ({ yaml: sx.fx.providerKubeconfig() }), exportName: sx.fx.exportName, managementWatch: shardedWatch, pathAware: true }));
    const reports: ProviderReport[] = [];
    const sub = fleet.reports.subscribe((r) => reports.push(r));
    // Engagements run the provider (reports alone do not start it).
    sub.add(fleet.engagements.subscribe());
    try {
      const want = consumers().map((w) => w.path).sort();
      const have = (): string[] => fleet.clusters().map((c) => c.name as string).sort();
      await eventually('every workspace engaged under its path', () => (have().join() === want.join() ? true : undefined), {
        timeoutMs: 90_000,
        context: () => `engaged: ${have().join(', ')}; reports: ${JSON.stringify(reports.filter((r) => r.type !== 'engaged'))}`,
      });
      for (const ws of consumers()) expect(fleet.get(clusterName(ws.path))?.identity?.id).toBe(ws.logicalCluster);
      expect(reports.filter((r) => r.type === 'error' || r.type === 'skipped')).toEqual([]);
    } finally {
      sub.unsubscribe();
    }
  });

  it('initializing: workspaces of a type with an initializer are initialised on both shards', async () => {
    const admin = sx.kcp.adminKubeconfigPath;
    const home = await sx.kcp.createWorkspace('types');
    const homeKc = () => kcpClusterKubeConfig(admin, home.path);
    const typeName = 'tenant';
    const created = await createInitializerType(homeKc(), typeName);
    expect(created.status).toBe(201);
    const fleet = createFleet(initializingWorkspaceProvider({ management: () => ({ yaml: homeKc().exportConfig() }), workspaceType: typeName, pathAware: true, managementWatch: shardedWatch }));
    const { finished, errors, subscription: sub } = welcomeEach(fleet);
    try {
      const placed = [['init-root', 'root'], ['init-s1', 'shard-1']] as const;
      for (const [name, shard] of placed) {
        const ws = await createTypedWorkspace(homeKc(), name, { name: typeName, path: home.path }, shard);
        expect(ws.status).toBe(201);
      }
      for (const [name, shard] of placed) {
        const logical = await workspaceReady(homeKc, name, 120_000);
        // On the shard asked for, and set up through that shard's initializing virtual workspace.
        const direct = await requestJson(kcpClusterKubeConfig(sx.kcp.shard(shard).adminKubeconfigPath, logical), 'GET', '/api/v1/namespaces/welcome/configmaps/welcome');
        expect(stringField(direct.body, 'data', 'workspace')).toBe(`${home.path}:${name}`);
      }
      expect(errors).toEqual([]);
      expect(finished.sort()).toEqual(placed.map(([n]) => `${home.path}:${n}`).sort());
    } finally {
      sub.unsubscribe();
    }
  });

  it('two sharding replicas split the workspaces of both shards, each reconciles only its own, and one takes all when the other stops', async () => {
    const all = consumers();
    for (const ws of all) await createWidget(sx.fx, ws, 'r1', 1);
    const rs = shardingReplicas(sx.fx, 'widgets-sharded-kcp', shardedWatch);
    const reconciled = rs.reconciled;
    const a = await rs.start('replica-a');
    const b = await rs.start('replica-b');
    try {
      const names = rs.names;
      const { all: split, expected } = await rs.split(a, b, all.length, 90_000);
      expect(split.map(String).sort()).toEqual(all.map((w) => w.logicalCluster).sort());
      expect(new Set(names(a))).toEqual(new Set(split.filter((n) => expected.get(n) === 'replica-a')));
      expect(new Set(names(b))).toEqual(new Set(split.filter((n) => expected.get(n) === 'replica-b')));
      for (const ws of all) await createWidget(sx.fx, ws, 'r2', 2);
      const late = (): typeof reconciled => reconciled.filter((r) => r.name === 'r2');
      await eventually('every new widget is reconciled', () => (new Set(late().map((r) => r.cluster)).size === all.length ? true : undefined), { timeoutMs: 60_000 });
      // No overlap: each workspace's widget by its owner only, whichever shard it is on.
      for (const r of late()) expect(`${r.cluster} by ${r.by}`).toBe(`${r.cluster} by ${expected.get(r.cluster) ?? '?'}`);
      await a.handle.stop();
      await eventually('the remaining replica runs every workspace of both shards', () => (names(b).length === all.length ? true : undefined), { timeoutMs: 60_000 });
      await b.handle.stop();
      expect(await rs.leasesLeft()).toEqual([]);
    } finally {
      await rs.close();
    }
  }, 300_000);
});
