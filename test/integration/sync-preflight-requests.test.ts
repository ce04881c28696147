// The sync agent's preflight is counted like every other request (issue 26): `rxfleet-sync-agent`
// as its own process, not watching PublishedResources, reads the service cluster's CRDs and kcp's
// APIExport before its run exists; those reads are served on the run's /metrics as the agent's own
// requests (`controller="rxfleet-sync-agent"`), beside the controllers'.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sharedKcp, sharedKubeApiserver } from '../support/context.js';
import type { SyncAgentProcess } from '../support/sync-agent-process.js';
import { startSyncAgent, tempFile, waitFor } from '../support/sync-agent-process.js';
import type { ServiceSide } from '../support/sync-agent-service.js';
import { startService } from '../support/sync-agent-service.js';

let svc: ServiceSide;
let agent: SyncAgentProcess;
const context = (): string => agent.tail(60);

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
    const url = await waitFor('the probe server listening', () => {
      const u = agent.lines().find((l) => typeof l.url === 'string')?.url;
      return Promise.resolve(typeof u === 'string' ? u : undefined);
    }, { context });
    const own = (await (await fetch(`${url}/metrics`)).text()).split('\n').filter((l) => l.startsWith('rxfleet_requests_total{') && l.includes('controller="rxfleet-sync-agent"'));
    // Nothing but the preflight sends through the agent's own recorder here: the service cluster's
    // CRDs listed, the provider workspace's APIExport read.
    expect(own.some((l) => l.includes('verb="list"') && l.includes('result="2xx"'))).toBe(true);
    expect(own.some((l) => l.includes('verb="get"'))).toBe(true);
  });
});
