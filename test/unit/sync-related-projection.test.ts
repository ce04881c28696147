// A related resource's projection (issue 28 item 4, `related[].projection`): read in both
// configuration forms, applied on the destination side only, and each side's resource chosen by the
// side a cluster is on.
import { describe, expect, it } from 'vitest';
import { clusterName, resource, secrets } from '../../src/index.js';
import { parseSyncConfig, syncConfigProblems } from '../../packages/sync-agent/src/config.js';
import { relatedClaims } from '../../packages/sync-agent/src/export-merge.js';
import type { PublishedPlan } from '../../packages/sync-agent/src/plan.js';
import { projectedGvr, relatedOn, relatedResource } from '../../packages/sync-agent/src/related-gvr.js';
import type { RelatedResource } from '../../packages/sync-agent/src/types.js';

const crd = { group: 'db.example.dev', kind: 'Database' };
const own = (related: Record<string, unknown>): unknown => ({ apiExport: 'x.example.dev', published: [{ name: 'db', crd, related: [{ identifier: 'w', origin: 'kcp', object: { path: 'spec.w' }, ...related }] }] });
const tokens = resource({ group: 'tokens.example.dev', version: 'v1', plural: 'tokens', kind: 'Token', namespaced: true });
const leases = resource({ group: 'coordination.k8s.io', version: 'v1', plural: 'leases', kind: 'Lease', namespaced: true });

describe('related[].projection', () => {
  it('is read in both forms; an empty field is not projected', () => {
    const projection = { group: 'tokens.example.dev', resource: 'tokens' };
    expect(parseSyncConfig(own({ group: 'coordination.k8s.io', resource: 'leases', projection })).published[0]?.related?.[0]?.projection).toEqual(projection);
    const pr = { apiVersion: 'syncagent.kcp.io/v1alpha1', kind: 'PublishedResource', metadata: { name: 'p' }, spec: { resource: { apiGroup: 'db.example.dev', kind: 'Database', versions: ['v1'] }, related: [{ identifier: 'w', origin: 'kcp', kind: 'ConfigMap', projection: { ...projection, version: '' }, object: { reference: { path: 'spec.w' } } }] } };
    expect(parseSyncConfig({ apiExport: 'x.example.dev', published: [pr] }).published[0]?.related?.[0]).toEqual({ identifier: 'w', origin: 'kcp', kind: 'ConfigMap', projection, object: { path: 'spec.w' } });
  });

  it('refuses unknown fields and names that are not names, at their path', () => {
    expect(syncConfigProblems(own({ resource: 'leases', projection: { kind: 'Token', resource: 'Tokens' } }))).toEqual([
      'published[0].related[0].projection.kind: unknown field; expected one of group, version, resource',
      'published[0].related[0].projection.resource: "Tokens" must be lowercase letters, digits and "-", starting with a letter and ending with a letter or digit',
    ]);
  });

  it('replaces the origin side\'s group, version and resource on the destination side only', () => {
    const r: RelatedResource = { identifier: 'lock', origin: 'kcp', group: 'coordination.k8s.io', resource: 'leases', projection: { group: 'tokens.example.dev', resource: 'tokens' }, object: { path: 'spec.lock' } };
    expect(projectedGvr(r, 'v1')).toEqual({ group: 'tokens.example.dev', version: 'v1', resource: 'tokens' });
    const plan: PublishedPlan = { published: { name: 'db', crd, related: [r] }, agentName: 'a', service: tokens, kcp: tokens, publishedVersions: ['v1'], statusSubresource: true, related: { lock: leases }, relatedProjected: { lock: tokens } };
    expect(relatedResource(plan, r)).toBe(leases);
    expect(relatedResource(plan, r, 'kcp')).toBe(leases);
    expect(relatedResource(plan, r, 'service')).toBe(tokens);
    expect(relatedOn(plan, r, clusterName('service'))).toBe(tokens);
    expect(relatedOn(plan, r, clusterName('ws-a'))).toBe(leases);
    // The claim is for what consumers hold: the kcp side's resource.
    expect(relatedClaims([plan])).toEqual([{ group: 'coordination.k8s.io', resource: 'leases', verbs: ['*'] }]);
    // Without preflight only the core shorthand resolves, and never with a projection.
    const bare: PublishedPlan = { published: plan.published, agentName: 'a', service: tokens, kcp: tokens, publishedVersions: ['v1'], statusSubresource: true };
    expect(relatedResource(bare, { identifier: 's', origin: 'kcp', kind: 'Secret', object: { path: 'spec.s' } })).toBe(secrets);
    expect(() => relatedResource(bare, { identifier: 's', origin: 'kcp', kind: 'Secret', projection: { resource: 'configmaps' }, object: { path: 'spec.s' } })).toThrow(/was not resolved by preflight/);
  });
});
