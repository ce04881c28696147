// api-syncagent's PublishedResources as the sync agent's configuration, on the real kcp and
// kube-apiserver with `rxfleet-sync-agent` as its own process (issue 28 item 4): the config names a
// file of PublishedResources; the agent serves only those its publishedResourceSelector matches (the
// other one names a CRD that does not exist, so serving it would fail the start), projects the short
// names and categories into the APIResourceSchema, mutates the spec going down (cel, regex) and the
// status coming up (delete, regex, cel, template), and copies the related Secret.
import { dump } from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClusterClient } from '../../src/client/index.js';
import type { Secret } from '../../src/index.js';
import { secrets } from '../../src/index.js';
import { apiResourceSchemas } from '../../src/providers/kcp/index.js';
import type { Database } from '../../examples/sync-agent/api.js';
import { databasesIn } from '../../examples/sync-agent/api.js';
import { sharedKcp, sharedKubeApiserver } from '../support/context.js';
import { getOrUndefined, waitForExport } from '../support/sync-agent-kcp.js';
import { startSyncAgent, tempFile, waitFor } from '../support/sync-agent-process.js';
import type { ServiceSide } from '../support/sync-agent-service.js';
import { backRef } from '../support/sync-agent-service.js';
import { must } from '../support/wait.js';
import type { PublishedSetup } from './sync-published-resource-support.js';
import { startPublishedSetup } from './sync-published-resource-support.js';

let setup: PublishedSetup;
let svc: ServiceSide;
let provider: ClusterClient;
let consumer: ClusterClient;
let logical: string;
let context: () => string;
const dbs = (): ReturnType<typeof databasesIn> => databasesIn(svc.group);

// What an api-syncagent user has today, unchanged but for the group.
const publishedResources = (group: string): string =>
  [
    {
      apiVersion: 'syncagent.kcp.io/v1alpha1',
      kind: 'PublishedResource',
      metadata: { name: 'publish-databases', labels: { agent: 'this' } },
      spec: {
        resource: { apiGroup: group, kind: 'Database', versions: ['v1'] },
        naming: { namespace: '$remoteClusterName', name: '{{ .Object.metadata.namespace | sha3short }}-{{ .Object.metadata.name | sha3short }}' },
        projection: { shortNames: ['mdb'], categories: ['managed'] },
        mutation: {
          spec: [{ cel: { path: 'spec.size', expression: 'value * 2' } }, { regex: { path: 'spec.engine', pattern: '^mysql$', replacement: 'postgres' } }],
          status: [
            { delete: { path: 'status.since' } },
            { regex: { path: 'status.endpoint', pattern: '^[^:]*', replacement: 'public.example.dev' } },
            { cel: { path: 'status.observedSize', expression: 'value / 2' } },
            { template: { path: 'status.message', template: '{{ .RemoteObject.metadata.name }}: {{ .LocalObject.status.phase }}' } },
          ],
        },
        related: [{ identifier: 'connection', origin: 'service', group: '', version: 'v1', resource: 'secrets', object: { reference: { path: 'spec.connectionSecretName' } } }],
      },
    },
    {
      apiVersion: 'syncagent.kcp.io/v1alpha1',
      kind: 'PublishedResource',
      metadata: { name: 'for-another-agent', labels: { agent: 'other' } },
      spec: { resource: { apiGroup: group, kind: 'NoSuchKind', versions: ['v1'] } },
    },
  ]
    .map((d) => dump(d))
    .join('---\n');

beforeAll(async () => {
  const config = (service: ServiceSide): unknown => ({ agentName: service.agentName, apiExport: service.exportName, publishedResources: [tempFile('published-resources.yaml', publishedResources(service.group))], publishedResourceSelector: 'agent=this' });
  setup = await startPublishedSetup(config, (service) => databasesIn(service.group), true);
  ({ svc, provider, consumer, logical, context } = setup);
});

afterAll(async () => {
  await setup.stop();
});

describe('rxfleet-sync-agent configured by api-syncagent PublishedResources', () => {
  it('publishes the selected one with its projected short names and categories', async () => {
    const exported = await waitForExport(provider, svc.exportName, (e) => (e.spec?.resources ?? []).length > 0, context);
    expect((exported.spec?.resources ?? []).map((r) => `${r.name}.${r.group}`)).toEqual([`databases.${svc.group}`]);
    const ars = must(await provider.get(apiResourceSchemas, exported.spec?.resources?.[0]?.schema ?? ''));
    expect(ars.spec.names.shortNames).toEqual(['mdb']);
    expect(ars.spec.names.categories).toEqual(['managed']);
  });

  it('mutates the spec going down and the status coming up, and copies the related Secret', async () => {
    must(await consumer.apply(dbs(), { metadata: { name: 'orders', namespace: 'default' }, spec: { engine: 'mysql', size: 3, connectionSecretName: 'orders-db' } }, { fieldManager: 'consumer' }));
    const copy = await waitFor('the service copy', async () => (await svc.copiesFrom(logical)).find((c) => backRef(c).name === 'orders'), { context });
    expect(copy.metadata.namespace).toBe(logical);
    expect(copy.spec).toMatchObject({ engine: 'postgres', size: 6 });
    const ready = await waitFor('orders Ready in the workspace, with its Secret', async () => {
      const d = await getOrUndefined<Database>(consumer, dbs(), 'orders', 'default');
      const s = await getOrUndefined<Secret>(consumer, secrets, 'orders-db', 'default');
      return d?.status?.phase === 'Ready' && s !== undefined ? d : undefined;
    }, { context });
    expect(ready.spec).toMatchObject({ engine: 'mysql', size: 3 });
    expect(ready.status).toMatchObject({ phase: 'Ready', endpoint: 'public.example.dev:5432', observedSize: 3, message: 'orders: Ready' });
    expect(ready.status?.since).toBeUndefined();
    const service = await waitFor('the service copy Ready', async () => {
      const c = (await svc.copiesFrom(logical)).find((x) => backRef(x).name === 'orders');
      return c?.status?.phase === 'Ready' ? c : undefined;
    }, { context });
    expect(service.status?.observedSize).toBe(6);
    expect(service.status?.endpoint).toMatch(/\.svc:5432$/);
  });

  it('refuses at preflight what needs the CRD to judge (related objects across a change of scope), naming the file, the object and the field, and exits 2', async () => {
    const related = [{ identifier: 'connection', origin: 'service', resource: 'secrets', object: { reference: { path: 'spec.connectionSecretName' } } }];
    const scoped = dump({ apiVersion: 'syncagent.kcp.io/v1alpha1', kind: 'PublishedResource', metadata: { name: 'scoped' }, spec: { resource: { apiGroup: svc.group, kind: 'Database' }, projection: { scope: 'Cluster' }, related } });
    const prs = tempFile('scoped.yaml', scoped);
    const config = { agentName: `${svc.agentName}-scoped`, apiExport: `scoped.${svc.group}`, publishedResources: [prs] };
    const kas = sharedKubeApiserver();
    const refused = startSyncAgent({ configFile: tempFile('sync.yaml', JSON.stringify(config)), kcpKubeconfig: tempFile('kcp.kubeconfig', (await sharedKcp().createWorkspace()).kubeconfigYaml()), serviceKubeconfig: tempFile('service.kubeconfig', kas.kubeconfigYaml('admin')) });
    expect(await refused.exited).toBe(2);
    expect(refused.output()).toContain(`${prs} document 1 (PublishedResource "scoped"): spec.related: not supported yet with projection.scope Cluster in kcp, Namespaced on the service cluster`);
  });
});
