// A related resource that another kcp APIExport provides (issue 28 item 4: `related[].identityHash`),
// on the real kcp and kube-apiserver with `rxfleet-sync-agent` as its own process: Widgets, exported
// from their own provider workspace, bound in the consumer's workspace next to the agent's export;
// the service cluster has a Widget CRD of its own. The agent's export claims widgets with the other
// export's identity hash, and Widgets travel each way. Every check reads the data that arrived.
import { describe, expect, it } from 'vitest';
import type { ClusterClient } from '../../src/client/index.js';
import type { ResourceDescriptor } from '../../src/index.js';
import { customResourceDefinitions } from '../../src/resources/index.js';
import { E } from '../../src/fp/index.js';
import type { Database } from '../../examples/sync-agent/api.js';
import type { SyncConfig } from '../../packages/sync-agent/src/types.js';
import { sharedKcp } from '../support/context.js';
import type { ApiExportFixture, Widget } from '../support/kcp-apiexport.js';
import { getIn, setupApiExport } from '../support/kcp-apiexport.js';
import { getOrUndefined } from '../support/sync-agent-kcp.js';
import { waitFor } from '../support/sync-agent-process.js';
import { backRef } from '../support/sync-agent-service.js';
import { must } from '../support/wait.js';
import { relatedScenario } from './sync-agent-scenario.js';
import type { TenancyService } from './sync-tenancy-support.js';
import { sharedNamespaceSyncConfig } from './sync-tenancy-support.js';

type Db = Database & { readonly spec: Database['spec'] & { readonly configName?: string } };

let other: ApiExportFixture;
let identityHash: string;
const widgets = (): ResourceDescriptor<Widget> => other.widgets;

const config = (side: TenancyService): SyncConfig => sharedNamespaceSyncConfig(side, side.sharedNamespace, {
  syncUp: false,
  related: [
    { identifier: 'spec-widget', origin: 'kcp', group: other.group, version: 'v1', resource: 'widgets', identityHash, object: { path: 'spec.configName' } },
    { identifier: 'grant-widget', origin: 'service', group: other.group, version: 'v1', resource: 'widgets', identityHash, object: { path: 'spec.connectionSecretName' } },
  ],
});

const widget = (name: string, namespace: string, size: number): Widget => ({ apiVersion: `${other.group}/v1`, kind: 'Widget', metadata: { name, namespace }, spec: { size } });

const sized = (client: ClusterClient, name: string, namespace: string, size: number, where: string): Promise<Widget> =>
  waitFor(`the Widget ${name} ${where} with size ${size}`, async () => {
    const w = await getOrUndefined<Widget>(client, widgets(), name, namespace);
    return w?.spec?.size === size ? w : undefined;
  }, { context: s.context });

/** Another export's Widgets, with its identity hash; the service cluster's own Widget CRD (the service provider makes sure it is there). */
async function widgetsOnBothSides(side: TenancyService): Promise<void> {
  other = await setupApiExport(sharedKcp().adminKubeconfigPath);
  identityHash = await waitFor('the other export\'s identity hash', async () => {
    const got = await getIn(other.workspaceKubeConfig(other.providerWorkspace), `/apis/apis.kcp.io/v1alpha2/apiexports/${other.exportName}`);
    return (got as { status?: { identityHash?: string } } | undefined)?.status?.identityHash;
  });
  must(await side.client.apply(customResourceDefinitions, {
    metadata: { name: `widgets.${other.group}` },
    spec: { group: other.group, scope: 'Namespaced', names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' }, versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }] },
  }, { fieldManager: 'test', force: true }));
  await waitFor('widgets served on the service cluster', async () => (E.isRight(await side.client.list(widgets(), { limit: 1 })) ? true : undefined));
}

const s = relatedScenario<Db>({
  consumers: 1,
  config,
  beforeWorkspaces: widgetsOnBothSides,
  beforeAgent: async (consumers) => {
    for (const w of consumers) await other.bind(w.ws);
  },
  claimed: (c) => c.some((claim) => claim.identityHash === identityHash),
});

describe('rxfleet-sync-agent: related objects of a resource another APIExport provides (identityHash)', () => {
  it('the export claims the resource with the other export\'s identity hash, which the consumer accepted', () => {
    expect(s.exported.spec?.permissionClaims).toContainEqual({ group: other.group, resource: 'widgets', identityHash, verbs: ['*'] });
  });

  it('a Widget goes down from the workspace and another comes up, each with its contents and back-reference', async () => {
    must(await s.a.client.create(widgets(), widget('a-cfg', 'default', 3)));
    must(await s.a.client.apply(s.dbs, { metadata: { name: 'orders', namespace: 'default' }, spec: { engine: 'postgres', size: 1, configName: 'a-cfg', connectionSecretName: 'a-grant' } }, { fieldManager: 'consumer' }));
    const copy = await s.copyOf(s.a, 'orders');
    const down = await sized(s.svc.client, copy.spec.configName ?? '', s.svc.sharedNamespace, 3, 'on the service cluster');
    expect(backRef(down)).toMatchObject({ cluster: s.a.ws.logicalCluster, namespace: 'default', name: 'orders' });
    must(await s.svc.client.create(widgets(), widget(copy.spec.connectionSecretName ?? '', s.svc.sharedNamespace, 7)));
    const up = await sized(s.a.client, 'a-grant', 'default', 7, 'in the workspace');
    expect(backRef(up)).toMatchObject({ cluster: s.a.ws.logicalCluster, namespace: 'default', name: 'orders' });
  });
});
