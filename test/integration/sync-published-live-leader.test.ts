// Watched PublishedResources under leader election (issue 28 item 4): two `rxfleet-sync-agent`
// processes with `watchPublishedResources: true` and `--leader-election-namespace`. Both check a
// PublishedResource and log their verdict; only the leader writes its `Ready` condition (one writer),
// a served one starts its controllers in the running run, so the Lease keeps its holder and its
// transitions; and after kill -9 of the leader the standby, once it leads, writes the verdicts of what
// changed.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { leases, namespaces } from '../../src/index.js';
import { sharedKcp, sharedKubeApiserver } from '../support/context.js';
import { getOrUndefined } from '../support/sync-agent-kcp.js';
import type { SyncAgentProcess } from '../support/sync-agent-process.js';
import { startSyncAgent, tempFile, waitFor } from '../support/sync-agent-process.js';
import type { ServiceSide } from '../support/sync-agent-service.js';
import { startService } from '../support/sync-agent-service.js';
import type { PublishedResourceObject } from '../support/sync-published-resources.js';
import { installPublishedResourceCrd, publishedResourceOf, publishedResources } from '../support/sync-published-resources.js';
import { must } from '../support/wait.js';

let svc: ServiceSide;
let leaseNamespace: string;
const agents: SyncAgentProcess[] = [];
const tag = randomBytes(3).toString('hex');
const context = (): string => agents.map((a, i) => `--- agent ${i} ---\n${a.tail(30)}`).join('\n');
const refusedResource = (name: string): PublishedResourceObject => publishedResourceOf(name, svc.group, 'Nothing', tag);
const linesOf = (a: SyncAgentProcess, msg: string, name: string): number => a.lines().filter((l) => l.msg === msg && l.publishedResource === name).length;
const leading = (a: SyncAgentProcess): boolean => a.lines().some((l) => (l.replica as { type?: unknown } | undefined)?.type === 'leading');
const refusedOnServer = (name: string): Promise<true> =>
  waitFor(`${name} Ready=False`, async () => ((await getOrUndefined(svc.client, publishedResources, name))?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'False') === true ? true : undefined), { context });

beforeAll(async () => {
  const kas = sharedKubeApiserver();
  svc = await startService(kas.kubeconfigYaml('admin'));
  await installPublishedResourceCrd(svc.client);
  leaseNamespace = `sync-live-leader-${tag}`;
  must(await svc.client.create(namespaces, { metadata: { name: leaseNamespace } }));
  const p = await sharedKcp().createWorkspace();
  const config = [`apiExport: ${svc.exportName}`, `agentName: ${svc.agentName}`, 'watchPublishedResources: true', `publishedResourceSelector: rxfleet-test=${tag}`].join('\n');
  const files = { configFile: tempFile('sync.yaml', config), kcpKubeconfig: tempFile('kcp.kubeconfig', p.kubeconfigYaml()), serviceKubeconfig: tempFile('service.kubeconfig', kas.kubeconfigYaml('admin')) };
  const args = ['--leader-election-namespace', leaseNamespace, '--lease-duration-ms', '4000', '--renew-deadline-ms', '3000', '--retry-period-ms', '500'];
  const first = startSyncAgent({ ...files, args });
  agents.push(first);
  await waitFor('agent 0 leading', () => (leading(first) ? true : undefined), { context });
  const second = startSyncAgent({ ...files, args });
  agents.push(second);
  await waitFor('agent 1 running its (empty) set as a standby', () => (second.lines().some((l) => l.msg === 'running the published resources') ? true : undefined), { context });
});

afterAll(async () => {
  await Promise.all(agents.map((a) => a.stop(10_000)));
  await Promise.all([svc.client.delete(publishedResources, `one-${tag}`), svc.client.delete(publishedResources, `two-${tag}`), svc.client.delete(publishedResources, `served-${tag}`)]);
  await svc.stop();
});

describe('watched PublishedResources under leader election: one writer of their conditions', () => {
  it('both replicas check a PublishedResource; one of them, the leader, writes its condition', async () => {
    const name = `one-${tag}`;
    const runs = (a: SyncAgentProcess): number => a.lines().filter((l) => l.msg === 'running the published resources').length;
    const before = agents.map(runs);
    must(await svc.client.create(publishedResources, refusedResource(name)));
    await refusedOnServer(name);
    // Each replica's verdict, then its next set running (a write without leading would come before that),
    // then the leader's write.
    await waitFor('both replicas running their next set', () => (agents.every((a, i) => runs(a) > (before[i] ?? 0)) ? true : undefined), { context });
    await waitFor('a write of the condition', () => (agents.some((a) => linesOf(a, 'wrote the Ready condition of a PublishedResource', name) > 0) ? true : undefined), { context });
    for (const a of agents) expect(linesOf(a, 'PublishedResource refused', name)).toBeGreaterThan(0);
    expect(agents.map((a) => linesOf(a, 'wrote the Ready condition of a PublishedResource', name)).sort()).toEqual([0, 1]);
  });

  it('a served PublishedResource joins the running run: its controller starts, and the Lease keeps its holder and transitions', async () => {
    const lease = async (): Promise<readonly [string | undefined, number | undefined]> => {
      const [l] = must(await svc.client.list(leases, { namespace: leaseNamespace })).items;
      return [l?.spec?.holderIdentity, l?.spec?.leaseTransitions];
    };
    const before = await lease();
    expect(before[0]).toBeDefined();
    const name = `served-${tag}`;
    must(await svc.client.create(publishedResources, publishedResourceOf(name, svc.group, 'Database', tag)));
    const started = (a: SyncAgentProcess): boolean => a.lines().some((l) => l.msg === 'controller running' && l.controller === `${svc.agentName}.${name}`);
    await waitFor('its controller started in both replicas', () => (agents.every(started) ? true : undefined), { context });
    await waitFor(`${name} Ready=True`, async () => ((await getOrUndefined(svc.client, publishedResources, name))?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true ? true : undefined), { context });
    expect(await lease()).toEqual(before);
  });

  it('kill -9 of the leader: the standby, once it leads, writes the conditions', async () => {
    const writer = agents.find((a) => linesOf(a, 'wrote the Ready condition of a PublishedResource', `one-${tag}`) > 0);
    const standby = agents.find((a) => a !== writer);
    if (writer === undefined || standby === undefined) throw new Error('no writer of the first condition');
    await writer.kill();
    const name = `two-${tag}`;
    must(await svc.client.create(publishedResources, refusedResource(name)));
    await refusedOnServer(name);
    await waitFor('the survivor writing the condition', () => (linesOf(standby, 'wrote the Ready condition of a PublishedResource', name) === 1 ? true : undefined), { context });
  });
});
