// The publisher's pure parts: CRD → APIResourceSchema (versions, storage, projection, kept fields),
// the hash name (changes with the schema, not otherwise), Kubernetes version order, and the
// APIExport merge (own entries replaced, others kept, claims ensured).
import { describe, expect, it } from 'vitest';
import type { CustomResourceDefinition, CustomResourceDefinitionVersion } from '../../src/resources/index.js';
import { exportChanged, mergeExport, relatedClaims } from '../../packages/sync-agent/src/export-merge.js';
import type { APIExport } from '../../src/providers/kcp/index.js';
import type { PublishedPlan } from '../../packages/sync-agent/src/plan.js';
import { apiResourceSchemaOf, exportEntry, schemaName, versionChoice, withConditions } from '../../packages/sync-agent/src/schema.js';
import type { PublishedResource } from '../../packages/sync-agent/src/types.js';
import { compareKubeVersions } from '../../packages/sync-agent/src/version-order.js';
import { resource } from '../../src/index.js';

const v = (name: string, over: Partial<CustomResourceDefinitionVersion> = {}): CustomResourceDefinitionVersion => ({
  name,
  served: true,
  storage: false,
  schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } } },
  ...over,
});

const crdOf = (versions: readonly CustomResourceDefinitionVersion[], scope = 'Namespaced'): CustomResourceDefinition => ({
  metadata: { name: 'databases.db.example.dev', generation: 3, resourceVersion: '77' },
  spec: { group: 'db.example.dev', names: { kind: 'Database', listKind: 'DatabaseList', plural: 'databases', singular: 'database', shortNames: ['db'] }, scope, versions },
});

const published: PublishedResource = { name: 'databases', crd: { group: 'db.example.dev', kind: 'Database' } };

const schemaOf = (crd: CustomResourceDefinition, p: PublishedResource = published) => {
  const s = apiResourceSchemaOf(crd, p, 'agent-a');
  if (s.type !== 'schema') throw new Error(s.problems.join('; '));
  return s.schema;
};

describe('compareKubeVersions', () => {
  it('orders GA before beta before alpha, higher numbers first, then other names alphabetically', () => {
    const sorted = ['foo10', 'v1alpha1', 'v11alpha2', 'v1', 'v10', 'v2', 'v3beta1', 'v10beta3', 'v11beta2', 'foo1', 'v12alpha1'].sort(compareKubeVersions);
    expect(sorted).toEqual(['v10', 'v2', 'v1', 'v11beta2', 'v10beta3', 'v3beta1', 'v12alpha1', 'v11alpha2', 'v1alpha1', 'foo1', 'foo10']);
  });
});

describe('versionChoice', () => {
  it('publishes every served version by default, with the CRD storage version', () => {
    const crd = crdOf([v('v1alpha1'), v('v1beta1', { storage: true }), v('v1'), v('v0old', { served: false })]);
    expect(versionChoice(crd, published.crd)).toEqual({ type: 'chosen', versions: ['v1alpha1', 'v1beta1', 'v1'], storage: 'v1beta1' });
  });

  it('picks the highest published version when the storage version is not published', () => {
    const crd = crdOf([v('v1alpha1', { storage: true }), v('v1beta2'), v('v1beta1')]);
    expect(versionChoice(crd, { ...published.crd, versions: ['v1beta1', 'v1beta2'] })).toEqual({ type: 'chosen', versions: ['v1beta2', 'v1beta1'], storage: 'v1beta2' });
  });

  it('reports every missing, unserved or unnameable version, naming the CRD', () => {
    const crd = crdOf([v('v1', { storage: true }), v('v2', { served: false }), v('vnext')]);
    const c = versionChoice(crd, { ...published.crd, versions: ['v1', 'v2', 'v3', 'vnext'] });
    expect(c.type).toBe('invalid');
    const problems = c.type === 'invalid' ? c.problems : [];
    expect(problems).toEqual([
      'version v2 of CRD databases.db.example.dev is not served',
      'version v3 is not a version of CRD databases.db.example.dev (it has v1, v2, vnext)',
      'version vnext of CRD databases.db.example.dev cannot be published: kcp requires version names like v1, v1beta2',
    ]);
  });
});

describe('apiResourceSchemaOf', () => {
  it('keeps schema, subresources, printer columns and scope of the published versions only', () => {
    const cols = [{ name: 'Size', type: 'integer', jsonPath: '.spec.size' }];
    const crd = crdOf([v('v1alpha1', { served: false }), v('v1', { storage: true, subresources: { status: {} }, additionalPrinterColumns: cols, deprecated: true })], 'Cluster');
    const s = schemaOf(crd);
    const original = crd.spec.versions[1]?.schema?.openAPIV3Schema;
    // The CRD's schema, plus status.conditions for the agent's condition (the version has a status subresource).
    const withStatusConditions = { ...original, properties: { ...original?.properties, status: { type: 'object', properties: { conditions: expect.objectContaining({ type: 'array' }) as unknown } } } };
    expect(s.apiVersion).toBe('apis.kcp.io/v1alpha1');
    expect(s.metadata.labels).toEqual({ 'sync.rxfleet.dev/agent': 'agent-a', 'sync.rxfleet.dev/published': 'databases' });
    expect(s.metadata.name).toMatch(/^v[0-9a-f]{8}\.databases\.db\.example\.dev$/);
    expect(s.spec).toEqual({
      group: 'db.example.dev',
      names: { kind: 'Database', listKind: 'DatabaseList', plural: 'databases', singular: 'database', shortNames: ['db'] },
      scope: 'Cluster',
      versions: [{ name: 'v1', served: true, storage: true, deprecated: true, subresources: { status: {} }, additionalPrinterColumns: cols, schema: withStatusConditions }],
    });
    expect(s.spec.conversion).toBeUndefined();
  });

  it('gives a version with a status subresource room for the agent\'s condition (status.conditions), and leaves every other schema as it is', () => {
    const spec = { type: 'object', properties: { size: { type: 'integer' } } };
    const phase = { type: 'object', properties: { phase: { type: 'string' } } };
    expect(withConditions({ type: 'object', properties: { spec, status: phase } }, true)).toEqual({
      type: 'object',
      properties: { spec, status: { type: 'object', properties: { phase: { type: 'string' }, conditions: expect.objectContaining({ type: 'array', 'x-kubernetes-list-map-keys': ['type'] }) as unknown } } },
    });
    const own = { type: 'object', properties: { conditions: { type: 'array', items: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } } };
    const kept = [
      [{ type: 'object', properties: { spec, status: phase } }, false],
      [{ type: 'object', properties: { spec, status: own } }, true],
      [{ type: 'object', properties: { spec, status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }, true],
      [{ type: 'object', 'x-kubernetes-preserve-unknown-fields': true }, true],
    ] as const;
    for (const [schema, subresource] of kept) expect(withConditions(schema, subresource)).toBe(schema);
  });

  it('projects group, plural and kind (singular and listKind follow the kind) and asks for no conversion with several versions', () => {
    const crd = crdOf([v('v1beta1'), v('v1', { storage: true })]);
    const s = schemaOf(crd, { ...published, projection: { group: 'databases.kcp.dev', plural: 'dbs', kind: 'DB' } });
    expect(s.metadata.name).toMatch(/^v[0-9a-f]{8}\.dbs\.databases\.kcp\.dev$/);
    expect(s.spec.names).toEqual({ kind: 'DB', listKind: 'DBList', plural: 'dbs', singular: 'db', shortNames: ['db'] });
    expect(s.spec.versions.map((x) => [x.name, x.storage])).toEqual([
      ['v1beta1', false],
      ['v1', true],
    ]);
    expect(s.spec.conversion).toEqual({ strategy: 'None' });
    expect(exportEntry(s)).toEqual({ group: 'databases.kcp.dev', name: 'dbs', schema: s.metadata.name, storage: { crd: {} } });
  });

  it('names by a hash of the spec: same schema same name, whatever the CRD metadata or key order; any schema change a new name', () => {
    const base = crdOf([v('v1', { storage: true })]);
    const name = schemaOf(base).metadata.name;
    const sameContent = { ...base, metadata: { name: 'databases.db.example.dev', generation: 9, resourceVersion: '999', labels: { x: 'y' } } };
    expect(schemaOf(sameContent).metadata.name).toBe(name);
    const reordered = crdOf([{ storage: true, served: true, name: 'v1', schema: { openAPIV3Schema: { properties: { spec: { properties: { size: { type: 'integer' } }, type: 'object' } }, type: 'object' } } }]);
    expect(schemaOf(reordered).metadata.name).toBe(name);
    // A changed field schema, an added version, a projection: each is a new name.
    const changed = crdOf([v('v1', { storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'string' } } } } } } })]);
    const added = crdOf([v('v1', { storage: true }), v('v2')]);
    const projected = schemaOf(base, { ...published, projection: { kind: 'Db' } }).metadata.name;
    const names = [name, schemaOf(changed).metadata.name, schemaOf(added).metadata.name, projected];
    expect(new Set(names).size).toBe(4);
    expect(schemaName(schemaOf(base).spec)).toBe(name);
  });

  it('returns the problems of a CRD it cannot publish', () => {
    const s = apiResourceSchemaOf(crdOf([v('v1', { served: false, storage: true })]), published, 'agent-a');
    expect(s).toEqual({ type: 'invalid', problems: ['CRD databases.db.example.dev serves no version'] });
  });
});

describe('mergeExport', () => {
  const plan = (related: PublishedResource['related']): PublishedPlan => {
    const r = resource({ group: 'db.example.dev', version: 'v1', plural: 'databases', kind: 'Database', namespaced: true });
    return { published: { ...published, ...(related === undefined ? {} : { related }) }, agentName: 'agent-a', service: r, kcp: r, publishedVersions: ['v1'], statusSubresource: true };
  };
  const mine = { group: 'db.example.dev', name: 'databases', schema: 'vnew.databases.db.example.dev', storage: { crd: {} } };
  const theirs = { group: 'other.dev', name: 'things', schema: 'v1.things.other.dev', storage: { crd: {} } };

  it('asks for every verb on the related kinds, once each', () => {
    const claims = relatedClaims([
      plan([{ identifier: 'a', origin: 'service', kind: 'Secret', object: { path: 'spec.a' } }]),
      plan([
        { identifier: 'b', origin: 'kcp', kind: 'ConfigMap', object: { path: 'spec.b' } },
        { identifier: 'c', origin: 'service', kind: 'Secret', object: { path: 'spec.c' } },
      ]),
      plan(undefined),
    ]);
    expect(claims).toEqual([
      { group: '', resource: 'configmaps', verbs: ['*'] },
      { group: '', resource: 'secrets', verbs: ['*'] },
    ]);
  });

  it('replaces its own entry in place, keeps others, ensures claims and the annotation', () => {
    const current: APIExport = {
      metadata: { name: 'db', resourceVersion: '5', annotations: { keep: 'me' } },
      spec: {
        identity: { secretRef: { name: 'db' } },
        resources: [{ ...mine, schema: 'vold.databases.db.example.dev' }, theirs],
        permissionClaims: [
          { group: '', resource: 'secrets', identityHash: '', verbs: ['get'] },
          { group: '', resource: 'events', identityHash: '', verbs: ['create'] },
        ],
      },
    };
    const next = mergeExport(current, 'agent-a', [mine], [{ group: '', resource: 'secrets', verbs: ['*'] }, { group: '', resource: 'configmaps', verbs: ['*'] }]);
    expect(next.metadata.annotations).toEqual({ keep: 'me', 'sync.rxfleet.dev/agent': 'agent-a' });
    expect(next.spec?.identity).toEqual({ secretRef: { name: 'db' } });
    expect(next.spec?.resources).toEqual([mine, theirs]);
    expect(next.spec?.permissionClaims).toEqual([
      { group: '', resource: 'secrets', identityHash: '', verbs: ['*'] },
      { group: '', resource: 'events', identityHash: '', verbs: ['create'] },
      { group: '', resource: 'configmaps', verbs: ['*'] },
    ]);
    expect(exportChanged(current, next)).toBe(true);
  });

  it('sees no change once the export is up to date, with the server defaults filled in', () => {
    const asServed: APIExport = {
      metadata: { name: 'db', annotations: { 'sync.rxfleet.dev/agent': 'agent-a' } },
      spec: { resources: [theirs, { group: mine.group, name: mine.name, schema: mine.schema }], permissionClaims: [{ group: '', identityHash: '', resource: 'secrets', verbs: ['*'] }] },
    };
    const next = mergeExport(asServed, 'agent-a', [mine], [{ group: '', resource: 'secrets', verbs: ['*'] }]);
    expect(exportChanged(asServed, next)).toBe(false);
    expect(exportChanged(asServed, mergeExport(asServed, 'agent-b', [mine], []))).toBe(true);
  });

  it('appends an entry the export does not have yet and creates from nothing', () => {
    expect(mergeExport({ metadata: { name: 'db' }, spec: { resources: [theirs] } }, 'agent-a', [mine], []).spec?.resources).toEqual([theirs, mine]);
    const fresh = mergeExport({ metadata: { name: 'db' } }, 'agent-a', [mine], []);
    expect(fresh).toEqual({ apiVersion: 'apis.kcp.io/v1alpha2', kind: 'APIExport', metadata: { name: 'db', annotations: { 'sync.rxfleet.dev/agent': 'agent-a' } }, spec: { resources: [mine] } });
  });
});
