// A related entry's `syncStatus`, `mutation.status`, `cleanup` and `object.namespace` (issue 28
// item 4), in both forms: accepted where the agent does what they say, refused at start, by path,
// where it would not (a status mutation with no status copied, `cleanup: false` on copies the agent
// always deletes, a namespace a consumer could steer on the service cluster).
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/index.js';
import { resource } from '../../src/index.js';
import { parseSyncConfig, syncConfigProblems } from '../../packages/sync-agent/src/config.js';
import type { PublishedPlan } from '../../packages/sync-agent/src/plan.js';
import { withCopyNamespaces, workspaceNamespace } from '../../packages/sync-agent/src/related-namespace.js';
import { mutateRelated } from '../../packages/sync-agent/src/related-mutation.js';
import type { PublishedResource, RelatedResource } from '../../packages/sync-agent/src/types.js';

const crd = { group: 'db.example.dev', kind: 'Database' };
const own = (related: readonly unknown[]): unknown => ({ apiExport: 'x.example.dev', published: [{ name: 'dbs', crd, related }] });
const pasted = (related: readonly unknown[]): unknown => ({
  apiExport: 'x.example.dev',
  published: [{ apiVersion: 'syncagent.kcp.io/v1alpha1', kind: 'PublishedResource', metadata: { name: 'dbs' }, spec: { resource: { apiGroup: crd.group, kind: crd.kind, versions: ['v1'] }, related } }],
});
const quota = { identifier: 'quota', origin: 'kcp', resource: 'resourcequotas' };
const secret = { identifier: 'conn', origin: 'service', resource: 'secrets' };
const at = 'published[0] (PublishedResource "dbs"): spec.related[0]';

describe('related syncStatus and mutation.status', () => {
  it('are accepted in both forms, the status rules with syncStatus', () => {
    const mutation = { status: [{ delete: { path: 'status.used' } }] };
    const mine = parseSyncConfig(own([{ ...quota, syncStatus: true, mutation, object: { path: 'spec.quotaName' } }]));
    expect(mine.published[0]?.related?.[0]).toMatchObject({ syncStatus: true, mutation });
    const theirs = parseSyncConfig(pasted([{ ...quota, syncStatus: true, mutation, object: { reference: { path: 'spec.quotaName' } } }]));
    expect(theirs.published[0]?.related?.[0]).toEqual({ identifier: 'quota', origin: 'kcp', resource: 'resourcequotas', object: { path: 'spec.quotaName' }, syncStatus: true, mutation });
  });

  it('a status mutation without syncStatus is refused: it would do nothing', () => {
    const mutation = { status: [{ delete: { path: 'status.used' } }] };
    expect(syncConfigProblems(own([{ ...quota, mutation, object: { path: 'spec.q' } }]))).toEqual(['published[0].related[0].mutation.status: needs syncStatus: true (without it the related object\'s status is not copied, and the rules would do nothing)']);
    expect(syncConfigProblems(pasted([{ ...quota, syncStatus: false, mutation, object: { reference: { path: 'spec.q' } } }]))).toEqual([`${at}.mutation.status: needs syncStatus: true (without it the related object's status is not copied, and the rules would do nothing)`]);
    expect(syncConfigProblems(own([{ ...quota, syncStatus: 'yes', object: { path: 'spec.q' } }]))).toEqual(['published[0].related[0].syncStatus: expected true or false, got the string "yes"']);
    expect(syncConfigProblems(own([{ ...quota, syncStatus: true, mutation: { status: [{ regex: { path: 'status.a', pattern: '(?<=x)' } }] }, object: { path: 'spec.q' } }]))[0]).toMatch(/^published\[0\]\.related\[0\]\.mutation\.status\[0\]\.regex\.pattern: is not an RE2/);
  });

  it('the status rules run on the origin object, with the destination copy as other', () => {
    const related: RelatedResource = { identifier: 'q', origin: 'kcp', resource: 'resourcequotas', object: { path: 'spec.q' }, syncStatus: true, mutation: { status: [{ delete: { path: 'status.used' } }, { cel: { path: 'status.copiedFrom', expression: 'other.metadata.name' } }] } };
    const origin = { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'q', namespace: 'default' }, status: { hard: { pods: '5' }, used: { pods: '0' } } } as KubeObject;
    const copy = { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'derived', namespace: 'ws' } } as KubeObject;
    const r = mutateRelated(related, origin, copy, 'status');
    expect(r.type === 'mutated' ? (r.object as KubeObject & { status?: unknown }).status : r).toEqual({ hard: { pods: '5' }, copiedFrom: 'derived' });
    // The contents rules are another list: none here, so the object as it is.
    expect(mutateRelated(related, origin, copy)).toEqual({ type: 'mutated', object: origin });
  });
});

describe('related cleanup', () => {
  it('the agent form keeps deleting by default; cleanup: false is kept for origin service', () => {
    const c = parseSyncConfig(own([{ ...secret, object: { path: 'spec.s' } }, { ...secret, identifier: 'kept', cleanup: false, object: { path: 'spec.k' } }]));
    expect(c.published[0]?.related?.map((r) => r.cleanup)).toEqual([undefined, false]);
  });

  it('a PublishedResource takes api-syncagent\'s default: copies from the service cluster are kept unless cleanup: true', () => {
    const c = parseSyncConfig(pasted([
      { ...secret, object: { reference: { path: 'spec.s' } } },
      { ...secret, identifier: 'deleted', cleanup: true, object: { reference: { path: 'spec.d' } } },
      { ...quota, object: { reference: { path: 'spec.q' } } },
    ]));
    expect(c.published[0]?.related?.map((r) => [r.identifier, r.cleanup])).toEqual([['conn', false], ['deleted', undefined], ['quota', undefined]]);
  });

  it('cleanup: false is refused for origin kcp (the service-side copies are always deleted), and must be a boolean', () => {
    const why = 'cleanup: false is for origin service only: with origin kcp the copies are on the service cluster, and the agent always deletes them with their primary object';
    expect(syncConfigProblems(own([{ ...quota, cleanup: false, object: { path: 'spec.q' } }]))[0]).toContain(`published[0].related[0].${why}`);
    expect(syncConfigProblems(pasted([{ ...quota, cleanup: false, object: { reference: { path: 'spec.q' } } }]))[0]).toContain(`${at}.${why}`);
    expect(syncConfigProblems(own([{ ...secret, cleanup: 'no', object: { path: 'spec.s' } }]))).toEqual(['published[0].related[0].cleanup: expected true or false, got the string "no"']);
  });
});

describe('related object.namespace', () => {
  it('a path in the synced spec is accepted in both forms', () => {
    const ns = { path: 'spec.secretNamespace', regex: { pattern: '^ns-(.*)$', replacement: '$1' } };
    expect(parseSyncConfig(own([{ ...secret, object: { path: 'spec.s', namespace: ns } }])).published[0]?.related?.[0]?.object).toEqual({ path: 'spec.s', namespace: ns });
    expect(parseSyncConfig(pasted([{ ...secret, object: { reference: { path: 'spec.s' }, namespace: { reference: ns } } }])).published[0]?.related?.[0]?.object).toEqual({ path: 'spec.s', namespace: ns });
  });

  it('a namespace the consumer could steer on the service cluster, or one that differs by side, is refused', () => {
    const field = 'must be a field of the consumer object\'s synced contents';
    expect(syncConfigProblems(own([{ ...secret, object: { path: 'spec.s', namespace: { path: 'metadata.namespace' } } }]))[0]).toContain(`published[0].related[0].object.namespace.path: path metadata.namespace: ${field}`);
    expect(syncConfigProblems(own([{ ...secret, object: { path: 'spec.s', namespace: { path: 'status.ns' } } }]))[0]).toContain(`object.namespace.path: path status.ns: ${field}`);
    const side = 'not supported: on the service cluster the related object stays in the copy\'s namespace (a consumer must never name a service-side namespace)';
    expect(syncConfigProblems(pasted([{ ...secret, object: { reference: { path: 'spec.s' }, namespace: { template: { template: '{{ .ClusterName }}' } } } }]))[0]).toContain(`${at}.object.namespace.template: ${side}`);
    expect(syncConfigProblems(pasted([{ ...secret, object: { reference: { path: 'spec.s' }, namespace: { selector: { matchLabels: { a: 'b' } } } } }]))[0]).toContain(`${at}.object.namespace.selector: ${side}`);
    expect(syncConfigProblems(own([{ ...secret, object: { selector: { matchLabels: { a: 'b' }, rewrite: { template: '{{ .Value }}' } }, namespace: { path: 'spec.ns' } } }]))).toContain('published[0].related[0].object.namespace: not with selector: a selector finds objects in the primary object\'s namespace');
  });

  it('the workspace side reads the consumer object; the copy gets its own namespace in that field', () => {
    const related: RelatedResource = { identifier: 'conn', origin: 'service', resource: 'secrets', object: { path: 'spec.s', namespace: { path: 'spec.ns', regex: { pattern: '^ns-(.*)$', replacement: '$1' } } } };
    const consumer = { apiVersion: 'db.example.dev/v1', kind: 'Database', metadata: { name: 'd', namespace: 'default' }, spec: { s: 'x', ns: 'ns-team' } } as KubeObject;
    expect(workspaceNamespace(related, consumer)).toEqual({ type: 'named', name: 'team' });
    expect(workspaceNamespace({ ...related, object: { path: 'spec.s' } }, consumer)).toEqual({ type: 'named', name: 'default' });
    expect(workspaceNamespace(related, { ...consumer, spec: { s: 'x' } }).type).toBe('missing');
    expect(workspaceNamespace(related, { ...consumer, spec: { s: 'x', ns: 'ns-Not_A_Label' } }).type).toBe('invalid');
    const published: PublishedResource = { name: 'dbs', crd, related: [related] };
    const db = resource({ group: 'db.example.dev', version: 'v1', plural: 'databases', kind: 'Database', namespaced: true });
    const plan: PublishedPlan = { published, agentName: 'a', service: db, kcp: db, publishedVersions: ['v1'], statusSubresource: true };
    expect(withCopyNamespaces(plan, 'ws-1', consumer, { spec: { s: 'x', ns: 'ns-team' } })).toEqual({ spec: { s: 'x', ns: 'ws-1' } });
    expect(withCopyNamespaces(plan, 'ws-1', { ...consumer, spec: { s: 'x' } }, { spec: { s: 'x' } })).toEqual({ spec: { s: 'x' } });
  });
});
