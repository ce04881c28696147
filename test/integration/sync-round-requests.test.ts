// What the sync agent's checks send, counted in-process against the real servers (the shared
// kube-apiserver as the service cluster, two workspaces of the shared kcp as the default
// installation's and `eu`'s provider workspaces, eu's reached through a TCP proxy that counts its
// connections). Every client the agent makes is counted by its requests' recorder (a client made
// with `countedWhileOpen` tells the recorder when it closes). The start (`syncAgent`) is one round:
// one service client and one list of its CRDs for the default installation's check and eu's; a
// live round with two PublishedResources lists the service cluster's CRDs once and reads no CRD on
// its own (the served ones' schema names come from that list), and its removal of deleted entries
// from eu's export goes through the connection the round checked eu with.
import { randomBytes } from 'node:crypto';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RequestRecorder } from '../../src/client/index.js';
import { installDatabaseCrd } from '../../examples/sync-agent/api.js';
import { agentClients } from '../../packages/sync-agent/src/agent-clients.js';
import { syncAgent } from '../../packages/sync-agent/src/agent.js';
import type { SyncAgentOptions } from '../../packages/sync-agent/src/agent.js';
import { parseSyncConfig } from '../../packages/sync-agent/src/config.js';
import { liveInstallations } from '../../packages/sync-agent/src/live-installations.js';
import { preflightRound } from '../../packages/sync-agent/src/preflight-round.js';
import { acceptPublished } from '../../packages/sync-agent/src/published-live.js';
import { sharedKcp, sharedKubeApiserver } from '../support/context.js';
import { tempFile } from '../support/sync-agent-process.js';
import type { ServiceSide } from '../support/sync-agent-service.js';
import { startService } from '../support/sync-agent-service.js';
import { liveEuConfig, publishedResourceOf } from '../support/sync-published-resources.js';
import type { TcpProxy } from '../support/tcp-proxy.js';
import { startTcpProxy } from '../support/tcp-proxy.js';

const tag = randomBytes(3).toString('hex');
const logger = pino({ level: 'silent' });
let svc: ServiceSide;
let proxy: TcpProxy;
let files: { kcp: string; service: string; eu: string };
let other: string;

/** Requests by `cluster verb`, and clients closed by cluster: what `options` made. */
function counted(): { readonly record: RequestRecorder; readonly requests: Map<string, number>; readonly clients: Map<string, number> } {
  const requests = new Map<string, number>();
  const clients = new Map<string, number>();
  const record: RequestRecorder = Object.assign(
    (cluster: string, verb: string) => {
      requests.set(`${cluster} ${verb}`, (requests.get(`${cluster} ${verb}`) ?? 0) + 1);
    },
    { forget: (cluster: string) => {
      clients.set(cluster, (clients.get(cluster) ?? 0) + 1);
    } },
  );
  return { record, requests, clients };
}

const optionsOf = (configYaml: string, record: RequestRecorder): SyncAgentOptions => ({
  config: parseSyncConfig(configYaml),
  kcp: { file: files.kcp },
  service: { file: files.service },
  client: { requests: record, countedWhileOpen: true },
});

beforeAll(async () => {
  const kas = sharedKubeApiserver();
  svc = await startService(kas.kubeconfigYaml('admin'));
  other = `other${tag}.example.dev`;
  await installDatabaseCrd(svc.client, other);
  const [p, pEu] = await Promise.all([sharedKcp().createWorkspace(), sharedKcp().createWorkspace()]);
  const euYaml = pEu.kubeconfigYaml();
  const port = /https:\/\/127\.0\.0\.1:(\d+)/.exec(euYaml)?.[1];
  if (port === undefined) throw new Error(`eu's kubeconfig names no https://127.0.0.1 server:\n${euYaml}`);
  proxy = await startTcpProxy(Number(port));
  files = {
    kcp: tempFile('kcp.kubeconfig', p.kubeconfigYaml()),
    service: tempFile('service.kubeconfig', kas.kubeconfigYaml('admin')),
    eu: euYaml.replaceAll(`https://127.0.0.1:${port}`, `https://127.0.0.1:${String(proxy.port)}`),
  };
});

afterAll(async () => {
  await proxy.close();
  await svc.stop();
});

describe('sync agent: the requests and connections of its checks', () => {
  it('starts with one round: one service client and one CRD list for the default installation and eu, eu through one connection', { timeout: 120_000 }, async () => {
    const c = counted();
    const accepted = proxy.stats.accepted;
    // A namespace template with text of its own: two installations' places cannot meet.
    const config = `${svc.configYaml.replace(`namespace: '{{ .ClusterName }}'`, `namespace: 'ws-{{ .ClusterName }}'`)}\ninstallations:\n  - name: eu\n    kubeconfig: ${tempFile('eu.kubeconfig', files.eu)}\n    namespacePrefix: eu-\n`;
    const controllers = await syncAgent(optionsOf(config, c.record));
    expect(controllers.length).toBeGreaterThan(0);
    expect({ clients: Object.fromEntries(c.clients), serviceLists: c.requests.get('service list'), euConnections: proxy.stats.accepted - accepted }).toEqual({
      clients: { 'service': 1, 'kcp-export': 1, 'eu#kcp-export': 1 },
      serviceLists: 1,
      euConnections: 1,
    });
  });

  it('checks two PublishedResources in a round with one CRD list and no CRD read of their own; removes through the round\'s connection', { timeout: 120_000 }, async () => {
    const c = counted();
    const options = optionsOf(liveEuConfig(svc, tag, files.eu), c.record);
    const naming = { naming: { namespace: 'ws-{{ .ClusterName }}' } };
    // As the agent lists them: name, labels and spec.
    const objects = [publishedResourceOf(`first-${tag}`, svc.group, 'Database', tag, naming), publishedResourceOf(`second-${tag}`, other, 'Database', tag, naming)].map((o) => ({ metadata: o.metadata, spec: o.spec }));
    const accepted = proxy.stats.accepted;
    const clients = agentClients(options);
    const round = preflightRound(options, clients);
    try {
      const next = await acceptPublished(options.config, objects, round.clients, round.checks);
      // Served, with their schemas' names (made from the round's CRD list).
      expect(next.verdicts.map((v) => [v.accepted, v.schema?.endsWith(`.databases.${v.name.startsWith('first') ? svc.group : other}`)])).toEqual([[true, true], [true, true]]);
      await liveInstallations(options, logger).retire(new Set(objects.map((o) => o.metadata.name ?? '')), next.unchecked, round);
    } finally {
      round.close();
      clients.service.close();
      clients.kcp.close();
    }
    const service = [...c.requests].filter(([k]) => k.startsWith('service '));
    expect({ service: Object.fromEntries(service), clients: Object.fromEntries(c.clients), euConnections: proxy.stats.accepted - accepted }).toEqual({
      service: { 'service list': 1 },
      // The agent's own two, and eu's one for the round's checks and its removals.
      clients: { 'service': 1, 'kcp-export': 1, 'eu#kcp-export': 1 },
      euConnections: 1,
    });
  });
});
