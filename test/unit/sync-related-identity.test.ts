// A related resource another kcp APIExport provides (issue 28 item 4, `related[].identityHash`): read
// in both configuration forms, only with group, version and resource, and named in the permission
// claim, so the consumer that binds both exports grants the agent that resource.
import { describe, expect, it } from 'vitest';
import { resource } from '../../src/index.js';
import { parseSyncConfig, syncConfigProblems } from '../../packages/sync-agent/src/config.js';
import { relatedClaims } from '../../packages/sync-agent/src/export-merge.js';
import type { PublishedPlan } from '../../packages/sync-agent/src/plan.js';
import type { RelatedResource } from '../../packages/sync-agent/src/types.js';

const crd = { group: 'db.example.dev', kind: 'Database' };
const widgets = { group: 'widgets.example.dev', version: 'v1', resource: 'widgets' };
const own = (related: Record<string, unknown>): unknown => ({ apiExport: 'x.example.dev', published: [{ name: 'db', crd, related: [{ identifier: 'w', origin: 'kcp', object: { path: 'spec.w' }, ...related }] }] });

describe('related[].identityHash', () => {
  it('is read in both forms with group, version and resource', () => {
    expect(parseSyncConfig(own({ ...widgets, identityHash: 'abc123' })).published[0]?.related?.[0]).toMatchObject({ ...widgets, identityHash: 'abc123' });
    // (A PublishedResource keeps api-syncagent's `cleanup` default, false, for origin service.)
    const pr = { apiVersion: 'syncagent.kcp.io/v1alpha1', kind: 'PublishedResource', metadata: { name: 'p' }, spec: { resource: { apiGroup: 'db.example.dev', kind: 'Database', versions: ['v1'] }, related: [{ identifier: 'w', origin: 'service', ...widgets, identityHash: 'abc123', object: { reference: { path: 'spec.w' } } }] } };
    expect(parseSyncConfig({ apiExport: 'x.example.dev', published: [pr] }).published[0]?.related?.[0]).toEqual({ identifier: 'w', origin: 'service', ...widgets, identityHash: 'abc123', object: { path: 'spec.w' }, cleanup: false });
  });

  it('is refused without a group, a version or a resource, with the kind shorthand, and when it is not a hash', () => {
    const at = 'published[0].related[0].identityHash';
    const why = 'only with group, version and resource (a resource another kcp APIExport provides is never in the core group)';
    expect(syncConfigProblems(own({ resource: 'widgets', version: 'v1', identityHash: 'abc' }))).toEqual([`${at}: ${why}`]);
    expect(syncConfigProblems(own({ group: 'widgets.example.dev', resource: 'widgets', identityHash: 'abc' }))).toEqual([`${at}: ${why}`]);
    expect(syncConfigProblems(own({ kind: 'Secret', identityHash: 'abc' }))).toEqual([`${at}: ${why}`]);
    expect(syncConfigProblems(own({ ...widgets, identityHash: 'ABC/x' }))).toEqual([`${at}: "ABC/x" is not an identity hash (lowercase letters and digits: an APIExport's status.identityHash)`]);
  });

  it('is named in the permission claim, beside a claim of the same resource without one', () => {
    const r = resource({ group: 'db.example.dev', version: 'v1', plural: 'databases', kind: 'Database', namespaced: true });
    const w = resource({ group: 'widgets.example.dev', version: 'v1', plural: 'widgets', kind: 'Widget', namespaced: true });
    const related: RelatedResource[] = [
      { identifier: 'a', origin: 'kcp', ...widgets, identityHash: 'abc123', object: { path: 'spec.a' } },
      { identifier: 'b', origin: 'service', ...widgets, identityHash: 'abc123', object: { path: 'spec.b' } },
      { identifier: 'c', origin: 'service', ...widgets, object: { path: 'spec.c' } },
    ];
    const plan: PublishedPlan = { published: { name: 'db', crd, related }, agentName: 'a', service: r, kcp: r, publishedVersions: ['v1'], statusSubresource: true, related: { a: w, b: w, c: w } };
    expect(relatedClaims([plan])).toEqual([
      { group: 'widgets.example.dev', resource: 'widgets', verbs: ['*'] },
      { group: 'widgets.example.dev', resource: 'widgets', identityHash: 'abc123', verbs: ['*'] },
    ]);
  });
});
