// `/readyz` of `rxfleet-sync-agent` holds back while a cluster it needs is forbidden (issue 28 item
// 2), on the real kcp and kube-apiserver with the agent as its own process: on the service cluster
// it runs as a ServiceAccount whose RBAC grants everything the agent needs but Secrets. The agent
// runs and reports the service cluster unhealthy; `/readyz` answers 503 naming the cluster and the
// cause. Granting Secrets while it runs turns `/readyz` to 200, with no restart.
import { randomBytes } from 'node:crypto';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClusterClient } from '../../src/client/index.js';
import { clusterRoleBindings, clusterRoles } from '../../src/resources/index.js';
import { sharedKcp, sharedKubeApiserver } from '../support/context.js';
import type { SyncAgentProcess } from '../support/sync-agent-process.js';
import { startSyncAgent, tempFile } from '../support/sync-agent-process.js';
import type { ServiceSide } from '../support/sync-agent-service.js';
import { startService } from '../support/sync-agent-service.js';
import { eventually, must } from '../support/wait.js';
import { clientFrom, httpGet } from './runtime-support.js';

let svc: ServiceSide;
let admin: ClusterClient;
let agent: SyncAgentProcess;
let account: string;
const context = (): string => agent.tail(40);

/** A ServiceAccount of the service cluster and a kubeconfig with its token (no grants yet). */
async function serviceAccountKubeconfig(name: string): Promise<string> {
  must(
    await admin.raw({
      method: 'POST',
      path: '/api/v1/namespaces/default/serviceaccounts',
      body: JSON.stringify({
        apiVersion: 'v1',
        kind: 'ServiceAccount',
        metadata: { name },
      }),
    }),
  );
  const token = must(
    await admin.raw({
      method: 'POST',
      path: `/api/v1/namespaces/default/serviceaccounts/${name}/token`,
      body: JSON.stringify({
        apiVersion: 'authentication.k8s.io/v1',
        kind: 'TokenRequest',
        spec: { expirationSeconds: 3600 },
      }),
    }),
  ) as { status?: { token?: string } };
  const kc = new KubeConfig();
  kc.loadFromString(sharedKubeApiserver().kubeconfigYaml('admin'));
  const cluster = kc.getCurrentCluster();
  if (cluster === null || token.status?.token === undefined) throw new Error('no cluster in the admin kubeconfig, or no token');
  const sa = new KubeConfig();
  sa.loadFromClusterAndUser(cluster, { name, token: token.status.token });
  return sa.exportConfig();
}

/** A ClusterRole with `rules`, bound to the ServiceAccount. */
async function grant(
  name: string,
  rules: readonly {
    apiGroups: string[];
    resources: string[];
    verbs: string[];
  }[],
): Promise<void> {
  must(await admin.create(clusterRoles, { metadata: { name }, rules: [...rules] }));
  must(
    await admin.create(clusterRoleBindings, {
      metadata: { name },
      roleRef: {
        apiGroup: 'rbac.authorization.k8s.io',
        kind: 'ClusterRole',
        name,
      },
      subjects: [{ kind: 'ServiceAccount', name: account, namespace: 'default' }],
    }),
  );
}

/** `/readyz` of the agent, or `undefined` until it has said its probe URL. */
const readyz = async (): Promise<{ status: number; body: string } | undefined> => {
  const url = agent.lines().find((l) => typeof l.url === 'string')?.url;
  return typeof url === 'string' ? httpGet(`${url}/readyz`) : undefined;
};

beforeAll(async () => {
  const kas = sharedKubeApiserver();
  svc = await startService(kas.kubeconfigYaml('admin'), {
    readyAfterMs: 200,
    deprovisionMs: 500,
  });
  admin = clientFrom('service-admin', kas.kubeconfigYaml('admin'));
  account = `agent-${randomBytes(4).toString('hex')}`;
  const yaml = await serviceAccountKubeconfig(account);
  // Everything the agent reads and writes on the service cluster, but Secrets.
  await grant(`${account}-all-but-secrets`, [
    {
      apiGroups: ['apiextensions.k8s.io'],
      resources: ['customresourcedefinitions'],
      verbs: ['get', 'list', 'watch'],
    },
    { apiGroups: [svc.group], resources: ['*'], verbs: ['*'] },
    { apiGroups: [''], resources: ['namespaces', 'events'], verbs: ['*'] },
    { apiGroups: ['events.k8s.io'], resources: ['events'], verbs: ['*'] },
  ]);
  const p = await sharedKcp().createWorkspace();
  const files = {
    configFile: tempFile('sync.yaml', svc.configYaml),
    kcpKubeconfig: tempFile('kcp.kubeconfig', p.kubeconfigYaml()),
    serviceKubeconfig: tempFile('service.kubeconfig', yaml),
  };
  agent = startSyncAgent(files);
});

afterAll(async () => {
  await agent.stop(10_000);
  await svc.stop();
  await Promise.all([admin.delete(clusterRoleBindings, `${account}-all-but-secrets`), admin.delete(clusterRoleBindings, `${account}-secrets`)]);
  await Promise.all([admin.delete(clusterRoles, `${account}-all-but-secrets`), admin.delete(clusterRoles, `${account}-secrets`)]);
  admin.close();
});

describe('rxfleet-sync-agent: /readyz and the clusters it needs', () => {
  it('answers 503 naming the service cluster and the cause while Secrets are forbidden there, and 200 once they are granted', async () => {
    const held = await eventually(
      'the service cluster reported forbidden on /readyz',
      async () => {
        const r = await readyz();
        return r !== undefined && /cluster service: unhealthy \(.*secrets.*forbidden/i.test(r.body) ? r : undefined;
      },
      { timeoutMs: 90_000, intervalMs: 200, context },
    );
    expect(held.status).toBe(503);
    expect(held.body).toMatch(/^why: required cluster service is unhealthy: .*secrets.*forbidden/im);

    await grant(`${account}-secrets`, [{ apiGroups: [''], resources: ['secrets'], verbs: ['*'] }]);
    const ready = await eventually(
      '/readyz 200 once Secrets are granted',
      async () => {
        const r = await readyz();
        return r?.status === 200 ? r : undefined;
      },
      { timeoutMs: 90_000, intervalMs: 200, context },
    );
    expect(ready.body).toMatch(/cluster service: synced/);
  });
});
