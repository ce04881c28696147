// The parts of `rxfleet get` that need no server: the provider spec grammar, the names of the
// clusters it gives, the end of a merged first discovery pass, AGE, the table and the List with
// each item's cluster.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { parseProviderSpec, providerFromSpecs } from '../../packages/cli/src/provider-spec.js';
import { parseResourceName } from '../../packages/cli/src/resource-name.js';
import { age, errorTable, objectList, objectTable } from '../../packages/cli/src/get-output.js';
import type { ClusterListing } from '../../packages/cli/src/fleet-list.js';
import { listAcrossFleet } from '../../packages/cli/src/fleet-list.js';
import { E } from '../../src/fp/index.js';
import type { Provider } from '../../src/index.js';
import { clusterName, configMaps, namespaces } from '../../src/index.js';
import { kubeError } from '../../src/core/errors.js';

describe('provider specs', () => {
  it('parse the documented forms', () => {
    expect(parseProviderSpec('file:/a,/b')).toEqual({ type: 'file', paths: ['/a', '/b'] });
    expect(parseProviderSpec('/etc/fleet')).toEqual({ type: 'file', paths: ['/etc/fleet'] });
    expect(parseProviderSpec('kubeconfig:/k')).toEqual({ type: 'kubeconfig', file: '/k' });
    expect(parseProviderSpec('kubeconfig:/k,hub')).toEqual({ type: 'kubeconfig', file: '/k', context: 'hub' });
    expect(parseProviderSpec('apiexport:widgets,/p.kubeconfig')).toEqual({ type: 'apiexport', exportName: 'widgets', kubeconfig: '/p.kubeconfig' });
    expect(parseProviderSpec('hub=kubeconfig:/k,admin')).toEqual({ type: 'kubeconfig', file: '/k', context: 'admin', name: 'hub' });
    expect(parseProviderSpec('edge=/etc/edge')).toEqual({ type: 'file', paths: ['/etc/edge'], name: 'edge' });
  });

  it('refuse malformed ones, naming the grammar', () => {
    expect(() => parseProviderSpec('apiexport:widgets')).toThrow(/apiexport needs the export name and the kubeconfig; expected \[<name>=\]file:<path>/);
    expect(() => parseProviderSpec('kubeconfig:/k,a,b')).toThrow(/wrong number of parts/);
    expect(() => parseProviderSpec('file:')).toThrow(/no path/);
    expect(() => providerFromSpecs([])).toThrow(/no --provider given/);
  });
});

// A kubeconfig of contexts on a server nobody listens on (port 1): engaged without contact.
function kubeconfig(path: string, contexts: readonly string[]): string {
  const yaml = `apiVersion: v1
kind: Config
clusters: [{ name: c, cluster: { server: 'https://127.0.0.1:1' } }]
users: [{ name: u, user: { token: t } }]
contexts: [${contexts.map((c) => `{ name: ${c}, context: { cluster: c, user: u } }`).join(', ')}]
current-context: ${contexts[0] ?? ''}
`;
  writeFileSync(path, yaml, { mode: 0o600 });
  return path;
}

const dir = mkdtempSync(join(tmpdir(), 'rxfleet-cli-get-'));
const east = kubeconfig(join(dir, 'east.yaml'), ['prod', 'dev']);
const west = kubeconfig(join(dir, 'west.yaml'), ['west']);
mkdirSync(join(dir, 'other'));
const otherEast = kubeconfig(join(dir, 'other', 'east.yaml'), ['prod']);
mkdirSync(join(dir, 'fleet'));
kubeconfig(join(dir, 'fleet', 'a.kubeconfig'), ['a']);

// The names of the clusters engaged when the provider says its first pass is done.
function namesAtFirstPass(provider: Provider): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const names: string[] = [];
    const sub = provider.subscribe({
      next: (ev) => {
        if (ev.type === 'engaged') names.push(ev.cluster.name);
        if (ev.type === 'report' && ev.report.type === 'discovered') {
          queueMicrotask(() => {
            sub.unsubscribe();
          });
          resolve(names.sort());
        }
      },
      error: reject,
    });
  });
}

describe('cluster names', () => {
  it('say where each cluster came from: the kubeconfig file and context, the spec, its own name', async () => {
    expect(await namesAtFirstPass(providerFromSpecs([`kubeconfig:${east}`]))).toEqual(['east.yaml#prod']);
    expect(await namesAtFirstPass(providerFromSpecs([`kubeconfig:${east},dev`, `kubeconfig:${west}`, `kubeconfig:${east},prod`]))).toEqual([
      'east.yaml#dev',
      'east.yaml#prod',
      'west.yaml#west',
    ]);
    expect(await namesAtFirstPass(providerFromSpecs([`file:${join(dir, 'fleet')}`]))).toEqual(['a']);
    expect(await namesAtFirstPass(providerFromSpecs([`file:${join(dir, 'fleet')}`, `hub=kubeconfig:${east},dev`]))).toEqual(['fleet#a', 'hub#dev']);
    expect(await namesAtFirstPass(providerFromSpecs([`edge=file:${join(dir, 'fleet')}`]))).toEqual(['edge#a']);
  });

  it('are unique: two specs that would give one name are refused, saying how to tell them apart', () => {
    expect(() => providerFromSpecs([`kubeconfig:${east}`, `kubeconfig:${otherEast}`])).toThrow(/both give the cluster "east\.yaml#prod"; name one of them: <name>=kubeconfig:/);
    expect(() => providerFromSpecs([`file:${east}`, `kubeconfig:${west}`, `kubeconfig:${otherEast},dev`])).toThrow(/both give clusters named "east\.yaml#…"/);
  });

  it('end the first pass at multi’s one report, not one per provider', async () => {
    const provider = providerFromSpecs([`kubeconfig:${east}`, `kubeconfig:${west}`, `file:${join(dir, 'fleet')}`]);
    const found = await listAcrossFleet(provider, parseResourceName('configmaps'), { timeoutMs: 60_000 });
    expect(found.timedOut).toBe(false);
    expect(found.listings.map((l) => [l.cluster, E.isLeft(l.result) ? l.result.left.type : 'listed'])).toEqual([
      ['east.yaml#prod', 'ClusterUnreachable'],
      ['fleet#a', 'ClusterUnreachable'],
      ['west.yaml#west', 'ClusterUnreachable'],
    ]);
  });
});

interface Item {
  readonly kind: string;
  readonly apiVersion: string;
  readonly metadata: { readonly annotations: Record<string, string>; readonly managedFields?: unknown };
}

describe('output', () => {
  const now = Date.parse('2026-11-23T12:00:00Z');
  const cm = (name: string, namespace: string, createdAgoS: number) => ({
    metadata: { name, namespace, creationTimestamp: new Date(now - createdAgoS * 1000).toISOString(), managedFields: [{ manager: 'kubectl', operation: 'Apply' }] },
  });
  const listings: ClusterListing[] = [
    { cluster: clusterName('west'), result: E.right([cm('b', 'default', 30)]), resource: configMaps },
    { cluster: clusterName('east'), result: E.right([cm('a', 'kube-system', 3 * 86_400), cm('a', 'default', 3_700)]), resource: configMaps },
    { cluster: clusterName('down'), result: E.left(kubeError('ClusterUnreachable', clusterName('down'), 'connect ECONNREFUSED 127.0.0.1:1')) },
  ];

  it('says AGE as kubectl does', () => {
    expect([5, 119, 150, 600, 3_700, 30_000, 90_000, 3 * 86_400].map((s) => age(now - s * 1000, now))).toEqual(['5s', '119s', '2m30s', '10m', '61m', '8h', '25h', '3d']);
    expect(age(Number.NaN, now)).toBe('<unknown>');
  });

  it('prints a table with a CLUSTER column, sorted, and the failed clusters apart', () => {
    expect(objectTable(listings, now)).toBe(
      ['CLUSTER   NAMESPACE     NAME   AGE', 'east      default       a      61m', 'east      kube-system   a      3d', 'west      default       b      30s', ''].join('\n'),
    );
    expect(objectTable([{ cluster: clusterName('east'), result: E.right([{ metadata: { name: 'ns1' } }]), resource: namespaces }], now)).toBe('CLUSTER   NAME   AGE\neast      ns1    <unknown>\n');
    expect(objectTable([], now)).toBe('No resources found.\n');
    expect(errorTable(listings)).toMatch(/^CLUSTER {3}ERROR\ndown {6}ClusterUnreachable: cluster "down": connect ECONNREFUSED 127.0.0.1:1\n$/);
  });

  it('prints one List whose items carry their cluster, kind and apiVersion, without managedFields unless asked', () => {
    const json = JSON.parse(objectList(listings, 'json')) as { kind: string; items: Item[] };
    expect(json.kind).toBe('List');
    expect(json.items.map((i) => [i.apiVersion, i.kind, i.metadata.annotations['rxfleet.dev/cluster'], i.metadata.managedFields])).toEqual([
      ['v1', 'ConfigMap', 'west', undefined],
      ['v1', 'ConfigMap', 'east', undefined],
      ['v1', 'ConfigMap', 'east', undefined],
    ]);
    expect(load(objectList(listings, 'yaml'))).toEqual(json);
    const shown = load(objectList(listings, 'yaml', true)) as { items: Item[] };
    expect(shown.items.map((i) => i.metadata.managedFields)).toEqual(listings.flatMap((l) => (E.isRight(l.result) ? l.result.right.map((o) => o.metadata.managedFields) : [])));
  });
});
