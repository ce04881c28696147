// The sync agent's start and publisher against real servers: a CRD on a kube-apiserver (the service
// cluster) published into a kcp provider workspace as an APIResourceSchema + APIExport, a consumer
// workspace binding it; a CRD change rolls out a new schema name while an entry added by hand stays;
// preflight reports every config problem in one error.
import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { merge } from 'rxjs';
import { afterAll, describe, expect, it } from 'vitest';
import type { ClusterClient } from '../../src/client/index.js';
import { E } from '../../src/fp/index.js';
import type { KubeObject, RunHandle } from '../../src/index.js';
import { ConfigError, resource, run } from '../../src/index.js';
import { singleClusterProvider } from '../../src/providers/single/index.js';
import type { CustomResourceDefinition, CustomResourceValidation, JSONSchemaProps } from '../../src/resources/index.js';
import type { APIExport, APIResourceSchema } from '../../src/providers/kcp/index.js';
import { apiExports, apiResourceSchemas } from '../../src/providers/kcp/index.js';
import { preflight } from '../../packages/sync-agent/src/preflight.js';
import { publisherController } from '../../packages/sync-agent/src/publisher.js';
import { apiResourceSchemaOf } from '../../packages/sync-agent/src/schema.js';
import type { PublishedResource, SyncConfig } from '../../packages/sync-agent/src/types.js';
import { sharedKcp, sharedKubeApiserver } from '../support/context.js';
import { eventually, must } from '../support/wait.js';
import { clientFrom } from './runtime-support.js';

const crds = resource<CustomResourceDefinition>({ group: 'apiextensions.k8s.io', version: 'v1', plural: 'customresourcedefinitions', kind: 'CustomResourceDefinition', namespaced: false });
interface Binding extends KubeObject {
  readonly status?: { readonly phase?: string; readonly boundResources?: readonly { readonly resource?: string; readonly schema?: { readonly name?: string } }[] };
}
const apiBindings = resource<Binding>({ group: 'apis.kcp.io', version: 'v1alpha2', plural: 'apibindings', kind: 'APIBinding', namespaced: false });

const handles: RunHandle[] = [];
afterAll(async () => {
  await Promise.all(handles.map((h) => h.stop({ deadlineMs: 2_000 })));
});

const specSchema = (props: Readonly<Record<string, JSONSchemaProps>>): CustomResourceValidation => ({ openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: props }, status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } } });

/** A CRD `databases.<group>` with v1 (served, storage, status subresource) and v2 (not served). */
async function makeCrd(service: ClusterClient, group: string): Promise<CustomResourceDefinition> {
  const crd: CustomResourceDefinition = {
    metadata: { name: `databases.${group}` },
    spec: {
      group,
      names: { kind: 'Database', listKind: 'DatabaseList', plural: 'databases', singular: 'database' },
      scope: 'Namespaced',
      versions: [
        { name: 'v1', served: true, storage: true, subresources: { status: {} }, schema: specSchema({ size: { type: 'integer' } }) },
        { name: 'v2', served: false, storage: false, schema: specSchema({ size: { type: 'integer' } }) },
      ],
    },
  };
  must(await service.create(crds, crd));
  return eventually(`CRD ${crd.metadata.name ?? ''} Established`, async () => {
    const got = must(await service.get(crds, crd.metadata.name ?? ''));
    return got.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True') === true ? got : undefined;
  });
}

const found = async <T extends KubeObject>(client: ClusterClient, r: Parameters<ClusterClient['get']>[0], name: string): Promise<T | undefined> => {
  const got = await client.get(r, name);
  return E.isRight(got) ? (got.right as T) : undefined;
};

async function setup(): Promise<{ service: ClusterClient; kcp: ClusterClient; serviceYaml: string; kcpYaml: string; group: string; providerPath: string }> {
  const suffix = randomBytes(4).toString('hex');
  const group = `s${suffix}.sync.rxfleet.dev`;
  const ws = await sharedKcp().createWorkspace();
  const serviceYaml = sharedKubeApiserver().kubeconfigYaml('admin');
  const service = clientFrom('service', serviceYaml);
  await makeCrd(service, group);
  return { service, kcp: clientFrom(ws.path, ws.kubeconfigYaml()), serviceYaml, kcpYaml: ws.kubeconfigYaml(), group, providerPath: ws.path };
}

/** An ARS + an export entry made by hand, not by the agent. */
async function handMadeSchema(kcp: ClusterClient, group: string, plural: string): Promise<string> {
  const name = `v1.${plural}.${group}`;
  const ars: APIResourceSchema = {
    metadata: { name },
    spec: { group, names: { kind: 'Thing', plural, listKind: 'ThingList', singular: 'thing' }, scope: 'Namespaced', versions: [{ name: 'v1', served: true, storage: true, schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } }] },
  };
  must(await kcp.create(apiResourceSchemas, ars));
  return name;
}

describe('sync publisher (real kube-apiserver + kcp)', () => {
  it('publishes the CRD, keeps entries it does not own, and rolls a CRD change out under a new schema name', async () => {
    const { service, kcp, serviceYaml, kcpYaml, group, providerPath } = await setup();
    const exportName = `db.${group}`;
    // An admin's entry in the export, before the agent starts: the agent must keep it.
    const theirs = await handMadeSchema(kcp, `other.${group}`, 'things');
    must(await kcp.create(apiExports, { metadata: { name: exportName }, spec: { resources: [{ group: `other.${group}`, name: 'things', schema: theirs, storage: { crd: {} } }] } }));

    const published: PublishedResource = { name: 'databases', crd: { group, kind: 'Database' }, related: [{ identifier: 'conn', origin: 'service', kind: 'Secret', object: { path: 'spec.secret' } }] };
    const config: SyncConfig = { agentName: 'agent-a', apiExport: exportName, published: [published] };
    const plans = await preflight(config, { service, kcp });
    expect(plans.map((p) => [p.service.version, p.kcp.group, p.kcp.plural, p.statusSubresource, p.publishedVersions])).toEqual([['v1', group, 'databases', true, ['v1']]]);

    const provider = merge(singleClusterProvider({ name: 'service', kubeconfig: { yaml: serviceYaml } }), singleClusterProvider({ name: 'kcp-export', kubeconfig: { yaml: kcpYaml } }));
    handles.push(await run(publisherController(plans, { provider, apiExport: exportName }), { logger: pino({ level: 'silent' }), signals: false, http: false }));

    const crd = must(await service.get(crds, `databases.${group}`));
    const first = apiResourceSchemaOf(crd, published, 'agent-a');
    if (first.type !== 'schema') throw new Error(first.problems.join('; '));
    const firstName = first.schema.metadata.name ?? '';
    const exported = await eventually(`APIExport ${exportName} to list ${firstName}`, async () => {
      const ex = await found<APIExport>(kcp, apiExports, exportName);
      return ex?.spec?.resources?.some((r) => r.schema === firstName) === true ? ex : undefined;
    });
    expect(exported.spec?.resources?.map((r) => [r.group, r.name, r.schema])).toEqual([
      [`other.${group}`, 'things', theirs],
      [group, 'databases', firstName],
    ]);
    expect(exported.spec?.permissionClaims).toEqual([{ group: '', resource: 'secrets', identityHash: '', verbs: ['*'] }]);
    expect(exported.metadata.annotations?.['sync.rxfleet.dev/agent']).toBe('agent-a');
    const ars = must(await kcp.get(apiResourceSchemas, firstName));
    expect(ars.metadata.labels).toEqual({ 'sync.rxfleet.dev/agent': 'agent-a', 'sync.rxfleet.dev/published': 'databases' });
    expect(ars.spec.versions.map((v) => [v.name, v.storage, v.subresources])).toEqual([['v1', true, { status: {} }]]);

    // A consumer binds the export: kcp serves the published resource there.
    const consumerWs = await sharedKcp().createWorkspace();
    const consumer = clientFrom(consumerWs.path, consumerWs.kubeconfigYaml());
    must(await consumer.create(apiBindings, { metadata: { name: 'db' }, spec: { reference: { export: { path: providerPath, name: exportName } } } }));
    const dbs = resource({ group, version: 'v1', plural: 'databases', kind: 'Database', namespaced: true });
    await eventually('databases served in the consumer workspace', async () => (E.isRight(await consumer.list(dbs, { namespace: 'default' })) ? true : undefined));

    // The CRD changes on the service cluster (a new field, v2 served): a new schema, the export points at it, the hand-made entry stays.
    const changed: CustomResourceDefinition = {
      ...crd,
      spec: { ...crd.spec, versions: crd.spec.versions.map((v) => ({ ...v, served: true, schema: specSchema({ size: { type: 'integer' }, tier: { type: 'string' } }) })) },
    };
    must(await service.update(crds, changed));
    const second = apiResourceSchemaOf(must(await service.get(crds, `databases.${group}`)), published, 'agent-a');
    if (second.type !== 'schema') throw new Error(second.problems.join('; '));
    const secondName = second.schema.metadata.name ?? '';
    expect(secondName).not.toBe(firstName);
    const updated = await eventually(`APIExport ${exportName} to list ${secondName}`, async () => {
      const ex = await found<APIExport>(kcp, apiExports, exportName);
      return ex?.spec?.resources?.some((r) => r.schema === secondName) === true ? ex : undefined;
    });
    expect(updated.spec?.resources?.map((r) => r.schema)).toEqual([theirs, secondName]);
    const rolled = must(await kcp.get(apiResourceSchemas, secondName));
    expect(rolled.spec.versions.map((v) => [v.name, v.storage])).toEqual([
      ['v1', true],
      ['v2', false],
    ]);
    expect(rolled.spec.conversion).toEqual({ strategy: 'None' });
    // Schemas are immutable and may still be bound: the old one stays.
    expect(await found(kcp, apiResourceSchemas, firstName)).toBeDefined();
    // The consumer's binding follows the export to the new schema.
    await eventually('the binding to name the new schema', async () => {
      const b = await found<Binding>(consumer, apiBindings, 'db');
      return b?.status?.boundResources?.some((r) => r.schema?.name === secondName) === true ? true : undefined;
    });

    // Someone removes the agent's entry by hand: the publisher puts it back.
    const current = must(await kcp.get(apiExports, exportName));
    must(await kcp.update(apiExports, { ...current, spec: { ...current.spec, resources: current.spec?.resources?.filter((r) => r.group !== group) ?? [] } }));
    await eventually('the entry to be put back', async () => ((await found<APIExport>(kcp, apiExports, exportName))?.spec?.resources?.some((r) => r.schema === secondName) === true ? true : undefined));
  });

  it('preflight reports every problem at once, naming the published resource, the cluster and the cause', async () => {
    const { service, kcp, group } = await setup();
    // An export kept by another agent.
    const owned = `owned.${group}`;
    must(await kcp.create(apiExports, { metadata: { name: owned, annotations: { 'sync.rxfleet.dev/agent': 'agent-b' } }, spec: {} }));
    const config: SyncConfig = {
      agentName: 'agent-a',
      apiExport: owned,
      published: [
        { name: 'databases', crd: { group, kind: 'Database', versions: ['v1', 'v2'] } },
        { name: 'ghosts', crd: { group, kind: 'Ghost' } },
        { name: 'databases', crd: { group, kind: 'Database' }, projection: { group: `kcp.${group}` } },
      ],
    };
    const err = await preflight(config, { service, kcp }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ConfigError);
    const lines = (err as ConfigError).message.split('\n');
    expect(lines[0]).toBe('sync config: 5 problems:');
    expect(lines.slice(1)).toEqual([
      `- published[0] "databases": version v2 of CRD databases.${group} is not served (service cluster service)`,
      `- published[1] "ghosts": no CRD of kind Ghost in group ${group} on the service cluster service`,
      '- published[2] "databases": the name is already used by published[0]; names must be unique',
      `- published[2] "databases": publishes CRD Database.${group}, as published[0] "databases" does; their copies would share names on the service cluster, so a CRD is published once`,
      `- APIExport ${owned} is kept by agent "agent-b" (annotation sync.rxfleet.dev/agent), not "agent-a"; use another apiExport or agentName (kcp workspace ${kcp.cluster})`,
    ]);

    // An export (not annotated) that already serves the projected resource from a schema made by hand.
    const taken = `taken.${group}`;
    const schema = await handMadeSchema(kcp, group, 'databases');
    must(await kcp.create(apiExports, { metadata: { name: taken }, spec: { resources: [{ group, name: 'databases', schema, storage: { crd: {} } }] } }));
    const clash = await preflight({ agentName: 'agent-a', apiExport: taken, published: [{ name: 'databases', crd: { group, kind: 'Database' } }] }, { service, kcp }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(clash).toBeInstanceOf(ConfigError);
    expect((clash as ConfigError).message).toBe(
      `sync config: 1 problem:\n- published[0] "databases": APIExport ${taken} already lists databases.${group} with schema ${schema}, which agent "agent-a" did not make; remove that entry or project to another group+resource (kcp workspace ${kcp.cluster})`,
    );
  });
});
