// Leader election through the agent's CLI (issue 28 item 4): two `rxfleet-sync-agent` OS processes
// with `--leader-election-namespace`, between the shared kcp and kube-apiserver. One leads and syncs;
// the other stands by and sends nothing (no reconcile, no write, by its own /metrics). kill -9 of
// the leader: the standby takes the Lease once it expires and syncs what changed meanwhile and
// after. Short timings (lease 4 s, renew deadline 3 s, retry 0.5 s) keep it quick.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClusterClient } from '../../src/client/index.js';
import { namespaces } from '../../src/index.js';
import type { Database } from '../../examples/sync-agent/api.js';
import { databasesIn } from '../../examples/sync-agent/api.js';
import { sharedKcp, sharedKubeApiserver } from '../support/context.js';
import type { LeaseObject } from '../support/replica-audit.js';
import { leaseResource } from '../support/replica-audit.js';
import { bindExport, getOrUndefined, waitForExport } from '../support/sync-agent-kcp.js';
import type { SyncAgentProcess } from '../support/sync-agent-process.js';
import { startSyncAgent, tempFile, waitFor } from '../support/sync-agent-process.js';
import type { ServiceSide } from '../support/sync-agent-service.js';
import { startService } from '../support/sync-agent-service.js';
import { must } from '../support/wait.js';
import { clientFrom } from './runtime-support.js';

let svc: ServiceSide;
let consumer: ClusterClient;
let leaseNamespace: string;
const agents: SyncAgentProcess[] = [];
const context = (): string => agents.map((a, i) => `--- agent ${i} ---\n${a.tail(30)}`).join('\n');
const kcpDatabases = (): ReturnType<typeof databasesIn> => databasesIn(svc.group);

type Line = Record<string, unknown>;
// The runtime logs each change of replica state as `{ replica: { type, identity, ... } }`.
const stateOf = (l: Line): { type: string; identity: string } | undefined => {
  const r = l.replica as { type?: unknown; identity?: unknown } | undefined;
  return typeof r?.type === 'string' && typeof r.identity === 'string' ? { type: r.type, identity: r.identity } : undefined;
};
const states = (a: SyncAgentProcess): { type: string; time: number; identity: string }[] =>
  a.lines().flatMap((l) => {
    const s = stateOf(l);
    return s === undefined ? [] : [{ ...s, time: Number(l.time) }];
  });
const identityOf = (a: SyncAgentProcess): string | undefined => states(a)[0]?.identity;

/** The sum of every series of a metric on the agent's /metrics (0 when it has none). */
async function metricSum(a: SyncAgentProcess, name: string): Promise<number> {
  const url = a.lines().find((l) => l.msg === 'controller running' && typeof l.url === 'string')?.url;
  if (typeof url !== 'string') throw new Error('the agent has not said its probe URL yet');
  const text = await (await fetch(`${url}/metrics`)).text();
  return text
    .split('\n')
    .filter((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `))
    .reduce((s, l) => s + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
}

const ready = (name: string): Promise<Database> =>
  waitFor(`default/${name} Ready in the consumer workspace`, async () => {
    const d = await getOrUndefined(consumer, kcpDatabases(), name, 'default');
    return d?.status?.phase === 'Ready' ? d : undefined;
  }, { context });

const create = async (name: string): Promise<void> => {
  must(await consumer.apply(kcpDatabases(), { metadata: { name, namespace: 'default' }, spec: { engine: 'postgres', size: 1, connectionSecretName: `${name}-db` } }, { fieldManager: 'consumer' }));
};

beforeAll(async () => {
  const kcp = sharedKcp();
  const kas = sharedKubeApiserver();
  svc = await startService(kas.kubeconfigYaml('admin'));
  leaseNamespace = `sync-leader-${randomBytes(3).toString('hex')}`;
  must(await svc.client.create(namespaces, { metadata: { name: leaseNamespace } }));
  const [p, ws] = await Promise.all([kcp.createWorkspace(), kcp.createWorkspace()]);
  consumer = clientFrom(ws.path, ws.kubeconfigYaml());
  const files = { configFile: tempFile('sync.yaml', svc.configYaml), kcpKubeconfig: tempFile('kcp.kubeconfig', p.kubeconfigYaml()), serviceKubeconfig: tempFile('service.kubeconfig', kas.kubeconfigYaml('admin')) };
  const args = ['--leader-election-namespace', leaseNamespace, '--lease-duration-ms', '4000', '--renew-deadline-ms', '3000', '--retry-period-ms', '500'];
  // The first leads (nobody holds the Lease yet); the second starts once it does, so it stands by.
  const first = startSyncAgent({ ...files, args });
  agents.push(first);
  await waitFor('agent 0 leading', () => (states(first).some((s) => s.type === 'leading') ? true : undefined), { context });
  const second = startSyncAgent({ ...files, args });
  agents.push(second);
  await waitFor('agent 1 standing by', () => (states(second).some((s) => s.type === 'standby') ? true : undefined), { context });
  const provider = clientFrom(p.path, p.kubeconfigYaml());
  const exported = await waitForExport(provider, svc.exportName, (e) => (e.spec?.resources ?? []).some((r) => r.name === 'databases'), context);
  await bindExport(consumer, exported, p.path, kcpDatabases());
});

afterAll(async () => {
  await Promise.all(agents.map((a) => a.stop(10_000)));
  await svc.stop();
});

describe('rxfleet-sync-agent --leader-election-namespace: two processes, one syncing', () => {
  it('the leader holds the Lease on the service cluster and syncs; the standby sends no reconcile and no write', async () => {
    const [leader, standby] = agents as [SyncAgentProcess, SyncAgentProcess];
    await create('first');
    await ready('first');
    const lease = must(await svc.client.get<LeaseObject>(leaseResource, `${svc.agentName}.${svc.exportName}`, { namespace: leaseNamespace }));
    expect(lease.spec?.holderIdentity).toBe(identityOf(leader));
    expect(states(standby).filter((s) => s.type !== 'standby')).toEqual([]);
    expect(await metricSum(standby, 'rxfleet_reconcile_total')).toBe(0);
    expect(await metricSum(standby, 'rxfleet_write_requests_total')).toBe(0);
    expect(await metricSum(leader, 'rxfleet_reconcile_total')).toBeGreaterThan(0);
  });

  it('kill -9 of the leader: the standby takes over and syncs what was created while no one led, and after', async () => {
    const [leader, standby] = agents as [SyncAgentProcess, SyncAgentProcess];
    await leader.kill();
    const killedAt = Date.now();
    // Made while the dead leader still holds the Lease: nobody syncs it until the standby leads.
    await create('meanwhile');
    const took = await waitFor('agent 1 leading', () => states(standby).find((s) => s.type === 'leading'), { context, timeoutMs: 30_000 });
    expect(took.time).toBeGreaterThanOrEqual(killedAt);
    await ready('meanwhile');
    await create('after');
    await ready('after');
    const lease = must(await svc.client.get<LeaseObject>(leaseResource, `${svc.agentName}.${svc.exportName}`, { namespace: leaseNamespace }));
    expect(lease.spec?.holderIdentity).toBe(identityOf(standby));
    expect(await metricSum(standby, 'rxfleet_write_requests_total')).toBeGreaterThan(0);
  });
});
