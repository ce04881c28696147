// A related resource that another kcp APIExport provides (issue 28 item 4: `related[].identityHash`),
// on the real kcp and kube-apiserver with `rxfleet-sync-agent` as its own process: Widgets, exported
// from their own provider workspace, bound in the consumer's workspace next to the agent's export;
// the service cluster has a Widget CRD of its own. The agent's export claims widgets with the other
// export's identity hash, and Widgets travel each way. Every check reads the data that arrived.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClusterClient } from '../../src/client/index.js';
import type { ResourceDescriptor } from '../../src/index.js';
import { customResourceDefinitions } from '../../src/resources/index.js';
import { E } from '../../src/fp/index.js';
import type { Database } from '../../examples/sync-agent/api.js';
import { databasesIn } from '../../examples/sync-agent/api.js';
import type { SyncConfig } from '../../packages/sync-agent/src/types.js';
import { sharedKcp, sharedKubeApiserver } from '../support/context.js';
import type { KcpWorkspace } from '../support/kcp.js';
import type { ApiExportFixture, Widget } from '../support/kcp-apiexport.js';
import { getIn, setupApiExport } from '../support/kcp-apiexport.js';
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
interface Workspace { readonly ws: KcpWorkspace; readonly client: ClusterClient }

let svc: TenancyService;
let other: ApiExportFixture;
let identityHash: string;
let agent: SyncAgentProcess;
let exported: Export;
let a: Workspace;
const context = (): string => agent.tail(60);
const dbs = (): ResourceDescriptor<Db> => databasesIn(svc.group);
const widgets = (): ResourceDescriptor<Widget> => other.widgets;

const config = (namespace: string): SyncConfig => ({
  agentName: svc.agentName,
  apiExport: svc.exportName,
  published: [
    {
      name: 'databases',
      crd: { group: svc.group, kind: 'Database' },
      naming: { namespace, name: '{{ .ClusterName }}-{{ sha3short .Object.metadata.namespace 8 }}-{{ sha3short .Object.metadata.name 8 }}' },
      related: [
        { identifier: 'spec-widget', origin: 'kcp', group: other.group, version: 'v1', resource: 'widgets', identityHash, object: { path: 'spec.configName' } },
        { identifier: 'grant-widget', origin: 'service', group: other.group, version: 'v1', resource: 'widgets', identityHash, object: { path: 'spec.connectionSecretName' } },
      ],
    },
  ],
});

const widget = (name: string, namespace: string, size: number): Widget => ({ apiVersion: `${other.group}/v1`, kind: 'Widget', metadata: { name, namespace }, spec: { size } });

const sized = (client: ClusterClient, name: string, namespace: string, size: number, where: string): Promise<Widget> =>
  waitFor(`the Widget ${name} ${where} with size ${size}`, async () => {
    const w = await getOrUndefined<Widget>(client, widgets(), name, namespace);
    return w?.spec?.size === size ? w : undefined;
  }, { context });

const workspace = async (): Promise<Workspace> => {
  const ws = await sharedKcp().createWorkspace();
  return { ws, client: clientFrom(ws.path, ws.kubeconfigYaml()) };
};

beforeAll(async () => {
  const kas = sharedKubeApiserver();
  svc = await startTenancyService(kas.kubeconfigYaml('admin'));
  other = await setupApiExport(sharedKcp().adminKubeconfigPath);
  identityHash = await waitFor('the other export\'s identity hash', async () => {
    const got = await getIn(other.workspaceKubeConfig(other.providerWorkspace), `/apis/apis.kcp.io/v1alpha2/apiexports/${other.exportName}`);
    return (got as { status?: { identityHash?: string } } | undefined)?.status?.identityHash;
  });
  // The service cluster's own Widget CRD (the service provider makes sure it is there).
  must(await svc.client.apply(customResourceDefinitions, {
    metadata: { name: `widgets.${other.group}` },
    spec: { group: other.group, scope: 'Namespaced', names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' }, versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }] },
  }, { fieldManager: 'test', force: true }));
  await waitFor('widgets served on the service cluster', async () => (E.isRight(await svc.client.list(widgets(), { limit: 1 })) ? true : undefined));
  const [provider, wa] = await Promise.all([workspace(), workspace()]);
  a = wa;
  await other.bind(a.ws);
  const files = { configFile: tempFile('sync.yaml', JSON.stringify(config(svc.sharedNamespace))), kcpKubeconfig: tempFile('kcp.kubeconfig', provider.ws.kubeconfigYaml()), serviceKubeconfig: tempFile('service.kubeconfig', kas.kubeconfigYaml('admin')) };
  agent = startSyncAgent(files);
  exported = await waitForExport(provider.client, svc.exportName, (e) => (e.spec?.resources ?? []).length > 0 && (e.spec?.permissionClaims ?? []).some((c) => c.identityHash === identityHash), context);
  await bindExport(a.client, exported, provider.ws.path, dbs());
});

afterAll(async () => {
  await agent.stop(10_000);
  await svc.stop();
});

describe('rxfleet-sync-agent: related objects of a resource another APIExport provides (identityHash)', () => {
  it('the export claims the resource with the other export\'s identity hash, which the consumer accepted', () => {
    expect(exported.spec?.permissionClaims).toContainEqual({ group: other.group, resource: 'widgets', identityHash, verbs: ['*'] });
  });

  it('a Widget goes down from the workspace and another comes up, each with its contents and back-reference', async () => {
    must(await a.client.create(widgets(), widget('a-cfg', 'default', 3)));
    must(await a.client.apply(dbs(), { metadata: { name: 'orders', namespace: 'default' }, spec: { engine: 'postgres', size: 1, configName: 'a-cfg', connectionSecretName: 'a-grant' } }, { fieldManager: 'consumer' }));
    const copy = await waitFor('the copy of orders', async () => (await svc.copiesFrom(a.ws.logicalCluster)).find((c) => backRef(c).name === 'orders') as Db | undefined, { context });
    const down = await sized(svc.client, copy.spec.configName ?? '', svc.sharedNamespace, 3, 'on the service cluster');
    expect(backRef(down)).toMatchObject({ cluster: a.ws.logicalCluster, namespace: 'default', name: 'orders' });
    must(await svc.client.create(widgets(), widget(copy.spec.connectionSecretName ?? '', svc.sharedNamespace, 7)));
    const up = await sized(a.client, 'a-grant', 'default', 7, 'in the workspace');
    expect(backRef(up)).toMatchObject({ cluster: a.ws.logicalCluster, namespace: 'default', name: 'orders' });
  });
});
