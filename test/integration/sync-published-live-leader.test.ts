// Watched PublishedResources under leader election (issue 28 item 4): two `rxfleet-sync-agent`
// processes with `watchPublishedResources: true` and `--leader-election-namespace`. Both check a
// PublishedResource and log their verdict; only the leader writes its `Ready` condition (one writer),
// and after kill -9 of the leader the standby, once it leads, writes the verdicts of what changed.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { E } from '../../src/fp/index.js';
import type { KubeObject } from '../../src/index.js';
import { customResourceDefinitions, namespaces, resource } from '../../src/index.js';
import { repoRoot } from '../support/binaries.js';
import { sharedKcp, sharedKubeApiserver } from '../support/context.js';
import { getOrUndefined } from '../support/sync-agent-kcp.js';
import type { SyncAgentProcess } from '../support/sync-agent-process.js';
import { startSyncAgent, tempFile, waitFor } from '../support/sync-agent-process.js';
import type { ServiceSide } from '../support/sync-agent-service.js';
import { startService } from '../support/sync-agent-service.js';
import { must } from '../support/wait.js';

interface PublishedResourceObject extends KubeObject {
  readonly spec?: unknown;
  readonly status?: { readonly conditions?: readonly { readonly type: string; readonly status: string }[] };
}
const publishedResources = resource<PublishedResourceObject>({ group: 'syncagent.kcp.io', version: 'v1alpha1', plural: 'publishedresources', kind: 'PublishedResource', namespaced: false });

let svc: ServiceSide;
const agents: SyncAgentProcess[] = [];
const tag = randomBytes(3).toString('hex');
const context = (): string => agents.map((a, i) => `--- agent ${i} ---\n${a.tail(30)}`).join('\n');
const refusedResource = (name: string): PublishedResourceObject => ({
  apiVersion: 'syncagent.kcp.io/v1alpha1',
  kind: 'PublishedResource',
  metadata: { name, labels: { 'rxfleet-test': tag } },
  spec: { resource: { apiGroup: svc.group, kind: 'Nothing', versions: ['v1'] } },
});
const linesOf = (a: SyncAgentProcess, msg: string, name: string): number => a.lines().filter((l) => l.msg === msg && l.publishedResource === name).length;
const leading = (a: SyncAgentProcess): boolean => a.lines().some((l) => (l.replica as { type?: unknown } | undefined)?.type === 'leading');
const refusedOnServer = (name: string): Promise<true> =>
  waitFor(`${name} Ready=False`, async () => ((await getOrUndefined(svc.client, publishedResources, name))?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'False') === true ? true : undefined), { context });

beforeAll(async () => {
  const kas = sharedKubeApiserver();
  svc = await startService(kas.kubeconfigYaml('admin'));
  const crd = load(readFileSync(join(repoRoot, 'packages', 'sync-agent', 'crd', 'publishedresources.yaml'), 'utf8')) as KubeObject;
  const made = await svc.client.create(customResourceDefinitions, crd);
  if (E.isLeft(made) && made.left.type !== 'AlreadyExists') throw new Error(made.left.message);
  await waitFor('the PublishedResource CRD served', async () => (E.isRight(await svc.client.list(publishedResources, { limit: 1 })) ? true : undefined));
  const leaseNamespace = `sync-live-leader-${tag}`;
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
  await Promise.all([svc.client.delete(publishedResources, `one-${tag}`), svc.client.delete(publishedResources, `two-${tag}`)]);
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
    // then a leader of the new set (the Lease may change hands while both restart their sets).
    await waitFor('both replicas running their next set', () => (agents.every((a, i) => runs(a) > (before[i] ?? 0)) ? true : undefined), { context });
    await waitFor('a write of the condition', () => (agents.some((a) => linesOf(a, 'wrote the Ready condition of a PublishedResource', name) > 0) ? true : undefined), { context });
    for (const a of agents) expect(linesOf(a, 'PublishedResource refused', name)).toBeGreaterThan(0);
    expect(agents.map((a) => linesOf(a, 'wrote the Ready condition of a PublishedResource', name)).sort()).toEqual([0, 1]);
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
