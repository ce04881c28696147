// api-syncagent's PublishedResource as the sync agent's configuration (issue 28 item 4): pasted into
// `published` as it is, or read from files, it converts into the agent's own entry (one plan for
// both forms); what the agent does not support is refused field by field, naming the file, the
// object and the field.
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/core/config-error.js';
import { parseSyncConfig, syncConfigProblems } from '../../packages/sync-agent/src/config.js';
import { legacyNaming } from '../../packages/sync-agent/src/published-resource-fields.js';

// api-syncagent's documented shape, as `kubectl get publishedresource -o yaml` prints it.
const pasted = {
  apiVersion: 'syncagent.kcp.io/v1alpha1',
  kind: 'PublishedResource',
  metadata: { name: 'publish-databases', labels: { agent: 'a' }, uid: '0b7d', resourceVersion: '42', generation: 1 },
  spec: {
    resource: { apiGroup: 'db.example.dev', kind: 'Database', versions: ['v1'] },
    filter: { resource: { matchLabels: { sync: 'yes' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['a', 'b'] }, { key: 'legacy', operator: 'DoesNotExist' }] } },
    naming: { namespace: '{{ .ClusterName }}', name: '{{ .Object.metadata.namespace | sha3short }}-{{ .Object.metadata.name | sha3short }}' },
    projection: { kind: 'ManagedDatabase', plural: 'manageddatabases', shortNames: ['mdb'], categories: [], versions: { v1: 'v1' } },
    mutation: { spec: [{ delete: { path: 'spec.debug' } }], status: [{ regex: { path: 'status.endpoint', pattern: '^(.*)\\.internal$', replacement: '$1.example.dev' } }] },
    related: [{ identifier: 'connection', origin: 'service', group: '', version: 'v1', resource: 'secrets', cleanup: true, watch: { byOwner: {} }, object: { reference: { path: 'spec.connectionSecretName' } } }],
    synchronization: { enabled: true },
  },
  status: { resourceSchemaName: 'v1.databases.db.example.dev' },
};

const converted = {
  name: 'publish-databases',
  from: 'published[0] (PublishedResource "publish-databases")',
  crd: { group: 'db.example.dev', kind: 'Database', versions: ['v1'] },
  filter: { labelSelector: 'sync=yes,tier in (a,b),!legacy' },
  naming: pasted.spec.naming,
  projection: { kind: 'ManagedDatabase', plural: 'manageddatabases', shortNames: ['mdb'], categories: [] },
  mutation: pasted.spec.mutation,
  related: [{ identifier: 'connection', origin: 'service', version: 'v1', resource: 'secrets', object: { path: 'spec.connectionSecretName' } }],
  // api-syncagent's default: every label and annotation goes down but its own and kcp's.
  syncDown: { labels: ['*'], annotations: ['*'] },
};

const problemsOf = (f: () => unknown): string => {
  try {
    f();
  } catch (e) {
    if (e instanceof ConfigError) return e.message;
    throw e;
  }
  throw new Error('expected a ConfigError');
};

describe('a PublishedResource as configuration', () => {
  it('pasted into published as it is, it converts into the agent’s own entry', () => {
    const config = parseSyncConfig({ apiExport: 'databases.example.dev', published: [pasted] });
    expect(config.published).toEqual([converted]);
  });

  it('read from files (Lists included), next to entries of the agent’s own form, in order', () => {
    const own = { name: 'own', crd: { group: 'other.example.dev', kind: 'Widget' } };
    const second = { ...pasted, metadata: { name: 'second' } };
    const config = parseSyncConfig({ apiExport: 'databases.example.dev', published: [own] }, 'sync.yaml', [
      { file: 'prs/a.yaml', documents: [pasted, null] },
      { file: 'prs/b.yaml', documents: [{ apiVersion: 'v1', kind: 'List', items: [second] }] },
    ]);
    expect(config.published.map((p) => [p.name, p.from])).toEqual([
      ['own', undefined],
      ['publish-databases', 'prs/a.yaml document 1 (PublishedResource "publish-databases")'],
      ['second', 'prs/b.yaml document 1 items[0] (PublishedResource "second")'],
    ]);
  });

  it('publishedResourceSelector splits the work: an agent serves only the PublishedResources whose labels match', () => {
    const b = { ...pasted, metadata: { name: 'for-b', labels: { agent: 'b' } } };
    const files = [{ file: 'prs.yaml', documents: [pasted, b] }];
    expect(parseSyncConfig({ apiExport: 'x.example.dev', publishedResourceSelector: 'agent=b' }, 'sync.yaml', files).published.map((p) => p.name)).toEqual(['for-b']);
    expect(parseSyncConfig({ apiExport: 'x.example.dev', publishedResourceSelector: 'agent in (a,b)' }, 'sync.yaml', files).published.map((p) => p.name)).toEqual(['publish-databases', 'for-b']);
    expect(problemsOf(() => parseSyncConfig({ apiExport: 'x.example.dev', publishedResourceSelector: 'agent=c' }, 'sync.yaml', files))).toContain('published: no published resource is left (check publishedResourceSelector)');
  });

  it('deprecated $remote... naming rules become the templates api-syncagent documents for them', () => {
    expect(legacyNaming('$remoteClusterName')).toBe('{{ .ClusterName }}');
    expect(legacyNaming('$remoteNamespaceHash-$remoteNameHash')).toBe('{{ .Object.metadata.namespace | shortHash }}-{{ .Object.metadata.name | shortHash }}');
    expect(legacyNaming('x-$remoteNamespace-$remoteName')).toBe('x-{{ .Object.metadata.namespace }}-{{ .Object.metadata.name }}');
    const config = parseSyncConfig({ apiExport: 'x.example.dev', published: [{ ...pasted, spec: { resource: pasted.spec.resource, naming: { namespace: '$remoteClusterName', name: '$remoteNamespaceHash-$remoteNameHash' } } }] });
    expect(config.published[0]?.naming).toEqual({ namespace: '{{ .ClusterName }}', name: '{{ .Object.metadata.namespace | shortHash }}-{{ .Object.metadata.name | shortHash }}' });
  });

  it('refuses, field by field, what the agent does not do, naming the file, the object and the field', () => {
    const unsupported = {
      ...pasted,
      spec: {
        resource: { apiGroup: 'db.example.dev', kind: 'Database', version: 'v1', versions: ['v1'] },
        filter: { namespace: { matchLabels: { team: 'a' } } },
        enableWorkspacePaths: true,
        projection: { versions: { v1: 'V1' }, scope: 'Global' },
        related: [
          { identifier: 'cert', origin: 'kcp', group: 'cert-manager.io', version: 'v1', resource: 'certificates', identityHash: 'abc', watch: { byOwner: {}, bySelector: {} }, syncStatus: true, object: { selector: { matchLabels: { a: 'b' } } } },
          { identifier: 'conn', origin: 'service', kind: 'Secret', mutation: { status: [] }, projection: {}, object: { reference: { path: 'spec.conn', regex: { pattern: 'x' } } } },
        ],
        synchronization: { enabled: false },
        surprise: 1,
      },
    };
    const message = problemsOf(() => parseSyncConfig({ apiExport: 'x.example.dev' }, 'sync.yaml', [{ file: 'prs/db.yaml', documents: [unsupported] }]));
    const at = 'prs/db.yaml document 1 (PublishedResource "publish-databases"): spec';
    for (const line of [
      `${at}.surprise: unknown field`,
      `${at}.resource: give versions, or version (deprecated), not both`,
      `${at}.filter.namespace: not supported yet: a label selector on namespaces`,
      `${at}.enableWorkspacePaths: not supported yet: workspace paths`,
      `${at}.projection.versions.v1: "V1" is not a Kubernetes version name kcp accepts`,
      `${at}.projection.scope: "Global" is not a scope`,
      `${at}.related[0].watch: give exactly one of byOwner or bySelector`,
      `${at}.related[0].object.selector.rewrite: required: how a found object is named in the workspace`,
      `${at}.related[1].mutation.status: needs syncStatus: true`,
      `${at}.related: has no effect with synchronization.enabled: false (nothing is synced)`,
    ]) expect(message).toContain(line);
    expect(message).toMatch(/^sync\.yaml: 10 problems in the sync configuration/);
  });

  it('filter.namespace naming one namespace by its name label, and synchronization.enabled: false, convert; other namespace selectors are refused with the reason', () => {
    const one = (namespace: unknown, extra: Record<string, unknown> = {}): unknown => ({ ...pasted, spec: { resource: pasted.spec.resource, filter: { namespace }, ...extra } });
    const entry = (doc: unknown): unknown => parseSyncConfig({ apiExport: 'x.example.dev', published: [doc] }).published[0];
    expect(entry(one({ matchLabels: { 'kubernetes.io/metadata.name': 'apps' } }))).toMatchObject({ filter: { namespace: 'apps' } });
    expect(entry(one({ matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'In', values: ['apps'] }] }))).toMatchObject({ filter: { namespace: 'apps' } });
    expect(entry(one({}))).not.toHaveProperty('filter');
    expect(entry(one({}, { synchronization: { enabled: false } }))).toMatchObject({ sync: false });
    const at = 'published[0] (PublishedResource "publish-databases"): spec';
    for (const [selector, field] of [
      [{ matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'In', values: ['a', 'b'] }] }, 'filter.namespace'],
      [{ matchLabels: { 'kubernetes.io/metadata.name': 'apps', team: 'a' } }, 'filter.namespace'],
      [{ matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'NotIn', values: ['apps'] }] }, 'filter.namespace'],
    ] as const) {
      expect(syncConfigProblems({ apiExport: 'x.example.dev', published: [one(selector)] })).toEqual([`${at}.${field}: not supported yet: a label selector on namespaces other than one namespace by its kubernetes.io/metadata.name label (matchLabels, or In with one value); the agent does not read consumer namespaces, which would need a permission claim on them that every consumer must accept`]);
    }
    expect(syncConfigProblems({ apiExport: 'x.example.dev', published: [one({}, { synchronization: { enabled: 'no' } })] })).toEqual([`${at}.synchronization.enabled: expected true or false, got the string "no"`]);
  });

  it('the own form: sync is true or false, and sync: false refuses related and adopt (nothing would carry them)', () => {
    const crd = { group: 'db.example.dev', kind: 'Database' };
    expect(parseSyncConfig({ apiExport: 'x.example.dev', published: [{ name: 'db', crd, sync: false }] }).published[0]?.sync).toBe(false);
    expect(syncConfigProblems({ apiExport: 'x.example.dev', published: [{ name: 'db', crd, sync: 'no' }] })).toEqual(['published[0].sync: expected true or false, got the string "no"']);
    const related = [{ identifier: 'conn', origin: 'service', kind: 'Secret', object: { path: 'spec.conn' } }];
    expect(syncConfigProblems({ apiExport: 'x.example.dev', published: [{ name: 'db', crd, sync: false, related }] })).toEqual(['published[0].related: has no effect with sync: false (nothing is synced); remove it or sync']);
  });

  it('mutations are checked at start: one kind per step, paths, RE2 patterns, template fields, CEL', () => {
    const bad = { ...pasted, spec: { resource: pasted.spec.resource, mutation: { spec: [
      { delete: { path: 'spec.a' }, regex: { path: 'spec.a' } },
      { delete: { path: 'spec.items.#.name' } },
      { regex: { path: 'spec.a', pattern: '(?<=x)y' } },
      { template: { path: 'spec.a', template: '{{ .Env.HOME }}' } },
      { template: { path: 'spec.a', template: '{{ readFile "/etc/passwd" }}' } },
      { cel: { path: 'spec.a', expression: 'value +' } },
      { cel: { path: 'spec.a', expression: 'value.matches("(a+)+$")' } },
      { cel: { path: 'spec.a', expression: 'process.env' } },
      { cel: { path: 'kind', expression: '"Pod"' } },
    ] } } };
    const p = syncConfigProblems({ apiExport: 'x.example.dev', published: [bad] });
    const at = 'published[0] (PublishedResource "publish-databases"): spec.mutation.spec';
    expect(p).toEqual([
      `${at}[0]: give exactly one of delete, regex, template, cel, not delete and regex`,
      expect.stringMatching(new RegExp(`^${escape(at)}\\[1\\]\\.delete\\.path: "spec\\.items\\.#\\.name": "#" \\(a gjson query`)),
      expect.stringMatching(new RegExp(`^${escape(at)}\\[2\\]\\.regex\\.pattern: is not an RE2 \\(Go\\) regular expression`)),
      `${at}[3].template.template: template "{{ .Env.HOME }}": ".Env.HOME": only .Value.<field>, .LocalObject.<field> and .RemoteObject.<field> are available`,
      `${at}[4].template.template: template "{{ readFile \\"/etc/passwd\\" }}": "readFile" is not a field (.Value.<field>, .LocalObject.<field>, .RemoteObject.<field>) or a function (sha3short, shortHash)`,
      expect.stringMatching(new RegExp(`^${escape(at)}\\[5\\]\\.cel\\.expression: does not parse`)),
      expect.stringMatching(new RegExp(`^${escape(at)}\\[6\\]\\.cel\\.expression: matches\\(\\): matches runs on a backtracking`)),
      expect.stringMatching(new RegExp(`^${escape(at)}\\[7\\]\\.cel\\.expression: does not type-check: Unknown variable: process`)),
      `${at}[8].cel.path: "kind": kind is the agent's to set`,
    ]);
  });
});

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
