// The publisher's reconciler over an in-memory fleet (a service cluster with the CRD, the kcp
// provider workspace with the export), in virtual time: what it writes on a first start, on a
// restart over what it already published, and what it refuses to write.
import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/index.js';
import { customResourceDefinitions, resource } from '../../src/index.js';
import type { CustomResourceDefinition } from '../../src/resources/index.js';
import type { APIExport } from '../../src/providers/kcp/index.js';
import { apiExports, apiResourceSchemas } from '../../src/providers/kcp/index.js';
import type { PublishedPlan } from '../../packages/sync-agent/src/plan.js';
import { publisherController } from '../../packages/sync-agent/src/publisher.js';
import { apiResourceSchemaOf, exportEntry } from '../../packages/sync-agent/src/schema.js';
import type { PublishedResource } from '../../packages/sync-agent/src/types.js';
import { inMemoryFleet, putChange, runController, toLabels } from '../../src/testing/index.js';
import { deleteChange } from '../../src/testing/index.js';

const GROUP = 'db.example.dev';
const crd = (served = true): CustomResourceDefinition => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `databases.${GROUP}` },
  spec: {
    group: GROUP,
    names: { kind: 'Database', plural: 'databases' },
    scope: 'Namespaced',
    versions: [{ name: 'v1', served, storage: true, subresources: { status: {} }, schema: { openAPIV3Schema: { type: 'object' } } }],
  },
});
const published: PublishedResource = { name: 'databases', crd: { group: GROUP, kind: 'Database' } };
const db = resource({ group: GROUP, version: 'v1', plural: 'databases', kind: 'Database', namespaced: true });
const plan: PublishedPlan = { published, agentName: 'agent-a', service: db, kcp: db, publishedVersions: ['v1'], statusSubresource: true };
const schema = (() => {
  const s = apiResourceSchemaOf(crd(), published, 'agent-a');
  if (s.type !== 'schema') throw new Error('unpublishable');
  return s.schema;
})();
const ARS = schema.metadata.name ?? '';
const EXPORT = 'databases.example.dev';

const run = (seed: { service: KubeObject[]; export: KubeObject[] }, changes?: Parameters<typeof runController>[0]['changes']) => {
  const fleet = inMemoryFleet({ clusters: { service: seed.service, 'kcp-export': seed.export }, resources: [apiResourceSchemas, apiExports] });
  const c = publisherController([plan], { provider: fleet.provider, apiExport: EXPORT });
  return { fleet, c, out: () => runController({ inMemory: fleet, resource: customResourceDefinitions, reconcile: c.reconcile, fieldManager: c.fieldManager, ...(changes === undefined ? {} : { changes }) }) };
};

const scheduler = () =>
  new TestScheduler((actual, expected) => {
    expect(actual).toEqual(expected);
  });

describe('the publisher reconciler', () => {
  it('creates the schema, then the export, on a first start', () => {
    const { fleet, out } = run({ service: [crd()], export: [] });
    scheduler().run(({ expectObservable }) => {
      expectObservable(out().pipe(toLabels()), '^ 50ms !').toBe('a', { a: `done service/databases.${GROUP}` });
      expectObservable(fleet.writes(), '^ 50ms !').toBe('(ab)', { a: `create kcp-export/${ARS}`, b: `create kcp-export/${EXPORT}` });
    });
    expect(fleet.object<APIExport>('kcp-export', apiExports, EXPORT)?.spec?.resources).toEqual([exportEntry(schema)]);
  });

  it('writes nothing on a restart over what it already published', () => {
    const ex: APIExport = { apiVersion: 'apis.kcp.io/v1alpha2', kind: 'APIExport', metadata: { name: EXPORT, annotations: { 'sync.rxfleet.dev/agent': 'agent-a' } }, spec: { resources: [exportEntry(schema)] } };
    const { fleet, out } = run({ service: [crd()], export: [schema, ex] });
    scheduler().run(({ expectObservable }) => {
      expectObservable(out().pipe(toLabels()), '^ 50ms !').toBe('a', { a: `done service/databases.${GROUP}` });
      expectObservable(fleet.writes(), '^ 50ms !').toBe('');
    });
  });

  it('refuses an export another agent keeps, without retrying', () => {
    const ex: APIExport = { apiVersion: 'apis.kcp.io/v1alpha2', kind: 'APIExport', metadata: { name: EXPORT, annotations: { 'sync.rxfleet.dev/agent': 'agent-b' } }, spec: { resources: [] } };
    const { fleet, out } = run({ service: [crd()], export: [schema, ex] });
    scheduler().run(({ expectObservable }) => {
      expectObservable(out().pipe(toLabels()), '^ 50ms !').toBe('a', { a: `terminal service/databases.${GROUP}` });
      expectObservable(fleet.writes(), '^ 50ms !').toBe('');
    });
    expect(fleet.object<APIExport>('kcp-export', apiExports, EXPORT)?.spec?.resources).toEqual([]);
  });

  it('writes nothing for a CRD that stops serving the sync version, or is deleted', () => {
    const { fleet } = run({ service: [crd()], export: [] });
    scheduler().run(({ hot, expectObservable }) => {
      const changes = { service: hot('-- 8ms a 9ms d', { a: putChange(customResourceDefinitions, crd(false)), d: deleteChange(customResourceDefinitions, `databases.${GROUP}`) }) };
      const o = runController({ inMemory: fleet, resource: customResourceDefinitions, reconcile: publisherController([plan], { provider: fleet.provider, apiExport: EXPORT }).reconcile, changes });
      expectObservable(o.pipe(toLabels()), '^ 50ms !').toBe('a 9ms b 9ms c', { a: `done service/databases.${GROUP}`, b: `terminal service/databases.${GROUP}`, c: `done service/databases.${GROUP}` });
      expectObservable(fleet.writes(), '^ 50ms !').toBe('(ab)', { a: `create kcp-export/${ARS}`, b: `create kcp-export/${EXPORT}` });
    });
    expect(fleet.objects('kcp-export', apiResourceSchemas).map((s) => s.metadata.name)).toEqual([ARS]);
  });
});
