// The sync agent's configuration: YAML, JSON and data read the same, a good file comes back as
// written (frozen, defaults unfilled), and a bad one gives ONE ConfigError listing every problem by path.
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/core/config-error.js';
import { parseSyncConfig, syncConfigProblems } from '../../packages/sync-agent/src/config.js';
import type { SyncConfig } from '../../packages/sync-agent/src/types.js';

const yaml = `
agentName: db-agent
apiExport: databases.example.dev
published:
  - name: databases
    crd: { group: db.example.dev, kind: Database, versions: [v1, v1beta1] }
    projection: { group: databases.example.dev, plural: databases, kind: Database }
    naming:
      namespace: '{{ .ClusterName }}'
      name: '{{ .Object.metadata.namespace | sha3short }}-{{ .Object.metadata.name | sha3short }}'
    filter: { namespace: apps, labelSelector: tier=prod }
    syncDown: { labels: ['app.kubernetes.io/*'], annotations: [] }
    syncUp: { status: true }
    related:
      - identifier: connection
        origin: service
        kind: Secret
        object: { path: spec.connectionSecretName }
      - identifier: settings
        origin: kcp
        kind: ConfigMap
        object: { template: '{{ .Object.metadata.name }}-settings' }
`;

const expected: SyncConfig = {
  agentName: 'db-agent',
  apiExport: 'databases.example.dev',
  published: [
    {
      name: 'databases',
      crd: { group: 'db.example.dev', kind: 'Database', versions: ['v1', 'v1beta1'] },
      projection: { group: 'databases.example.dev', plural: 'databases', kind: 'Database' },
      naming: { namespace: '{{ .ClusterName }}', name: '{{ .Object.metadata.namespace | sha3short }}-{{ .Object.metadata.name | sha3short }}' },
      filter: { namespace: 'apps', labelSelector: 'tier=prod' },
      syncDown: { labels: ['app.kubernetes.io/*'], annotations: [] },
      syncUp: { status: true },
      related: [
        { identifier: 'connection', origin: 'service', kind: 'Secret', object: { path: 'spec.connectionSecretName' } },
        { identifier: 'settings', origin: 'kcp', kind: 'ConfigMap', object: { template: '{{ .Object.metadata.name }}-settings' } },
      ],
    },
  ],
};

function problemsOf(input: unknown): string {
  try {
    parseSyncConfig(input, 'sync.yaml');
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).message;
  }
  throw new Error('expected a ConfigError');
}

describe('sync config', () => {
  it('should read a full YAML file as written, frozen, with no defaults filled in', () => {
    const config = parseSyncConfig(yaml, 'sync.yaml');
    expect(config).toEqual(expected);
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.published[0]?.related?.[0]?.object)).toBe(true);
    const minimal = parseSyncConfig({ apiExport: 'x.dev', published: [{ name: 'p', crd: { group: 'g.dev', kind: 'Thing' } }] });
    expect(minimal).toEqual({ apiExport: 'x.dev', published: [{ name: 'p', crd: { group: 'g.dev', kind: 'Thing' } }] });
  });

  it('should read JSON text and data the same as YAML, and not share the caller data', () => {
    const data = JSON.parse(JSON.stringify(expected)) as SyncConfig;
    expect(parseSyncConfig(JSON.stringify(expected), 'sync.json')).toEqual(expected);
    const parsed = parseSyncConfig(data);
    expect(parsed).toEqual(expected);
    expect(parsed).not.toBe(data);
    expect(Object.isFrozen(data)).toBe(false);
  });

  it('should keep date-like and numeric-looking strings quoted by YAML as strings', () => {
    const config = parseSyncConfig('apiExport: x.dev\npublished:\n  - name: "2024-01-01"\n    crd: { group: g.dev, kind: Thing }\n');
    expect(config.published[0]?.name).toBe('2024-01-01');
    expect(problemsOf('apiExport: x.dev\npublished:\n  - name: 2024-01-01\n    crd: { group: g.dev, kind: Thing, versions: [1] }\n')).toContain(
      'published[0].crd.versions[0]: expected a version name, got number 1',
    );
  });

  it('should list every problem of the file in one ConfigError, each with its path', () => {
    const message = problemsOf({
      agentName: 'Bad Agent',
      extra: 1,
      published: [
        {
          name: 'databases',
          crd: { group: 'db.example.dev', kind: 'Database', versions: ['v1', 'v1'], plural: 'x' },
          naming: { namespace: '{{ .ClusterPath }}', name: '' },
          syncUp: { status: 'yes' },
          syncDown: { labels: ['a*b', 3] },
          related: [
            { identifier: 'conn', origin: 'cloud', kind: 'Pod', object: { path: '.spec.x' } },
            { identifier: 'conn', origin: 'kcp', kind: 'Secret', object: { path: 'spec.a', template: '{{ .ClusterName }}' } },
            { identifier: 'other', origin: 'kcp', kind: 'Secret' },
          ],
        },
        { name: 'databases', crd: 'Database', filter: { namespace: 'Apps' } },
      ],
    });
    expect(message.split('\n')).toEqual([
      'sync.yaml: 19 problems in the sync configuration:',
      '  - extra: unknown field; expected one of agentName, apiExport, installations, published, publishedResources, publishedResourceSelector, watchPublishedResources',
      '  - agentName: "Bad Agent" must be letters, digits, "-", "_" and ".", starting and ending with a letter or digit (it is used as a label value)',
      '  - apiExport: required',
      '  - published[0].crd.plural: unknown field; expected one of group, kind, versions',
      '  - published[0].crd.versions[1]: "v1" is listed twice',
      '  - published[0].naming.namespace: "{{ .ClusterPath }}" does not compile: template "{{ .ClusterPath }}": ".ClusterPath": only .ClusterName and .Object.<field> are available',
      '  - published[0].naming.name: "" must not be empty; leave it out for the default',
      '  - published[0].syncDown.labels[0]: "a*b" "*" is only allowed at the end (a prefix match)',
      '  - published[0].syncDown.labels[1]: expected a string, got number 3',
      '  - published[0].syncUp.status: expected true or false, got the string "yes"',
      '  - published[0].related[0].origin: "cloud" is not an origin: expected "service" or "kcp"',
      '  - published[0].related[0].kind: "Pod" is not supported: expected "Secret" or "ConfigMap" (for any other resource, give group, version and resource)',
      '  - published[0].related[0].object.path: ".spec.x" a path has no leading dot: write "spec.x"',
      '  - published[0].related[1].identifier: "conn" is already the identifier of published[0].related[0]',
      '  - published[0].related[1].object: give exactly one of `path` (a dotted field of the primary), `template` or `selector`',
      '  - published[0].related[2].object: required: give exactly one of `path` (a dotted field of the primary), `template` or `selector`',
      '  - published[1].name: "databases" is already the name of published[0]',
      '  - published[1].crd: expected a mapping with group, kind, versions, got the string "Database"',
      '  - published[1].filter.namespace: "Apps" must be lowercase letters, digits and "-", starting and ending with a letter or digit',
    ]);
  });

  it('should check names used in labels, kinds, groups, plurals and fixed templates', () => {
    const problems = syncConfigProblems({
      apiExport: 'Not_A_Name',
      published: [
        {
          name: 'x'.repeat(64),
          crd: { group: '', kind: '9Lives' },
          projection: { plural: 'Databases', group: 'db..dev' },
          naming: { namespace: 'Tenants' },
          related: [{ identifier: 'c', origin: 'service', kind: 'Secret', object: { template: '{{ .Object.metadata.name | upper }}' } }],
        },
      ],
    });
    expect(problems).toEqual([
      'apiExport: "Not_A_Name" must be dot-separated parts of lowercase letters, digits and "-", each starting and ending with a letter or digit',
      `published[0].name: "${'x'.repeat(64)}" is 64 characters, more than 63 (it is used as a label value)`,
      'published[0].crd.group: "" must not be empty',
      'published[0].crd.kind: "9Lives" is not a kind: letters, digits and "-", starting with a letter (e.g. "Database")',
      'published[0].projection.group: "db..dev" must be dot-separated parts of lowercase letters, digits and "-", each starting and ending with a letter or digit',
      'published[0].projection.plural: "Databases" must be lowercase letters, digits and "-", starting with a letter and ending with a letter or digit',
      'published[0].naming.namespace: "Tenants" is a fixed name that must be lowercase letters, digits and "-", starting and ending with a letter or digit',
      'published[0].related[0].object.template: "{{ .Object.metadata.name | upper }}" does not compile: template "{{ .Object.metadata.name | upper }}": "upper": only sha3short and shortHash can follow "|"',
    ]);
  });

  it('should refuse an empty or missing published list and a document that is not a mapping', () => {
    expect(syncConfigProblems({ apiExport: 'x.dev' })).toEqual(['published: required: the list of resources to publish']);
    expect(syncConfigProblems({ apiExport: 'x.dev', published: [] })).toEqual(['published: must list at least one resource to publish']);
    expect(syncConfigProblems(['a'])).toEqual(['the configuration: expected a mapping with agentName, apiExport, installations, published, publishedResources, publishedResourceSelector, watchPublishedResources, got a list']);
    expect(problemsOf('')).toMatch(/^sync\.yaml: not valid YAML or JSON: /);
    expect(problemsOf('null')).toBe('sync.yaml: a problem in the sync configuration:\n  - the configuration: expected a mapping with agentName, apiExport, installations, published, publishedResources, publishedResourceSelector, watchPublishedResources, got null');
  });

  it('should take its published resources from the service cluster with watchPublishedResources: true, and nothing else for it', () => {
    expect(syncConfigProblems({ apiExport: 'x.dev', watchPublishedResources: true })).toEqual([]);
    expect(parseSyncConfig({ apiExport: 'x.dev', watchPublishedResources: true, publishedResourceSelector: 'agent=a' })).toEqual({ apiExport: 'x.dev', watchPublishedResources: true, publishedResourceSelector: 'agent=a', published: [] });
    expect(syncConfigProblems({ apiExport: 'x.dev', watchPublishedResources: 'yes' })).toEqual(['watchPublishedResources: expected true or false, got the string "yes"', 'published: required: the list of resources to publish']);
  });

  it('should report YAML that does not parse, naming the file', () => {
    expect(problemsOf('apiExport: [x\npublished: 1')).toMatch(/^sync\.yaml: not valid YAML or JSON: /);
    expect(problemsOf('apiExport: a\napiExport: b\npublished: []')).toContain('duplicated mapping key');
  });

  it('should refuse related references a consumer could point at another object\'s related object, with their paths', () => {
    const related = (object: Readonly<Record<string, string>>): unknown => ({
      apiExport: 'x.dev',
      published: [{ name: 'p', crd: { group: 'x.dev', kind: 'X' }, related: [{ identifier: 'conn', origin: 'service', kind: 'Secret', object }] }],
    });
    expect(syncConfigProblems(related({ path: 'spec.secretName' }))).toEqual([]);
    expect(syncConfigProblems(related({ template: '{{ .Object.metadata.name }}-conn' }))).toEqual([]);
    expect(syncConfigProblems(related({ path: 'metadata.annotations.secret' }))).toEqual([
      'published[0].related[0].object: path metadata.annotations.secret: under metadata only metadata.name can name a related object (the agent sets the copy\'s metadata; a label or annotation a consumer writes could name another consumer object\'s related object)',
    ]);
    const [template] = syncConfigProblems(related({ template: '{{ .Object.spec.secret }}' }));
    expect(template).toMatch(/^published\[0\]\.related\[0\]\.object: template reads \.Object\.spec\.secret, which the consumer writes/);
  });
});
