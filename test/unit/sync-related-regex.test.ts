// A related reference's regex (api-syncagent's `reference.regex`): the value read at the path is
// rewritten (RE2, through the mutation engine) before it names the object; a PublishedResource's
// `reference.regex` converts into the agent's `object.regex`.
import { describe, expect, it } from 'vitest';
import { relatedName } from '../../packages/sync-agent/src/naming.js';
import { parseSyncConfig } from '../../packages/sync-agent/src/config.js';
import { referenceRegexProblem } from '../../packages/sync-agent/src/related-regex.js';

const primary = { metadata: { name: 'orders', namespace: 'default' }, spec: { url: 'secret://orders-conn', other: 'plain' } };

describe('related reference regex', () => {
  it('rewrites the value read at the path into the name', () => {
    expect(relatedName({ path: 'spec.url', regex: { pattern: '^secret://(.*)$', replacement: '$1' } }, 'ws', primary)).toEqual({ type: 'named', name: 'orders-conn' });
    // No match: the value as it is (then checked as a name).
    expect(relatedName({ path: 'spec.other', regex: { pattern: '^secret://(.*)$', replacement: '$1' } }, 'ws', primary)).toEqual({ type: 'named', name: 'plain' });
    // No pattern: the whole value replaced.
    expect(relatedName({ path: 'spec.url', regex: { replacement: 'fixed' } }, 'ws', primary)).toEqual({ type: 'named', name: 'fixed' });
  });

  it('a rewrite to nothing is "not yet", one to a bad name is invalid, a bad pattern is a problem', () => {
    expect(relatedName({ path: 'spec.url', regex: { pattern: '.*', replacement: '' } }, 'ws', primary)).toEqual({ type: 'missing', field: 'spec.url' });
    expect(relatedName({ path: 'spec.url', regex: { pattern: '^secret', replacement: 'Bad_' } }, 'ws', primary).type).toBe('invalid');
    expect(referenceRegexProblem({ pattern: '(' })).toMatch(/^pattern: is not an RE2 \(Go\) regular expression/);
  });

  it('a PublishedResource\'s reference.regex converts', () => {
    const pr = {
      apiVersion: 'syncagent.kcp.io/v1alpha1',
      kind: 'PublishedResource',
      metadata: { name: 'dbs' },
      spec: {
        resource: { apiGroup: 'db.example.dev', kind: 'Database', versions: ['v1'] },
        related: [{ identifier: 'conn', origin: 'service', resource: 'secrets', object: { reference: { path: 'spec.url', regex: { pattern: '^secret://(.*)$', replacement: '$1' } } } }],
      },
    };
    const config = parseSyncConfig({ apiExport: 'x.example.dev', published: [pr] });
    expect(config.published[0]?.related?.[0]?.object).toEqual({ path: 'spec.url', regex: { pattern: '^secret://(.*)$', replacement: '$1' } });
  });
});
