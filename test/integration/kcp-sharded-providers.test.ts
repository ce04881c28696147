// The other kcp providers and sharding across replicas against kcp as it is deployed (a cache
// server, the root shard, shard-1 and a front-proxy): path-aware naming resolves paths through the
// front-proxy for workspaces on both shards; the initializing-workspaces provider initialises
// workspaces on both shards through each shard's initializing virtual workspace; two sharding
// replicas split a fleet spread over both shards by rendezvous hashing, each reconciles only its
// own, and one takes all when the other stops (the audit of ha-kcp-sharding.test.ts, on two shards).
import { mergeMap } from 'rxjs';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClusterClient } from '../../src/client/index.js';
import { E } from '../../src/fp/index.js';
import type { Cluster, ClusterName, RunHandle } from '../../src/index.js';
import { clusterName, configMaps, controller, done, leases, namespaces, run } from '../../src/index.js';
import { apiExportProvider, finishInitialization, initializerLabel, initializingWorkspaceProvider } from '../../src/providers/kcp/index.js';
import type { ReplicaState } from '../../src/runtime/index.js';
import { rendezvousAssignments } from '../../src/runtime/ha/rendezvous.js';
import type { ProviderReport } from '../../src/streams/index.js';
import { createFleet } from '../../src/streams/index.js';
import { requestJson, stringField } from '../support/http.js';
import type { Widget } from '../support/kcp-apiexport.js';
import type { ShardedExport } from '../support/kcp-sharded.js';
import { createWidget, shardedWatch, startShardedExport } from '../support/kcp-sharded.js';
import type { KcpWorkspace } from '../support/kcp.js';
import { kcpClusterKubeConfig } from '../support/kcp.js';
import { eventually } from '../support/wait.js';

const timing = { leaseDurationMs: 3_000, renewDeadlineMs: 2_000, retryPeriodMs: 500 };

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
    const created = await requestJson(homeKc(), 'POST', '/apis/tenancy.kcp.io/v1alpha1/workspacetypes', {
      apiVersion: 'tenancy.kcp.io/v1alpha1',
      kind: 'WorkspaceType',
      metadata: { name: typeName },
      spec: { initializer: true, extend: { with: [{ name: 'universal', path: 'root' }] } },
    });
    expect(created.status).toBe(201);
    const finished: string[] = [];
    const errors: unknown[] = [];
    const fleet = createFleet(initializingWorkspaceProvider({ management: () => ({ yaml: homeKc().exportConfig() }), workspaceType: typeName, pathAware: true, managementWatch: shardedWatch }));
    const sub = fleet.engagements
      .pipe(
        mergeMap(async ({ cluster }) => {
          const ns = await cluster.client.create(namespaces, { metadata: { name: 'welcome' } });
          if (E.isLeft(ns) && ns.left.type !== 'AlreadyExists') throw new Error(ns.left.message);
          const cm = await cluster.client.create(configMaps, { metadata: { name: 'welcome', namespace: 'welcome' }, data: { workspace: cluster.name } });
          if (E.isLeft(cm) && cm.left.type !== 'AlreadyExists') throw new Error(cm.left.message);
          const r = await finishInitialization(cluster, cluster.labels?.[initializerLabel] ?? '');
          if (E.isLeft(r)) throw new Error(r.left.message);
          finished.push(cluster.name);
        }),
      )
      .subscribe({ error: (err: unknown) => errors.push(err) });
    try {
      const placed = [['init-root', 'root'], ['init-s1', 'shard-1']] as const;
      for (const [name, shard] of placed) {
        const ws = await requestJson(homeKc(), 'POST', '/apis/tenancy.kcp.io/v1alpha1/workspaces', {
          apiVersion: 'tenancy.kcp.io/v1alpha1',
          kind: 'Workspace',
          metadata: { name },
          spec: { type: { name: typeName, path: home.path }, location: { selector: { matchLabels: { name: shard } } } },
        });
        expect(ws.status).toBe(201);
      }
      for (const [name, shard] of placed) {
        const logical = await eventually(`${name} Ready`, async () => {
          const res = await requestJson(homeKc(), 'GET', `/apis/tenancy.kcp.io/v1alpha1/workspaces/${name}`);
          return stringField(res.body, 'status', 'phase') === 'Ready' ? stringField(res.body, 'spec', 'cluster') : undefined;
        }, { timeoutMs: 120_000 });
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
    const made = createClusterClient(clusterName('provider'), { yaml: sx.fx.providerKubeconfig() });
    if (E.isLeft(made)) throw new Error(made.left.message);
    const home: Cluster = { name: clusterName('provider'), client: made.right };
    const reconciled: { readonly by: string; readonly cluster: ClusterName; readonly name: string }[] = [];
    const latest = new Map<string, ReplicaState>();
    const replica = async (identity: string): Promise<RunHandle> => {
      const c = controller<Widget>({
        name: 'widgets-sharded-kcp',
        provider: apiExportProvider({ management: () => ({ yaml: sx.fx.providerKubeconfig() }), exportName: sx.fx.exportName, managementWatch: shardedWatch }),
        resource: sx.fx.widgets,
        watchOptions: shardedWatch,
        reconcile: (req) => {
          reconciled.push({ by: identity, cluster: req.cluster, name: req.key.name });
          return done();
        },
      });
      const h = await run(c, { logger: pino({ level: 'silent' }), http: false, signals: false, replicas: { type: 'sharding', home, namespace: 'default', identity, timing } });
      h.replica?.states.subscribe((s: ReplicaState) => latest.set(identity, s));
      return h;
    };
    const a = await replica('replica-a');
    const b = await replica('replica-b');
    try {
      const names = (h: RunHandle): ClusterName[] => h.fleet.clusters().map((c) => c.name);
      const settled = (id: string): boolean => {
        const s = latest.get(id);
        return s?.type === 'sharing' && s.confirmed && s.members.length === 2;
      };
      await eventually('the workspaces split between both replicas', () => {
        const [x, y] = [names(a), names(b)];
        return settled('replica-a') && settled('replica-b') && x.length + y.length === all.length && new Set([...x, ...y]).size === all.length ? true : undefined;
      }, { timeoutMs: 90_000 });
      const split = [...names(a), ...names(b)];
      expect(split.map(String).sort()).toEqual(all.map((w) => w.logicalCluster).sort());
      const expected = rendezvousAssignments([{ identity: 'replica-a', weight: 1 }, { identity: 'replica-b', weight: 1 }], split);
      expect(new Set(names(a))).toEqual(new Set(split.filter((n) => expected.get(n) === 'replica-a')));
      expect(new Set(names(b))).toEqual(new Set(split.filter((n) => expected.get(n) === 'replica-b')));
      for (const ws of all) await createWidget(sx.fx, ws, 'r2', 2);
      const late = (): typeof reconciled => reconciled.filter((r) => r.name === 'r2');
      await eventually('every new widget is reconciled', () => (new Set(late().map((r) => r.cluster)).size === all.length ? true : undefined), { timeoutMs: 60_000 });
      // No overlap: each workspace's widget by its owner only, whichever shard it is on.
      for (const r of late()) expect(`${r.cluster} by ${r.by}`).toBe(`${r.cluster} by ${expected.get(r.cluster) ?? '?'}`);
      await a.stop();
      await eventually('the remaining replica runs every workspace of both shards', () => (names(b).length === all.length ? true : undefined), { timeoutMs: 60_000 });
      await b.stop();
      const left = await made.right.list(leases, { namespace: 'default', labelSelector: 'rxfleet.io/replicas=widgets-sharded-kcp' });
      expect(E.isRight(left) && left.right.items.map((l) => l.metadata.name)).toEqual([]);
    } finally {
      await a.stop();
      await b.stop();
      made.right.close();
    }
  }, 300_000);
});
