// A related resource whose group and resource differ between kcp and the service cluster (issue 28
// item 4: `related[].projection`), on the real kcp and kube-apiserver with `rxfleet-sync-agent` as its
// own process: a Lease in the workspace becomes a Token (a CRD of the service's) on the service
// cluster, and an operator's Token becomes a Lease in the workspace. Every check reads the data that
// arrived.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClusterClient } from '../../src/client/index.js';
import type { KubeObject, ResourceDescriptor } from '../../src/index.js';
import { resource } from '../../src/index.js';
import { E } from '../../src/fp/index.js';
import type { Lease } from '../../src/resources/index.js';
import { customResourceDefinitions, leases } from '../../src/resources/index.js';
import type { Database } from '../../examples/sync-agent/api.js';
import { databasesIn } from '../../examples/sync-agent/api.js';
import type { SyncConfig } from '../../packages/sync-agent/src/types.js';
import { sharedKcp, sharedKubeApiserver } from '../support/context.js';
import type { KcpWorkspace } from '../support/kcp.js';
import type { Export } from '../support/sync-agent-kcp.js';
import { bindExport, getOrUndefined, waitForExport } from '../support/sync-agent-kcp.js';
import type { SyncAgentProcess } from '../support/sync-agent-process.js';
import { startSyncAgent, tempFile, waitFor } from '../support/sync-agent-process.js';
import { backRef } from '../support/sync-agent-service.js';
import { must } from '../support/wait.js';
import { clientFrom } from './runtime-support.js';
import type { TenancyService } from './sync-tenancy-support.js';
import { startTenancyService } from './sync-tenancy-support.js';

type Db = Database & { readonly spec: Database['spec'] & { readonly configName?: string } };
type Token = KubeObject & { readonly spec?: { readonly holderIdentity?: string } };
interface Workspace { readonly ws: KcpWorkspace; readonly client: ClusterClient }

const tokenGroup = `tok${randomBytes(4).toString('hex')}.example.dev`;
const tokens = resource<Token>({ group: tokenGroup, version: 'v1', plural: 'tokens', kind: 'Token', namespaced: true });
let svc: TenancyService;
let agent: SyncAgentProcess;
let exported: Export;
let a: Workspace;
const context = (): string => agent.tail(60);
const dbs = (): ResourceDescriptor<Db> => databasesIn(svc.group);

const config = (namespace: string): SyncConfig => ({
  agentName: svc.agentName,
  apiExport: svc.exportName,
  published: [
    {
      name: 'databases',
      crd: { group: svc.group, kind: 'Database' },
      naming: { namespace, name: '{{ .ClusterName }}-{{ sha3short .Object.metadata.namespace 8 }}-{{ sha3short .Object.metadata.name 8 }}' },
      related: [
        { identifier: 'lock', origin: 'kcp', group: 'coordination.k8s.io', version: 'v1', resource: 'leases', projection: { group: tokenGroup, resource: 'tokens' }, object: { path: 'spec.configName' } },
        { identifier: 'grant', origin: 'service', group: tokenGroup, version: 'v1', resource: 'tokens', projection: { group: 'coordination.k8s.io', resource: 'leases' }, object: { path: 'spec.connectionSecretName' } },
      ],
    },
  ],
});

const workspace = async (): Promise<Workspace> => {
  const ws = await sharedKcp().createWorkspace();
  return { ws, client: clientFrom(ws.path, ws.kubeconfigYaml()) };
};

beforeAll(async () => {
  const kas = sharedKubeApiserver();
  svc = await startTenancyService(kas.kubeconfigYaml('admin'));
  must(await svc.client.apply(customResourceDefinitions, {
    metadata: { name: `tokens.${tokenGroup}` },
    spec: { group: tokenGroup, scope: 'Namespaced', names: { plural: 'tokens', singular: 'token', kind: 'Token', listKind: 'TokenList' }, versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }] },
  }, { fieldManager: 'test', force: true }));
  await waitFor('tokens served on the service cluster', async () => (E.isRight(await svc.client.list(tokens, { limit: 1 })) ? true : undefined));
  const [provider, wa] = await Promise.all([workspace(), workspace()]);
  a = wa;
  const files = { configFile: tempFile('sync.yaml', JSON.stringify(config(svc.sharedNamespace))), kcpKubeconfig: tempFile('kcp.kubeconfig', provider.ws.kubeconfigYaml()), serviceKubeconfig: tempFile('service.kubeconfig', kas.kubeconfigYaml('admin')) };
  agent = startSyncAgent(files);
  exported = await waitForExport(provider.client, svc.exportName, (e) => (e.spec?.resources ?? []).length > 0 && (e.spec?.permissionClaims ?? []).length > 0, context);
  await bindExport(a.client, exported, provider.ws.path, dbs());
});

afterAll(async () => {
  await agent.stop(10_000);
  await svc.stop();
});

describe('rxfleet-sync-agent: related objects projected to another resource on the other side', () => {
  it('the export claims the kcp side\'s resource only', () => {
    expect((exported.spec?.permissionClaims ?? []).map((c) => `${c.resource}.${c.group ?? ''}`)).toEqual(['leases.coordination.k8s.io']);
  });

  it('a Lease goes down as a Token, and a Token comes up as a Lease, each with its contents and back-reference', async () => {
    must(await a.client.create(leases, { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'a-lock', namespace: 'default' }, spec: { holderIdentity: 'tenant-a' } }));
    must(await a.client.apply(dbs(), { metadata: { name: 'orders', namespace: 'default' }, spec: { engine: 'postgres', size: 1, configName: 'a-lock', connectionSecretName: 'a-grant' } }, { fieldManager: 'consumer' }));
    const copy = await waitFor('the copy of orders', async () => (await svc.copiesFrom(a.ws.logicalCluster)).find((c) => backRef(c).name === 'orders') as Db | undefined, { context });
    const down = await waitFor('the Token on the service cluster', async () => {
      const t = await getOrUndefined<Token>(svc.client, tokens, copy.spec.configName ?? '', svc.sharedNamespace);
      return t?.spec?.holderIdentity === 'tenant-a' ? t : undefined;
    }, { context });
    expect(down.kind).toBe('Token');
    expect(backRef(down)).toMatchObject({ cluster: a.ws.logicalCluster, namespace: 'default', name: 'orders' });
    must(await svc.client.create(tokens, { apiVersion: `${tokenGroup}/v1`, kind: 'Token', metadata: { name: copy.spec.connectionSecretName ?? '', namespace: svc.sharedNamespace }, spec: { holderIdentity: 'granted-to-a' } }));
    const up = await waitFor('the Lease in the workspace', async () => {
      const l = await getOrUndefined<Lease>(a.client, leases, 'a-grant', 'default');
      return l?.spec?.holderIdentity === 'granted-to-a' ? l : undefined;
    }, { context });
    expect(backRef(up)).toMatchObject({ cluster: a.ws.logicalCluster, namespace: 'default', name: 'orders' });
  });
});
