// The setup the PublishedResource tests share: a service (CRD under a fresh group, the example's
// operator), a provider and a consumer workspace, `rxfleet-sync-agent` started with the given
// configuration, the export it keeps, and the consumer bound to it.
import type { ClusterClient } from '../../src/client/index.js';
import type { ResourceDescriptor } from '../../src/index.js';
import { sharedKcp, sharedKubeApiserver } from '../support/context.js';
import { bindExport, waitForExport } from '../support/sync-agent-kcp.js';
import type { SyncAgentProcess } from '../support/sync-agent-process.js';
import { startSyncAgent, tempFile } from '../support/sync-agent-process.js';
import type { ServiceSide } from '../support/sync-agent-service.js';
import { startService } from '../support/sync-agent-service.js';
import { clientFrom } from './runtime-support.js';

/** What a test reads and writes through, and stops at the end. */
export interface PublishedSetup {
  readonly svc: ServiceSide;
  readonly agent: SyncAgentProcess;
  readonly provider: ClusterClient;
  readonly consumer: ClusterClient;
  /** The consumer workspace's logical cluster. */
  readonly logical: string;
  /** The agent's last log lines, for a failure's message. */
  readonly context: () => string;
  readonly stop: () => Promise<void>;
}

/**
 * Starts a service, two workspaces and the agent with `config(svc)`, and binds the consumer once the
 * export lists a resource (and a claim, when `claims` is set).
 *
 * @param config - the agent's configuration for the service (written as YAML-compatible JSON).
 * @param bound - the resource the consumer binds (as consumers see it).
 * @param claims - whether to wait for the export's permission claims too.
 * @returns the setup.
 */
export async function startPublishedSetup(config: (svc: ServiceSide) => unknown, bound: (svc: ServiceSide) => ResourceDescriptor, claims: boolean): Promise<PublishedSetup> {
  const kas = sharedKubeApiserver();
  const svc = await startService(kas.kubeconfigYaml('admin'), { readyAfterMs: 200, deprovisionMs: 200 });
  const [p, ws] = await Promise.all([sharedKcp().createWorkspace(), sharedKcp().createWorkspace()]);
  const provider = clientFrom(p.path, p.kubeconfigYaml());
  const consumer = clientFrom(ws.path, ws.kubeconfigYaml());
  const agent = startSyncAgent({ configFile: tempFile('sync.yaml', JSON.stringify(config(svc))), kcpKubeconfig: tempFile('kcp.kubeconfig', p.kubeconfigYaml()), serviceKubeconfig: tempFile('service.kubeconfig', kas.kubeconfigYaml('admin')) });
  const context = (): string => agent.tail(60);
  const exported = await waitForExport(provider, svc.exportName, (e) => (e.spec?.resources ?? []).length > 0 && (!claims || (e.spec?.permissionClaims ?? []).length > 0), context);
  await bindExport(consumer, exported, p.path, bound(svc));
  const stop = async (): Promise<void> => {
    await agent.stop(10_000);
    await svc.stop();
  };
  return { svc, agent, provider, consumer, logical: ws.logicalCluster, context, stop };
}
