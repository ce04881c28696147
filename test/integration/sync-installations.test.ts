// One `rxfleet-sync-agent` serving one service cluster to two kcp installations (api-syncagent#13),
// on real servers as separate processes: the shared kcp (the default installation) and a second
// kcp this file starts (installation `eu`), the shared kube-apiserver as the service cluster with
// the example's stand-in operator. Both installations bind the export in their `root` workspace,
// so the same logical cluster, namespace and name exist in both. In order, on one service cluster:
// an agent of the single-installation form makes a copy; the agent restarted with both
// installations keeps that copy as the default installation's and gives eu's object of the same
// name its own copy, each status going back to its own; a copy forged to name the other
// installation's object is refused; deleting in one leaves the other's copy; a configuration whose
// installations could share a place stops at start naming both; SIGSTOP of eu's kcp leaves the
// default installation syncing and /readyz names the installation until it resumes; an agent started
// while eu's kcp is stopped starts without it and serves it once its preflight passes.
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClusterClient } from '../../src/client/index.js';
import { kcpClusterKubeconfigYaml } from '../../src/envtest/kcp-workspace.js';
import { E } from '../../src/fp/index.js';
import { withBackReference } from '../../src/sinks/index.js';
import { clusterName } from '../../src/index.js';
import type { Database } from '../../examples/sync-agent/api.js';
import { databasesIn } from '../../examples/sync-agent/api.js';
import { sharedKcp, sharedKubeApiserver } from '../support/context.js';
import type { KcpHandle } from '../support/kcp.js';
import { startKcp } from '../support/kcp.js';
import { bindExport, getOrUndefined, unbindExport, waitForExport } from '../support/sync-agent-kcp.js';
import { badConfigRun } from '../support/sync-agent-scenarios.js';
import type { SyncAgentProcess } from '../support/sync-agent-process.js';
import { startSyncAgent, tempFile, waitFor } from '../support/sync-agent-process.js';
import type { ServiceSide } from '../support/sync-agent-service.js';
import { backRef, startService } from '../support/sync-agent-service.js';
import { must } from '../support/wait.js';
import { clientFrom, httpGet } from './runtime-support.js';

const sha3short = (s: string): string => createHash('sha3-256').update(s).digest('hex').slice(0, 20);
const binding = `sync-installations-${randomBytes(3).toString('hex')}`;

let svc: ServiceSide;
let kcpEu: KcpHandle;
let agent: SyncAgentProcess;
let files: { configFile: string; kcpKubeconfig: string; serviceKubeconfig: string };
let both: string;
let installationsYaml: string;
let root: ClusterClient;
let rootEu: ClusterClient;
let providerEu: { path: string; yaml: string; client: ClusterClient };
const context = (): string => agent.tail(60);
const kcpDatabases = (): ReturnType<typeof databasesIn> => databasesIn(svc.group);
/** A copy's place: the naming's `ws-{{ .ClusterName }}` after the installation's prefix, and the default name. */
const place = (prefix: string, name: string): { namespace: string; name: string } => ({ namespace: `${prefix}ws-root`, name: `${sha3short('default')}-${sha3short(name)}` });
const copyAt = (prefix: string, name: string): Promise<Database | undefined> => getOrUndefined(svc.client, svc.databases, place(prefix, name).name, place(prefix, name).namespace);
const consumer = (c: ClusterClient, name: string): Promise<Database | undefined> => getOrUndefined(c, kcpDatabases(), name, 'default');
const ready = (c: ClusterClient, name: string, timeoutMs = 60_000): Promise<Database> =>
  waitFor(`${c.cluster}/default/${name} Ready`, async () => ((await consumer(c, name))?.status?.phase === 'Ready' ? consumer(c, name) : undefined), { context, timeoutMs });
const create = async (c: ClusterClient, name: string, size: number): Promise<void> => {
  must(await c.apply(kcpDatabases(), { metadata: { name, namespace: 'default' }, spec: { engine: 'postgres', size, connectionSecretName: `${name}-db` } }, { fieldManager: 'consumer' }));
};
const readyz = async (): Promise<{ status: number; body: string } | undefined> => {
  const url = agent.lines().find((l) => typeof l.url === 'string')?.url;
  return typeof url === 'string' ? httpGet(`${url}/readyz`) : undefined;
};

beforeAll(async () => {
  const kas = sharedKubeApiserver();
  svc = await startService(kas.kubeconfigYaml('admin'), { readyAfterMs: 200, deprovisionMs: 300 });
  kcpEu = await startKcp();
  const [p, pEu] = await Promise.all([sharedKcp().createWorkspace(), kcpEu.createWorkspace()]);
  providerEu = { path: pEu.path, yaml: pEu.kubeconfigYaml(), client: clientFrom(`eu#${pEu.path}`, pEu.kubeconfigYaml()) };
  root = clientFrom('root', kcpClusterKubeconfigYaml(sharedKcp().adminKubeconfigPath, 'root'));
  rootEu = clientFrom('eu#root', kcpEu.kubeconfigYaml('root'));
  // A namespace template that starts with text of its own: with the default `{{ .ClusterName }}`,
  // a default-installation workspace named `eu-root` would have eu's root's place (preflight refuses it).
  const single = svc.configYaml.replace(`namespace: '{{ .ClusterName }}'`, `namespace: 'ws-{{ .ClusterName }}'`);
  if (single === svc.configYaml) throw new Error('examples/sync-agent/config.yaml no longer spells out the namespace template');
  installationsYaml = `\ninstallations:\n  - name: eu\n    kubeconfig: ${tempFile('eu.kubeconfig', providerEu.yaml)}\n    namespacePrefix: eu-\n`;
  both = `${single}${installationsYaml}`;
  files = { configFile: tempFile('sync.yaml', single), kcpKubeconfig: tempFile('kcp.kubeconfig', p.kubeconfigYaml()), serviceKubeconfig: tempFile('service.kubeconfig', kas.kubeconfigYaml('admin')) };
  agent = startSyncAgent(files);
  const provider = clientFrom(p.path, p.kubeconfigYaml());
  const exported = await waitForExport(provider, svc.exportName, (e) => (e.spec?.resources ?? []).length > 0, context).finally(() => {
    provider.close();
  });
  await bindExport(root, exported, p.path, kcpDatabases(), binding);
});

afterAll(async () => {
  // The shared kcp's root is left as it was: unbinding there deletes the objects, through the agent's finalizer.
  await unbindExport(root, binding).catch(() => undefined);
  await waitFor('the objects in root gone', async () => {
    const listed = await root.list(kcpDatabases(), { namespace: 'default' });
    return E.isLeft(listed) || listed.right.items.length === 0 ? true : undefined;
  }, { timeoutMs: 60_000 }).catch(() => undefined);
  await agent.stop(10_000);
  for (const c of [root, rootEu, providerEu.client]) c.close();
  await svc.stop();
  await kcpEu.stop();
});

describe('rxfleet-sync-agent: one service cluster, two kcp installations', () => {
  it('a copy made by the single-installation agent stays the default installation\'s once eu is added; eu\'s object of the same name gets its own copy; each status goes back to its own', { timeout: 300_000 }, async () => {
    await create(root, 'orders', 1);
    const before = await waitFor('the copy of root/default/orders', () => copyAt('', 'orders'), { context });
    await ready(root, 'orders');
    // The single form's copy: a bare back-reference, as every copy made before installations existed.
    expect(backRef(before).cluster).toBe('root');

    await agent.stop(10_000);
    files = { ...files, configFile: tempFile('sync.yaml', both) };
    agent = startSyncAgent(files);
    const exportedEu = await waitForExport(providerEu.client, svc.exportName, (e) => (e.spec?.resources ?? []).length > 0, context);
    await bindExport(rootEu, exportedEu, providerEu.path, kcpDatabases());
    await create(rootEu, 'orders', 2);
    const eu = await ready(rootEu, 'orders', 120_000);
    const euCopy = must(await svc.client.get(svc.databases, place('eu-', 'orders').name, { namespace: place('eu-', 'orders').namespace }));
    expect(backRef(euCopy)).toMatchObject({ cluster: 'eu#root', namespace: 'default', name: 'orders', uid: eu.metadata.uid });
    expect(euCopy.spec.size).toBe(2);
    expect(eu.status?.endpoint).toBe(`${place('eu-', 'orders').name}.eu-ws-root.svc:5432`);
    // The default installation's copy is the same object (not swept, not made again), still its own.
    const after = await copyAt('', 'orders');
    expect(after?.metadata.uid).toBe(before.metadata.uid);
    expect(after === undefined ? undefined : backRef(after).cluster).toBe('root');
    must(await root.patch(kcpDatabases(), 'orders', { spec: { size: 3 } }, { type: 'merge', namespace: 'default' }));
    await waitFor('observedSize 3 back in the default installation', async () => ((await consumer(root, 'orders'))?.status?.observedSize === 3 ? true : undefined), { context });
    expect((await consumer(root, 'orders'))?.status?.endpoint).toBe(`${place('', 'orders').name}.ws-root.svc:5432`);
    expect((await consumer(rootEu, 'orders'))?.status?.observedSize).toBe(2);
  });

  it("a copy at eu's place forged to name the default installation's object is refused on eu's object, and never reaches either", async () => {
    const victim = must(await root.get(kcpDatabases(), 'orders', { namespace: 'default' }));
    const at = place('eu-', 'thief');
    const forged = withBackReference<Database>(
      { apiVersion: `${svc.group}/v1`, kind: 'Database', metadata: { name: at.name, namespace: at.namespace, labels: { 'sync.rxfleet.dev/agent': svc.agentName, 'sync.rxfleet.dev/published': 'databases' } }, spec: { engine: 'mysql', size: 7, connectionSecretName: 'stolen' } },
      { cluster: clusterName('root'), resource: `databases.${svc.group}`, namespace: 'default', name: 'orders', uid: victim.metadata.uid ?? '' },
    );
    must(await svc.client.create(svc.databases, forged));
    await create(rootEu, 'thief', 1);
    const refused = await waitFor('the refusal on eu\'s thief', async () => {
      const status = (await consumer(rootEu, 'thief'))?.status as { readonly conditions?: readonly { readonly type: string; readonly status: string; readonly message?: string }[] } | undefined;
      const c = status?.conditions?.find((x) => x.type === 'sync.rxfleet.dev/Synced');
      return c?.status === 'False' ? c : undefined;
    }, { context });
    expect(refused.message).toContain('taken by another object');
    expect((await copyAt('eu-', 'thief'))?.spec).toMatchObject({ engine: 'mysql', size: 7 });
    // The sentinel: a change of the victim's own copy arrives; the forged copy's status never did.
    must(await root.patch(kcpDatabases(), 'orders', { spec: { size: 4 } }, { type: 'merge', namespace: 'default' }));
    await waitFor('observedSize 4 back in the default installation', async () => ((await consumer(root, 'orders'))?.status?.observedSize === 4 ? true : undefined), { context });
    expect((await consumer(root, 'orders'))?.status?.endpoint).toBe(`${place('', 'orders').name}.ws-root.svc:5432`);
    expect((await consumer(rootEu, 'thief'))?.status?.phase).toBeUndefined();
  });

  it("deleting eu's object deletes eu's copy only; the default installation's copy of the same name stays", async () => {
    const mine = await copyAt('', 'orders');
    must(await rootEu.delete(kcpDatabases(), 'orders', { namespace: 'default' }));
    await waitFor('eu\'s orders gone', async () => ((await consumer(rootEu, 'orders')) === undefined ? true : undefined), { context });
    expect(await copyAt('eu-', 'orders')).toBeUndefined();
    expect((await copyAt('', 'orders'))?.metadata.uid).toBe(mine?.metadata.uid);
    expect((await consumer(root, 'orders'))?.status?.phase).toBe('Ready');
  });

  it('an agent whose two installations could give two objects one place stops at start (exit 2), naming both', async () => {
    // The default namespace template: a default-installation workspace named `eu-root` would have eu's root's place.
    const run = await badConfigRun(`${svc.configYaml}${installationsYaml}`, files);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('published[0] "databases": installations "default" (namespace prefix "") and "eu" (namespace prefix "eu-") can give two objects one service-side place');
  });

  it('with eu\'s kcp stopped (SIGSTOP), the default installation keeps syncing and /readyz names eu until it resumes', { timeout: 600_000 }, async () => {
    await kcpEu.pause();
    try {
      await create(root, 'during', 1);
      await ready(root, 'during');
      // Found once eu's watches give up on the silent kcp (their inactivity timeout, then a list timeout).
      const held = await waitFor('/readyz naming installation eu', async () => {
        const r = await readyz();
        return r?.status === 503 && r.body.includes('required cluster eu#kcp-export is unhealthy') ? r : undefined;
      }, { timeoutMs: 420_000, intervalMs: 1_000, context });
      // With its cause, and nothing of the default installation's clusters unhealthy.
      expect(held.body).toMatch(/required cluster eu#kcp-export is unhealthy: (?!no reason given)\S/);
      expect(held.body).not.toMatch(/cluster (kcp-export|root|service): unhealthy/);
      // Still syncing meanwhile.
      await create(root, 'meanwhile', 1);
      await ready(root, 'meanwhile');
    } finally {
      kcpEu.resume();
    }
    await waitFor('/readyz 200 once eu resumes', async () => ((await readyz())?.status === 200 ? true : undefined), { timeoutMs: 300_000, intervalMs: 1_000, context });
    await create(rootEu, 'after', 1);
    await ready(rootEu, 'after', 120_000);
  });

  it("an agent started while eu's kcp is stopped syncs the default installation, keeps eu out with its cause on /readyz, and serves eu once it resumes", { timeout: 600_000 }, async () => {
    await agent.stop(10_000);
    await kcpEu.pause();
    try {
      agent = startSyncAgent({ ...files, configFile: tempFile('sync.yaml', both) });
      // eu's preflight cannot read its kcp: the start goes on without it.
      await create(root, 'cold', 1);
      await ready(root, 'cold', 180_000);
      const held = await waitFor('/readyz naming installation eu and why', async () => {
        const r = await readyz();
        return r?.status === 503 && r.body.includes('installation "eu": its preflight could not read its kcp') ? r : undefined;
      }, { timeoutMs: 300_000, intervalMs: 1_000, context });
      expect(held.body).toContain('required cluster eu#kcp-export is not engaged');
    } finally {
      kcpEu.resume();
    }
    await waitFor('/readyz 200 once eu passes its preflight', async () => ((await readyz())?.status === 200 ? true : undefined), { timeoutMs: 300_000, intervalMs: 1_000, context });
    await create(rootEu, 'cold', 2);
    const eu = await ready(rootEu, 'cold', 120_000);
    expect(eu.status?.endpoint).toBe(`${place('eu-', 'cold').name}.eu-ws-root.svc:5432`);
  });
});
