// Version names projected into kcp (issue 28 item 4, api-syncagent's `projection.versions` and the
// deprecated `projection.version`): read from the agent's own form and from a PublishedResource, the
// APIResourceSchema published under the kcp names (flags and content following each version), and
// every refusal naming the field: a rename of a version that is not published, a name kcp refuses,
// two versions with one name in kcp.
import { describe, expect, it } from 'vitest';
import type { CustomResourceDefinition, CustomResourceDefinitionVersion } from '../../src/resources/index.js';
import { parseSyncConfig, syncConfigProblems } from '../../packages/sync-agent/src/config.js';
import { apiResourceSchemaOf, versionChoice } from '../../packages/sync-agent/src/schema.js';
import type { PublishedResource } from '../../packages/sync-agent/src/types.js';
import { kcpVersionName } from '../../packages/sync-agent/src/version-names.js';

const v = (name: string, over: Partial<CustomResourceDefinitionVersion> = {}): CustomResourceDefinitionVersion => ({
  name,
  served: true,
  storage: false,
  schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { [`${name}Field`]: { type: 'string' } } } } } },
  ...over,
});

const crdOf = (versions: readonly CustomResourceDefinitionVersion[]): CustomResourceDefinition => ({
  metadata: { name: 'databases.db.example.dev' },
  spec: { group: 'db.example.dev', names: { kind: 'Database', plural: 'databases' }, scope: 'Namespaced', versions },
});

const source = { group: 'db.example.dev', kind: 'Database' };
const pr = (spec: Record<string, unknown>): unknown => ({ apiVersion: 'syncagent.kcp.io/v1alpha1', kind: 'PublishedResource', metadata: { name: 'dbs' }, spec: { resource: { apiGroup: 'db.example.dev', kind: 'Database', versions: ['v1'] }, ...spec } });
const projectionOf = (doc: unknown): unknown => parseSyncConfig({ apiExport: 'x.example.dev', published: [doc] }).published[0]?.projection;
const at = 'published[0] (PublishedResource "dbs"): spec';

describe('projection.versions in the configuration', () => {
  it('the own form keeps the map; a new name kcp would refuse is refused, naming the field', () => {
    expect(projectionOf({ name: 'dbs', crd: source, projection: { versions: { v1: 'v1beta1' } } })).toEqual({ versions: { v1: 'v1beta1' } });
    expect(syncConfigProblems({ apiExport: 'x.example.dev', published: [{ name: 'dbs', crd: source, projection: { versions: { v1: 'V1', v2: 3 } } }] })).toEqual([
      'published[0].projection.versions.v1: "V1" is not a Kubernetes version name kcp accepts (like v1, v1beta2, v2alpha1)',
      'published[0].projection.versions.v2: expected a string, got number 3',
    ]);
    expect(syncConfigProblems({ apiExport: 'x.example.dev', published: [{ name: 'dbs', crd: source, projection: { versions: 'v1beta1' } }] })).toEqual([
      'published[0].projection.versions: expected a mapping with <service version>, got the string "v1beta1"',
    ]);
  });

  it('a PublishedResource’s versions convert (a version mapped to itself left out), and its deprecated version renames the one version spec.resource names', () => {
    expect(projectionOf(pr({ projection: { versions: { v1: 'v1beta1', v2: 'v2' } } }))).toEqual({ versions: { v1: 'v1beta1' } });
    expect(projectionOf(pr({ projection: { version: 'v1beta1' } }))).toEqual({ versions: { v1: 'v1beta1' } });
    expect(projectionOf(pr({ resource: { apiGroup: 'db.example.dev', kind: 'Database', version: 'v2' }, projection: { version: 'v1alpha1' } }))).toEqual({ versions: { v2: 'v1alpha1' } });
    expect(projectionOf(pr({ projection: { version: 'v1', kind: 'Db' } }))).toEqual({ kind: 'Db', plural: 'dbs' });
  });

  it('refuses the deprecated version without one named version, with versions, or with a name kcp refuses', () => {
    expect(syncConfigProblems({ apiExport: 'x.example.dev', published: [pr({ resource: { apiGroup: 'db.example.dev', kind: 'Database' }, projection: { version: 'v1beta1' } })] })).toEqual([
      `${at}.projection.version: renames the one published version, so spec.resource must name exactly one (it names none: every served version is published); or write spec.projection.versions: { <service version>: v1beta1 }`,
    ]);
    expect(syncConfigProblems({ apiExport: 'x.example.dev', published: [pr({ resource: { apiGroup: 'db.example.dev', kind: 'Database', versions: ['v1', 'v2'] }, projection: { version: 'v1beta1' } })] })).toEqual([
      `${at}.projection.version: renames the one published version, so spec.resource must name exactly one (it names v1, v2); or write spec.projection.versions: { <service version>: v1beta1 }`,
    ]);
    expect(syncConfigProblems({ apiExport: 'x.example.dev', published: [pr({ projection: { version: 'v1beta1', versions: { v1: 'v1beta1' } } })] })).toEqual([`${at}.projection: give versions, or version (deprecated), not both`]);
    expect(syncConfigProblems({ apiExport: 'x.example.dev', published: [pr({ projection: { version: 'beta' } })] })).toEqual([`${at}.projection.version: "beta" is not a Kubernetes version name kcp accepts (like v1, v1beta2, v2alpha1)`]);
  });
});

describe('versionChoice with renames', () => {
  const crd = crdOf([v('v1alpha1'), v('v1', { storage: true }), v('v2'), v('internal')]);

  it('checks each rename against the published versions: not published, a name kcp refuses, two versions with one name', () => {
    const c = versionChoice(crd, { ...source, versions: ['v1', 'v2'] }, { v1: 'v2', v1alpha1: 'v1beta1', v3: 'v3', v2: 'Two' });
    expect(c).toEqual({
      type: 'invalid',
      problems: [
        'projection.versions.v1alpha1: version v1alpha1 is not published from CRD databases.db.example.dev (published: v1, v2), so there is nothing to rename',
        'projection.versions.v3: version v3 is not published from CRD databases.db.example.dev (published: v1, v2), so there is nothing to rename',
        'projection.versions.v2: "Two" is not a Kubernetes version name kcp accepts (like v1, v1beta2, v2alpha1)',
      ],
    });
    expect(versionChoice(crd, { ...source, versions: ['v1', 'v2'] }, { v1: 'v2' })).toEqual({
      type: 'invalid',
      problems: ['projection.versions: versions v1 and v2 of CRD databases.db.example.dev would both be v2 in kcp; each version in kcp needs its own name'],
    });
    expect(versionChoice(crd, { ...source, versions: ['v1', 'v2'] }, { v1: 'v3', v2: 'v3' })).toMatchObject({ type: 'invalid', problems: [expect.stringContaining('versions v1 and v2 of CRD databases.db.example.dev would both be v3 in kcp')] });
  });

  it('publishes a version whose own name kcp refuses once it is renamed; the choice stays in service names', () => {
    expect(versionChoice(crd, { ...source, versions: ['v1', 'internal'] })).toMatchObject({ type: 'invalid' });
    expect(versionChoice(crd, { ...source, versions: ['v1', 'internal'] }, { internal: 'v2alpha1', v1: 'v1beta1' })).toEqual({ type: 'chosen', versions: ['v1', 'internal'], storage: 'v1' });
    expect(kcpVersionName('v1', { versions: { v1: 'v1beta1' } })).toBe('v1beta1');
    expect(kcpVersionName('v2', { versions: { v1: 'v1beta1' } })).toBe('v2');
    expect(kcpVersionName('v2', undefined)).toBe('v2');
  });
});

describe('apiResourceSchemaOf with renamed versions', () => {
  it('publishes each version under its kcp name, its flags and schema following it, and names the schema after what changed', () => {
    const crd = crdOf([v('v1alpha1'), v('v1', { storage: true })]);
    const renamed: PublishedResource = { name: 'dbs', crd: source, projection: { versions: { v1: 'v1beta1', v1alpha1: 'v1alpha2' } } };
    const made = apiResourceSchemaOf(crd, renamed, 'agent-a');
    if (made.type !== 'schema') throw new Error(made.problems.join('; '));
    expect(made.schema.spec.versions.map((x) => [x.name, x.served, x.storage, Object.keys(x.schema.properties?.spec?.properties ?? {})])).toEqual([
      ['v1alpha2', true, false, ['v1alpha1Field']],
      ['v1beta1', true, true, ['v1Field']],
    ]);
    expect(made.schema.spec.conversion).toEqual({ strategy: 'None' });
    expect(made.storage).toBe('v1');
    const plain = apiResourceSchemaOf(crd, { name: 'dbs', crd: source }, 'agent-a');
    expect(plain.type === 'schema' ? plain.schema.metadata.name : undefined).not.toBe(made.schema.metadata.name);
  });

  it('returns the rename problems of a CRD it cannot publish so', () => {
    const made = apiResourceSchemaOf(crdOf([v('v1', { storage: true })]), { name: 'dbs', crd: source, projection: { versions: { v2: 'v2beta1' } } }, 'agent-a');
    expect(made).toEqual({ type: 'invalid', problems: ['projection.versions.v2: version v2 is not published from CRD databases.db.example.dev (published: v1), so there is nothing to rename'] });
  });
});
