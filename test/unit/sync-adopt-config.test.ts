// The `adopt` stanza of the sync configuration (api-syncagent#129): a good rule comes back as
// written; a rule that could adopt a whole cluster, name no workspace, or adopt objects the filter
// would never sync is refused, each problem with its path.
import { describe, expect, it } from 'vitest';
import { parseSyncConfig, syncConfigProblems } from '../../packages/sync-agent/src/config.js';

const entry = (extra: Record<string, unknown>): unknown => ({
  apiExport: 'databases.example.dev',
  published: [{ name: 'databases', crd: { group: 'db.example.dev', kind: 'Database' }, ...extra }],
});

describe('sync config: adopt', () => {
  it('a rule with a namespace, a selector, a workspace and a namespace is accepted as written', () => {
    const adopt = [{ from: { namespace: 'legacy', labelSelector: 'team=a' }, into: { workspace: '2a8ksc0x6lb5yzxz', namespace: 'apps' } }, { from: { labelSelector: 'team=b' }, into: { workspace: '1x2y3z' } }];
    expect(parseSyncConfig(entry({ adopt })).published[0]?.adopt).toEqual(adopt);
  });

  it('every problem is reported with its path', () => {
    expect(
      syncConfigProblems(
        entry({
          adopt: [{ from: {}, into: { namespace: 'Apps' } }, { from: { namespace: 'a', labelSelector: 'x in (' }, into: { workspace: 'root:org:ws', extra: 1 } }, 'everything'],
        }),
      ),
    ).toEqual([
      'published[0].adopt[0].from: required: give namespace and/or labelSelector (which service objects to adopt)',
      'published[0].adopt[0].into.workspace: required',
      'published[0].adopt[0].into.namespace: "Apps" must be lowercase letters, digits and "-", starting and ending with a letter or digit',
      expect.stringMatching(/^published\[0\]\.adopt\[1\]\.from\.labelSelector: "x in \(" /),
      'published[0].adopt[1].into.extra: unknown field; expected one of workspace, namespace, installation',
      'published[0].adopt[1].into.workspace: "root:org:ws" is not a logical cluster name (e.g. "2a8ksc0x6lb5yzxz")',
      'published[0].adopt[2]: expected a mapping with from, into, got the string "everything"',
    ]);
    expect(syncConfigProblems(entry({ adopt: [] }))).toEqual(['published[0].adopt: must not be empty; leave it out to adopt nothing']);
  });

  it('a rule the filter would never sync is refused: beside a label selector, or into another namespace', () => {
    const rule = { from: { namespace: 'legacy' }, into: { workspace: 'ws1' } };
    expect(syncConfigProblems(entry({ adopt: [rule], filter: { labelSelector: 'sync=yes' } }))).toEqual([
      'published[0].adopt: cannot be used with filter.labelSelector: an adopted object must be synced, and it carries none of the labels a consumer would set',
    ]);
    expect(syncConfigProblems(entry({ adopt: [rule], filter: { namespace: 'apps' } }))).toEqual([
      'published[0].adopt[0].into.namespace: is "default", but filter.namespace syncs only "apps": the adopted objects would never sync',
    ]);
    expect(syncConfigProblems(entry({ adopt: [{ ...rule, into: { workspace: 'ws1', namespace: 'apps' } }], filter: { namespace: 'apps' } }))).toEqual([]);
  });
});
