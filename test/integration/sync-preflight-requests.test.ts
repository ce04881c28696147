// The sync agent's preflight is counted like every other request (issue 26): `rxfleet-sync-agent`
// as its own process, not watching PublishedResources, reads the service cluster's CRDs and kcp's
// APIExport before its run exists; those reads are served on the run's /metrics as the agent's own
// requests (`controller="rxfleet-sync-agent"`), beside the controllers'. And a live agent's check of
// the PublishedResources (a round) costs one read of each server, not one per PublishedResource per
// installation: with two installations (the default and `eu`, another workspace of the shared kcp
// with its own kubeconfig) and two PublishedResources, each provider workspace is read once by the
// start's check, once by the round, and by the round's removal of deleted entries; the service
// cluster's CRDs are listed by the round, and not read one by one for the served ones' schema names.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installDatabaseCrd } from '../../examples/sync-agent/api.js';
import { sharedKcp, sharedKubeApiserver } from '../support/context.js';
import type { SyncAgentProcess } from '../support/sync-agent-process.js';
import { startSyncAgent, tempFile, waitFor } from '../support/sync-agent-process.js';
import type { ServiceSide } from '../support/sync-agent-service.js';
import { startService } from '../support/sync-agent-service.js';
import { installPublishedResourceCrd, liveEuConfig, publishedResourceOf, publishedResources, readyCondition } from '../support/sync-published-resources.js';
import { must } from '../support/wait.js';

let svc: ServiceSide;
let agent: SyncAgentProcess;

/** The agent's own requests (`controller="rxfleet-sync-agent"`) on its /metrics, once it serves them. */
async function ownRequests(a: SyncAgentProcess): Promise<string[]> {
  const url = await waitFor('the probe server listening', () => {
    const u = a.lines().find((l) => typeof l.url === 'string')?.url;
    return Promise.resolve(typeof u === 'string' ? u : undefined);
  }, { context: () => a.tail(60) });
  return (await (await fetch(`${url}/metrics`)).text()).split('\n').filter((l) => l.includes('controller="rxfleet-sync-agent"'));
}

/** The agent's own requests of one verb, every cluster and result. */
const ofVerb = (own: readonly string[], verb: string): number =>
  own.filter((l) => l.startsWith('rxfleet_requests_total{') && l.includes(`verb="${verb}"`)).reduce((n, l) => n + Number(l.split(' ').at(-1)), 0);

/** The agent's own requests to one cluster, every result. */
const toCluster = (own: readonly string[], cluster: string): number =>
  own.filter((l) => l.startsWith('rxfleet_cluster_requests_total{') && l.includes(`cluster="${cluster}"`)).reduce((n, l) => n + Number(l.split(' ').at(-1)), 0);

beforeAll(async () => {
  const kas = sharedKubeApiserver();
  svc = await startService(kas.kubeconfigYaml('admin'));
  const p = await sharedKcp().createWorkspace();
  agent = startSyncAgent({ configFile: tempFile('sync.yaml', svc.configYaml), kcpKubeconfig: tempFile('kcp.kubeconfig', p.kubeconfigYaml()), serviceKubeconfig: tempFile('service.kubeconfig', kas.kubeconfigYaml('admin')) });
});

afterAll(async () => {
  await agent.stop(10_000);
  await svc.stop();
});

describe('rxfleet-sync-agent: its preflight', () => {
  it("is counted on the run's /metrics as the agent's own requests", async () => {
    const own = (await ownRequests(agent)).filter((l) => l.startsWith('rxfleet_requests_total{'));
    // Nothing but the preflight sends through the agent's own recorder here: the service cluster's
    // CRDs listed, the provider workspace's APIExport read.
    expect(own.some((l) => l.includes('verb="list"') && l.includes('result="2xx"'))).toBe(true);
    expect(own.some((l) => l.includes('verb="get"'))).toBe(true);
  });
});

describe('rxfleet-sync-agent following PublishedResources with two installations', () => {
  let live: SyncAgentProcess;
  const tag = randomBytes(3).toString('hex');
  const names = [`first-${tag}`, `second-${tag}`];
  const liveContext = (): string => live.tail(60);

  beforeAll(async () => {
    const kas = sharedKubeApiserver();
    await installPublishedResourceCrd(svc.client);
    // A second CRD, so that two PublishedResources can be served side by side.
    const other = `other${tag}.example.dev`;
    await installDatabaseCrd(svc.client, other);
    // Both exist before the agent starts: its first round checks both.
    const naming = { naming: { namespace: 'ws-{{ .ClusterName }}' } };
    for (const [name, group] of [[names[0], svc.group], [names[1], other]] as const) must(await svc.client.create(publishedResources, publishedResourceOf(name ?? '', group, 'Database', tag, naming)));
    const [p, pEu] = await Promise.all([sharedKcp().createWorkspace(), sharedKcp().createWorkspace()]);
    const config = liveEuConfig(svc, tag, pEu.kubeconfigYaml());
    live = startSyncAgent({ configFile: tempFile('sync.yaml', config), kcpKubeconfig: tempFile('kcp.kubeconfig', p.kubeconfigYaml()), serviceKubeconfig: tempFile('service.kubeconfig', kas.kubeconfigYaml('admin')) });
  });

  afterAll(async () => {
    await live.stop(10_000);
    for (const name of names) await svc.client.delete(publishedResources, name);
  });

  it('reads each provider workspace once per round, however many PublishedResources and installations it checks', { timeout: 180_000 }, async () => {
    for (const name of names) await readyCondition(svc.client, name, 'True', liveContext);
    // The round's last step is logged: its requests are all counted by then.
    await waitFor('the round done', () => Promise.resolve(live.lines().some((l) => l.msg === 'the PublishedResources checked: verdicts written, entries of deleted ones removed') || undefined), { context: liveContext });
    const own = await ownRequests(live);
    // Each provider workspace: the start's check reads its APIExport (1); the round reads it once for
    // every check of both PublishedResources (1); the round's removal of deleted entries lists the
    // agent's schemas and reads the export (2). One check per PublishedResource per installation,
    // each on its own connection, read it 1 + 2 times in the round.
    expect({ default: toCluster(own, 'kcp-export'), eu: toCluster(own, 'eu#kcp-export') }).toEqual({ default: 4, eu: 4 });
    // Every read of one object: those APIExport reads, 3 per workspace, and nothing on the service
    // cluster (no related resources, so no discovery): the served PublishedResources' schema names
    // come from the CRD list the round's checks read, where each was one CRD read more.
    expect(ofVerb(own, 'get')).toBe(6);
  });
});
