// A version renamed in kcp (issue 28 item 4: api-syncagent's `projection.versions`), on the real kcp
// and kube-apiserver with `rxfleet-sync-agent` as its own process, configured by a PublishedResource:
// the service cluster's Database v1 is v1beta1 in kcp. The APIResourceSchema serves only v1beta1; a
// consumer's v1beta1 object gets its copy as v1 on the service cluster and its status back; each
// mutation reads the apiVersion of its own side (spec: the consumer's; status: the copy's).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ResourceDescriptor } from '../../src/index.js';
import { apiResourceSchemas } from '../../src/providers/kcp/index.js';
import type { Database } from '../../examples/sync-agent/api.js';
import { databasesIn } from '../../examples/sync-agent/api.js';
import { getOrUndefined, waitForExport } from '../support/sync-agent-kcp.js';
import { waitFor } from '../support/sync-agent-process.js';
import type { ServiceSide } from '../support/sync-agent-service.js';
import { backRef } from '../support/sync-agent-service.js';
import { must } from '../support/wait.js';
import type { PublishedSetup } from './sync-published-resource-support.js';
import { startPublishedSetup } from './sync-published-resource-support.js';

let setup: PublishedSetup;
const inKcp = (svc: ServiceSide): ResourceDescriptor<Database> => databasesIn(svc.group, 'v1beta1');

const published = (svc: ServiceSide): unknown => ({
  apiVersion: 'syncagent.kcp.io/v1alpha1',
  kind: 'PublishedResource',
  metadata: { name: 'renamed-databases' },
  spec: {
    resource: { apiGroup: svc.group, kind: 'Database', versions: ['v1'] },
    projection: { versions: { v1: 'v1beta1' } },
    mutation: {
      spec: [{ cel: { path: 'spec.size', expression: `self.apiVersion == "${svc.group}/v1beta1" ? value * 10 : value` } }],
      status: [{ template: { path: 'status.message', template: 'copy {{ .LocalObject.apiVersion }}, consumer {{ .RemoteObject.apiVersion }}' } }],
    },
  },
});

beforeAll(async () => {
  setup = await startPublishedSetup((svc) => ({ agentName: svc.agentName, apiExport: svc.exportName, published: [published(svc)] }), inKcp, false);
});

afterAll(async () => {
  await setup.stop();
});

describe('rxfleet-sync-agent: a version renamed in kcp (projection.versions)', () => {
  it('publishes the CRD’s v1 as v1beta1, served and the storage version, with v1’s schema', async () => {
    const { svc, provider, context } = setup;
    const exported = await waitForExport(provider, svc.exportName, (e) => (e.spec?.resources ?? []).length > 0, context);
    const ars = must(await provider.get(apiResourceSchemas, exported.spec?.resources?.[0]?.schema ?? ''));
    expect(ars.spec.versions.map((x) => [x.name, x.served, x.storage])).toEqual([['v1beta1', true, true]]);
    expect(Object.keys(ars.spec.versions[0]?.schema.properties?.spec?.properties ?? {})).toEqual(expect.arrayContaining(['engine', 'size', 'connectionSecretName']));
  });

  it('a consumer’s v1beta1 object gets its copy as v1 on the service cluster, and its status back', async () => {
    const { svc, consumer, logical, context } = setup;
    must(await consumer.create(inKcp(svc), { apiVersion: `${svc.group}/v1beta1`, kind: 'Database', metadata: { name: 'orders', namespace: 'default' }, spec: { engine: 'postgres', size: 1 } }));
    const found = await waitFor('the service copy of orders', async () => (await svc.copiesFrom(logical)).find((c) => backRef(c).name === 'orders'), { context });
    const copy = await getOrUndefined<Database>(svc.client, svc.databases, found.metadata.name ?? '', found.metadata.namespace);
    expect(copy?.apiVersion).toBe(`${svc.group}/v1`);
    // The spec mutation read the consumer object's own apiVersion (v1beta1).
    expect(copy?.spec).toMatchObject({ engine: 'postgres', size: 10 });
    expect(backRef(found)).toMatchObject({ cluster: logical, namespace: 'default', name: 'orders' });
    const ready = await waitFor('orders Ready in the workspace', async () => {
      const d = await getOrUndefined<Database>(consumer, inKcp(svc), 'orders', 'default');
      return d?.status?.phase === 'Ready' ? d : undefined;
    }, { context });
    expect(ready.apiVersion).toBe(`${svc.group}/v1beta1`);
    expect(ready.spec).toMatchObject({ engine: 'postgres', size: 1 });
    expect(ready.status).toMatchObject({ phase: 'Ready', observedSize: 10, message: `copy ${svc.group}/v1, consumer ${svc.group}/v1beta1` });
  });
});
