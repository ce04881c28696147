// The pure parts of `rxfleet get`: the provider spec grammar, resource names, AGE, the table and
// the List with each item's cluster.
import { load } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { parseProviderSpec, providerFromSpecs } from '../../packages/cli/src/provider-spec.js';
import { resolveResource } from '../../packages/cli/src/resource-name.js';
import { age, errorTable, objectList, objectTable } from '../../packages/cli/src/get-output.js';
import type { ClusterListing } from '../../packages/cli/src/fleet-list.js';
import { E } from '../../src/fp/index.js';
import { clusterName, configMaps, namespaces } from '../../src/index.js';
import { kubeError } from '../../src/core/errors.js';

describe('provider specs', () => {
  it('parse the documented forms', () => {
    expect(parseProviderSpec('file:/a,/b')).toEqual({ type: 'file', paths: ['/a', '/b'] });
    expect(parseProviderSpec('/etc/fleet')).toEqual({ type: 'file', paths: ['/etc/fleet'] });
    expect(parseProviderSpec('kubeconfig:/k')).toEqual({ type: 'kubeconfig', file: '/k' });
    expect(parseProviderSpec('kubeconfig:/k,hub')).toEqual({ type: 'kubeconfig', file: '/k', context: 'hub' });
    expect(parseProviderSpec('apiexport:widgets,/p.kubeconfig')).toEqual({ type: 'apiexport', exportName: 'widgets', kubeconfig: '/p.kubeconfig' });
  });

  it('refuse malformed ones, naming the grammar', () => {
    expect(() => parseProviderSpec('apiexport:widgets')).toThrow(/apiexport needs the export name and the kubeconfig; expected file:<path>/);
    expect(() => parseProviderSpec('kubeconfig:/k,a,b')).toThrow(/wrong number of parts/);
    expect(() => parseProviderSpec('file:')).toThrow(/no path/);
    expect(() => providerFromSpecs([])).toThrow(/no --provider given/);
    expect(providerFromSpecs(['file:/a', 'kubeconfig:/k']).count).toBe(2);
  });
});

describe('resource names', () => {
  it('resolve built-in plurals, plural.group and group/version/plural', () => {
    expect(resolveResource('configmaps', false)).toBe(configMaps);
    expect(resolveResource('deployments', false)).toMatchObject({ group: 'apps', version: 'v1', kind: 'Deployment', namespaced: true });
    expect(resolveResource('leases.coordination.k8s.io', false)).toMatchObject({ group: 'coordination.k8s.io', plural: 'leases' });
    expect(resolveResource('example.com/v1/widgets', true)).toMatchObject({ group: 'example.com', version: 'v1', plural: 'widgets', namespaced: true });
    expect(resolveResource('v1/pods', false)).toMatchObject({ group: '', version: 'v1', plural: 'pods', namespaced: false });
  });

  it('refuse unknown names', () => {
    expect(() => resolveResource('wigdets', false)).toThrow(/unknown resource "wigdets": give a built-in plural/);
  });
});

describe('output', () => {
  const now = Date.parse('2026-11-23T12:00:00Z');
  const cm = (name: string, namespace: string, createdAgoS: number) => ({
    metadata: { name, namespace, creationTimestamp: new Date(now - createdAgoS * 1000).toISOString() },
  });
  const listings: ClusterListing[] = [
    { cluster: clusterName('west'), result: E.right([cm('b', 'default', 30)]) },
    { cluster: clusterName('east'), result: E.right([cm('a', 'kube-system', 3 * 86_400), cm('a', 'default', 3_700)]) },
    { cluster: clusterName('down'), result: E.left(kubeError('ClusterUnreachable', clusterName('down'), 'connect ECONNREFUSED 127.0.0.1:1')) },
  ];

  it('says AGE as kubectl does', () => {
    expect([5, 119, 150, 600, 3_700, 30_000, 90_000, 3 * 86_400].map((s) => age(now - s * 1000, now))).toEqual(['5s', '119s', '2m30s', '10m', '61m', '8h', '25h', '3d']);
    expect(age(Number.NaN, now)).toBe('<unknown>');
  });

  it('prints a table with a CLUSTER column, sorted, and the failed clusters apart', () => {
    expect(objectTable(listings, configMaps, now)).toBe(
      ['CLUSTER   NAMESPACE     NAME   AGE', 'east      default       a      61m', 'east      kube-system   a      3d', 'west      default       b      30s', ''].join('\n'),
    );
    expect(objectTable([{ cluster: clusterName('east'), result: E.right([{ metadata: { name: 'ns1' } }]) }], namespaces, now)).toBe('CLUSTER   NAME   AGE\neast      ns1    <unknown>\n');
    expect(objectTable([], configMaps, now)).toBe('No resources found.\n');
    expect(errorTable(listings)).toMatch(/^CLUSTER {3}ERROR\ndown {6}ClusterUnreachable: cluster "down": connect ECONNREFUSED 127.0.0.1:1\n$/);
  });

  it('prints one List whose items carry their cluster, kind and apiVersion', () => {
    const json = JSON.parse(objectList(listings, configMaps, 'json')) as { kind: string; items: { kind: string; apiVersion: string; metadata: { annotations: Record<string, string> } }[] };
    expect(json.kind).toBe('List');
    expect(json.items.map((i) => [i.apiVersion, i.kind, i.metadata.annotations['rxfleet.dev/cluster']])).toEqual([
      ['v1', 'ConfigMap', 'west'],
      ['v1', 'ConfigMap', 'east'],
      ['v1', 'ConfigMap', 'east'],
    ]);
    expect(load(objectList(listings, configMaps, 'yaml'))).toEqual(json);
  });
});
