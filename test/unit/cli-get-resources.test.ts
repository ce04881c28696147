// `rxfleet get <resource>` resolved as kubectl resolves it, against a cluster's discovery: plural,
// singular, short name, kind, with a group or a version and group, or group/version/plural; and
// for an unknown name, the nearest served names by edit distance.
import { describe, expect, it } from 'vitest';
import { editDistance, nearest } from '../../packages/cli/src/did-you-mean.js';
import type { ServedResource, ServedResources } from '../../src/client/index.js';
import { parseResourceName, resolveServed } from '../../packages/cli/src/resource-name.js';
import { E } from '../../src/fp/index.js';

const r = (group: string, version: string, plural: string, kind: string, namespaced: boolean, shortNames: readonly string[] = []): ServedResource => ({
  group,
  version,
  plural,
  singular: kind.toLowerCase(),
  kind,
  namespaced,
  shortNames,
});

// In discovery's order: core first, each group's preferred version first.
const served: ServedResources = {
  resources: [
    r('', 'v1', 'configmaps', 'ConfigMap', true, ['cm']),
    r('', 'v1', 'events', 'Event', true, ['ev']),
    r('', 'v1', 'namespaces', 'Namespace', false, ['ns']),
    r('apps', 'v1', 'deployments', 'Deployment', true, ['deploy']),
    r('events.k8s.io', 'v1', 'events', 'Event', true, ['ev']),
    r('coordination.k8s.io', 'v1', 'leases', 'Lease', true),
    r('ops.example.com', 'v1', 'backups', 'Backup', true, ['bk']),
    r('ops.example.com', 'v1alpha1', 'backups', 'Backup', true, ['bk']),
    r('ops.example.com', 'v1', 'schedules', 'Schedule', false),
  ],
  failed: [],
};

function resolved(text: string): string {
  const got = resolveServed(parseResourceName(text), served);
  return E.isLeft(got) ? `error: ${got.left}` : `${got.right.group}/${got.right.version}/${got.right.plural} ${got.right.kind}${got.right.namespaced ? ' namespaced' : ''}`;
}

describe('resource names', () => {
  it('are checked for form before any cluster is asked', () => {
    expect(parseResourceName('apps/v1/deployments')).toEqual({ type: 'path', group: 'apps', version: 'v1', plural: 'deployments' });
    expect(parseResourceName('v1/pods')).toEqual({ type: 'path', group: '', version: 'v1', plural: 'pods' });
    expect(parseResourceName('/v1/pods')).toEqual({ type: 'path', group: '', version: 'v1', plural: 'pods' });
    expect(parseResourceName('Backups.ops.example.com')).toEqual({ type: 'name', text: 'backups.ops.example.com' });
    for (const bad of ['a/b/c/d', 'apps/deployments', 'apps/v1/Deployments', '', 'two words']) expect(() => parseResourceName(bad)).toThrow(/expected a name kubectl takes/);
  });

  it('resolve by plural, singular, short name and kind, with a group or a version and group', () => {
    expect(resolved('configmaps')).toBe('/v1/configmaps ConfigMap namespaced');
    expect(resolved('cm')).toBe('/v1/configmaps ConfigMap namespaced');
    expect(resolved('configmap')).toBe('/v1/configmaps ConfigMap namespaced');
    expect(resolved('ConfigMap')).toBe('/v1/configmaps ConfigMap namespaced');
    expect(resolved('ns')).toBe('/v1/namespaces Namespace');
    expect(resolved('deploy')).toBe('apps/v1/deployments Deployment namespaced');
    expect(resolved('deployments.apps')).toBe('apps/v1/deployments Deployment namespaced');
    expect(resolved('deployments.v1.apps')).toBe('apps/v1/deployments Deployment namespaced');
    expect(resolved('backups.ops.example.com')).toBe('ops.example.com/v1/backups Backup namespaced');
    expect(resolved('backup.ops.example.com')).toBe('ops.example.com/v1/backups Backup namespaced');
    expect(resolved('Backup.ops.example.com')).toBe('ops.example.com/v1/backups Backup namespaced');
    expect(resolved('backups')).toBe('ops.example.com/v1/backups Backup namespaced');
    expect(resolved('bk')).toBe('ops.example.com/v1/backups Backup namespaced');
    expect(resolved('backups.v1alpha1.ops.example.com')).toBe('ops.example.com/v1alpha1/backups Backup namespaced');
    expect(resolved('ops.example.com/v1alpha1/backups')).toBe('ops.example.com/v1alpha1/backups Backup namespaced');
    expect(resolved('schedules.ops.example.com')).toBe('ops.example.com/v1/schedules Schedule');
  });

  it('prefer the core group, then discovery order, as kubectl does', () => {
    expect(resolved('events')).toBe('/v1/events Event namespaced');
    expect(resolved('events.events.k8s.io')).toBe('events.k8s.io/v1/events Event namespaced');
  });

  it('unknown, say so with the nearest served names', () => {
    expect(resolved('bakcups.ops.example.com')).toBe('error: the server has no resource "bakcups.ops.example.com"; did you mean "backups.ops.example.com"?');
    expect(resolved('confgimaps')).toBe('error: the server has no resource "confgimaps"; did you mean "configmaps"?');
    expect(resolved('ops.example.com/v2/backups')).toBe('error: the server has no resource "ops.example.com/v2/backups"; did you mean "backups.ops.example.com"?');
    expect(resolved('wigdets')).toBe('error: the server has no resource "wigdets" (kubectl api-resources lists what it serves)');
    const partial = resolveServed(parseResourceName('metrics'), { ...served, failed: ['metrics.k8s.io/v1beta1: cluster "east" → 503: service unavailable'] });
    expect(partial).toEqual(E.left('the server has no resource "metrics" (kubectl api-resources lists what it serves). Discovery failed for metrics.k8s.io/v1beta1: cluster "east" → 503: service unavailable'));
  });
});

describe('did you mean', () => {
  it('measures edits and keeps only the nearest names, if near', () => {
    expect(editDistance('bakcups', 'backups')).toBe(2);
    expect(editDistance('', 'abc')).toBe(3);
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(nearest('deploymnet', ['daemonsets', 'deployments', 'deployment'])).toEqual(['deployment']);
    expect(nearest('leass', ['leases', 'lease', 'pods'])).toEqual(['leases', 'lease']);
    expect(nearest('pods', ['pods'])).toEqual([]);
    expect(nearest('xyz', ['configmaps'])).toEqual([]);
  });
});
