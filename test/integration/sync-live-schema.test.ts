// Schemas follow live (issue 28 item 3), on the real kcp and kube-apiserver with
// `rxfleet-sync-agent` running as its own process: the service CRD gains a spec and a status field
// while the agent runs; the new spec field reaches the service copy and the new status field comes
// back up, with no restart. Then the CRD drops the spec field: it stops syncing, and the agent
// does not fail over it (a later spec change still goes down, and no reconcile of the object
// failed after the removal).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClusterClient } from '../../src/client/index.js';
import type { CustomResourceDefinition } from '../../src/resources/index.js';
import { customResourceDefinitions } from '../../src/index.js';
import type { Database } from '../../examples/sync-agent/api.js';
import { databasesIn } from '../../examples/sync-agent/api.js';
import { sharedKcp, sharedKubeApiserver } from '../support/context.js';
import { bindExport, getOrUndefined, waitForExport } from '../support/sync-agent-kcp.js';
import type { SyncAgentProcess } from '../support/sync-agent-process.js';
import { startSyncAgent, tempFile, waitFor } from '../support/sync-agent-process.js';
import type { ServiceSide } from '../support/sync-agent-service.js';
import { backRef, startService } from '../support/sync-agent-service.js';
import { eventually, must } from '../support/wait.js';
import { clientFrom } from './runtime-support.js';

type Json = Record<string, unknown>;
type LiveDatabase = Database & { readonly spec: Database['spec'] & { readonly replicas?: number }; readonly status?: NonNullable<Database['status']> & { readonly shards?: number } };

let svc: ServiceSide;
let agent: SyncAgentProcess;
let consumer: ClusterClient;
let logical: string;
const context = (): string => agent.tail(60);
const dbs = (): ReturnType<typeof databasesIn> => databasesIn(svc.group);
const crdName = (): string => `databases.${svc.group}`;
const copyOf = async (name: string): Promise<LiveDatabase | undefined> => (await svc.copiesFrom(logical)).find((c) => backRef(c).name === name);
const inWorkspace = async (name: string): Promise<LiveDatabase | undefined> => (await getOrUndefined(consumer, dbs(), name, 'default'));

/** The service CRD with `edit` applied to v1's spec and status properties. */
async function changeCrd(edit: (spec: Json, status: Json) => void): Promise<void> {
  const crd = must(await svc.client.get<CustomResourceDefinition>(customResourceDefinitions, crdName()));
  const copy = structuredClone(crd) as unknown as { spec: { versions: { name: string; schema: { openAPIV3Schema: { properties: { spec: { properties: Json }; status: { properties: Json } } } } }[] } };
  for (const v of copy.spec.versions) edit(v.schema.openAPIV3Schema.properties.spec.properties, v.schema.openAPIV3Schema.properties.status.properties);
  must(await svc.client.update(customResourceDefinitions, copy as unknown as CustomResourceDefinition));
}

beforeAll(async () => {
  const kas = sharedKubeApiserver();
  svc = await startService(kas.kubeconfigYaml('admin'), { readyAfterMs: 200, deprovisionMs: 500 });
  const [p, ws] = await Promise.all([sharedKcp().createWorkspace(), sharedKcp().createWorkspace()]);
  const provider = clientFrom(p.path, p.kubeconfigYaml());
  consumer = clientFrom(ws.path, ws.kubeconfigYaml());
  logical = ws.logicalCluster;
  const files = { configFile: tempFile('sync.yaml', svc.configYaml), kcpKubeconfig: tempFile('kcp.kubeconfig', p.kubeconfigYaml()), serviceKubeconfig: tempFile('service.kubeconfig', kas.kubeconfigYaml('admin')) };
  agent = startSyncAgent(files);
  const exported = await waitForExport(provider, svc.exportName, (e) => (e.spec?.resources ?? []).length > 0 && (e.spec?.permissionClaims ?? []).length > 0, context);
  await bindExport(consumer, exported, p.path, dbs());
});

afterAll(async () => {
  await agent.stop(10_000);
  await svc.stop();
});

describe('rxfleet-sync-agent: schemas follow the service CRD live', () => {
  it('a field the CRD gains syncs down (spec) and up (status) with no restart; a field it drops stops syncing without failing', async () => {
    must(await consumer.apply(dbs(), { metadata: { name: 'live', namespace: 'default' }, spec: { engine: 'postgres', size: 1, connectionSecretName: 'live-db' } }, { fieldManager: 'consumer' }));
    await waitFor('live Ready', async () => ((await inWorkspace('live'))?.status?.phase === 'Ready' ? true : undefined), { context });

    const changedAt = Date.now();
    await changeCrd((spec, status) => {
      spec.replicas = { type: 'integer' };
      status.shards = { type: 'integer' };
    });
    // kcp serves the new field in the workspace once the binding follows the export (tens of seconds).
    await eventually(
      'the consumer able to set spec.replicas',
      async () => {
        must(await consumer.patch(dbs(), 'live', { spec: { replicas: 2 } }, { type: 'merge', namespace: 'default' }));
        return (await inWorkspace('live'))?.spec.replicas === 2;
      },
      { timeoutMs: 150_000, intervalMs: 500, context },
    );
    const settableAt = Date.now();
    await waitFor('spec.replicas on the service copy', async () => ((await copyOf('live'))?.spec.replicas === 2 ? true : undefined), { context, timeoutMs: 60_000, intervalMs: 100 });
    const downAt = Date.now();
    process.stdout.write(`live schema: CRD change → consumer can set the field ${settableAt - changedAt} ms; → on the service copy ${downAt - changedAt} ms (${downAt - settableAt} ms after the consumer set it)\n`);

    const copy = await copyOf('live');
    must(await svc.client.patch(svc.databases, copy?.metadata.name ?? '', { status: { shards: 4 } }, { type: 'merge', namespace: copy?.metadata.namespace ?? '', subresource: 'status' }));
    await waitFor('status.shards back in the workspace', async () => ((await inWorkspace('live'))?.status?.shards === 4 ? true : undefined), { context, timeoutMs: 60_000 });

    // The CRD drops spec.replicas: the copy loses it, and the sync goes on (a later change goes down).
    const droppedAt = agent.lines().length;
    await changeCrd((spec) => {
      delete spec.replicas;
    });
    await waitFor('spec.replicas gone from the service copy', async () => ((await copyOf('live'))?.spec.replicas === undefined ? true : undefined), { context, timeoutMs: 60_000 });
    must(await consumer.patch(dbs(), 'live', { spec: { size: 2 } }, { type: 'merge', namespace: 'default' }));
    await waitFor('size 2 on the copy and observed in the workspace', async () => ((await inWorkspace('live'))?.status?.observedSize === 2 ? true : undefined), { context, timeoutMs: 60_000 });
    const failures = agent.lines().slice(droppedAt).filter((l) => typeof l.level === 'number' && l.level >= 50);
    expect(failures.map((l) => String(l.msg))).toEqual([]);
    expect((await copyOf('live'))?.spec.replicas).toBeUndefined();
  });
});
