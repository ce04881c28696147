// Schemas follow live (issue 28 item 3), on the real kcp and kube-apiserver with
// `rxfleet-sync-agent` running as its own process: the service CRD gains a spec and a status field
// while the agent runs; the new spec field reaches the service copy and the new status field comes
// back up, with no restart. Then the CRD drops the spec field: it stops syncing, and the agent
// does not fail over it (a later spec change still goes down, and no reconcile of the object
// failed after the removal).
import { describe, expect, it } from 'vitest';
import type { CustomResourceDefinition } from '../../src/resources/index.js';
import { customResourceDefinitions } from '../../src/index.js';
import type { Database } from '../../examples/sync-agent/api.js';
import { getOrUndefined } from '../support/sync-agent-kcp.js';
import { waitFor } from '../support/sync-agent-process.js';
import type { ServiceSide } from '../support/sync-agent-service.js';
import { backRef, startService } from '../support/sync-agent-service.js';
import { eventually, must } from '../support/wait.js';
import { agentScenario } from './sync-agent-scenario.js';

type Json = Record<string, unknown>;
type LiveDatabase = Database & { readonly spec: Database['spec'] & { readonly replicas?: number }; readonly status?: NonNullable<Database['status']> & { readonly shards?: number } };

const s = agentScenario<ServiceSide, LiveDatabase>({ service: (yaml) => startService(yaml, { readyAfterMs: 200, deprovisionMs: 500 }), consumers: 1, config: (svc) => svc.configYaml });
const crdName = (): string => `databases.${s.svc.group}`;
const copyOf = async (name: string): Promise<LiveDatabase | undefined> => (await s.svc.copiesFrom(s.a.ws.logicalCluster)).find((c) => backRef(c).name === name);
const inWorkspace = async (name: string): Promise<LiveDatabase | undefined> => (await getOrUndefined(s.a.client, s.dbs, name, 'default'));

/** The service CRD with `edit` applied to v1's spec and status properties. */
async function changeCrd(edit: (spec: Json, status: Json) => void): Promise<void> {
  const crd = must(await s.svc.client.get<CustomResourceDefinition>(customResourceDefinitions, crdName()));
  const copy = structuredClone(crd) as unknown as { spec: { versions: { name: string; schema: { openAPIV3Schema: { properties: { spec: { properties: Json }; status: { properties: Json } } } } }[] } };
  for (const v of copy.spec.versions) edit(v.schema.openAPIV3Schema.properties.spec.properties, v.schema.openAPIV3Schema.properties.status.properties);
  must(await s.svc.client.update(customResourceDefinitions, copy as unknown as CustomResourceDefinition));
}

describe('rxfleet-sync-agent: schemas follow the service CRD live', () => {
  it('a field the CRD gains syncs down (spec) and up (status) with no restart; a field it drops stops syncing without failing', async () => {
    must(await s.a.client.apply(s.dbs, { metadata: { name: 'live', namespace: 'default' }, spec: { engine: 'postgres', size: 1, connectionSecretName: 'live-db' } }, { fieldManager: 'consumer' }));
    await waitFor('live Ready', async () => ((await inWorkspace('live'))?.status?.phase === 'Ready' ? true : undefined), { context: s.context });

    const changedAt = Date.now();
    await changeCrd((spec, status) => {
      spec.replicas = { type: 'integer' };
      status.shards = { type: 'integer' };
    });
    // kcp serves the new field in the workspace once the binding follows the export (tens of seconds).
    await eventually(
      'the consumer able to set spec.replicas',
      async () => {
        must(await s.a.client.patch(s.dbs, 'live', { spec: { replicas: 2 } }, { type: 'merge', namespace: 'default' }));
        return (await inWorkspace('live'))?.spec.replicas === 2;
      },
      { timeoutMs: 150_000, intervalMs: 500, context: s.context },
    );
    const settableAt = Date.now();
    await waitFor('spec.replicas on the service copy', async () => ((await copyOf('live'))?.spec.replicas === 2 ? true : undefined), { context: s.context, timeoutMs: 60_000, intervalMs: 100 });
    const downAt = Date.now();
    process.stdout.write(`live schema: CRD change → consumer can set the field ${settableAt - changedAt} ms; → on the service copy ${downAt - changedAt} ms (${downAt - settableAt} ms after the consumer set it)\n`);

    const copy = await copyOf('live');
    must(await s.svc.client.patch(s.svc.databases, copy?.metadata.name ?? '', { status: { shards: 4 } }, { type: 'merge', namespace: copy?.metadata.namespace ?? '', subresource: 'status' }));
    await waitFor('status.shards back in the workspace', async () => ((await inWorkspace('live'))?.status?.shards === 4 ? true : undefined), { context: s.context, timeoutMs: 60_000 });

    // The CRD drops spec.replicas: the copy loses it, and the sync goes on (a later change goes down).
    const droppedAt = s.agent.lines().length;
    await changeCrd((spec) => {
      delete spec.replicas;
    });
    await waitFor('spec.replicas gone from the service copy', async () => ((await copyOf('live'))?.spec.replicas === undefined ? true : undefined), { context: s.context, timeoutMs: 60_000 });
    must(await s.a.client.patch(s.dbs, 'live', { spec: { size: 2 } }, { type: 'merge', namespace: 'default' }));
    await waitFor('size 2 on the copy and observed in the workspace', async () => ((await inWorkspace('live'))?.status?.observedSize === 2 ? true : undefined), { context: s.context, timeoutMs: 60_000 });
    const failures = s.agent.lines().slice(droppedAt).filter((l) => typeof l.level === 'number' && l.level >= 50);
    expect(failures.map((l) => String(l.msg))).toEqual([]);
    expect((await copyOf('live'))?.spec.replicas).toBeUndefined();
  });
});
