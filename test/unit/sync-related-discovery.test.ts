// Resolving a related resource by discovery (issue 28 item 4), through rxfleet's one discovery
// reader (`servedResources`): kube-apiserver answers a group version it does not serve with 404,
// kcp with an empty resource list; both are the same "not served". Read once per side, the preferred
// version is the group's first, and a status subresource is seen in either form of discovery.
import { describe, expect, it } from 'vitest';
import type { ClusterClient } from '../../src/client/index.js';
import { kubeError } from '../../src/client/index.js';
import { E } from '../../src/fp/index.js';
import type { KubeError } from '../../src/index.js';
import { clusterName } from '../../src/index.js';
import { discoverResource, servedOn } from '../../packages/sync-agent/src/related-discovery.js';

const cluster = clusterName('ws');
const answering = (answers: Readonly<Record<string, E.Either<KubeError, unknown>>>, asked: string[] = []): ClusterClient =>
  ({
    cluster,
    raw: (req: { path: string }) => {
      asked.push(req.path);
      return Promise.resolve(answers[req.path] ?? E.left(kubeError('NotFound', cluster, req.path)));
    },
  }) as unknown as ClusterClient;
// The legacy documents: /api an APIVersions, /apis an APIGroupList.
const legacy = (groups: readonly { name: string; versions: readonly string[] }[], docs: Readonly<Record<string, unknown>>): Record<string, E.Either<KubeError, unknown>> => ({
  '/api': E.right({ kind: 'APIVersions', versions: ['v1'] }),
  '/apis': E.right({ kind: 'APIGroupList', groups: groups.map((g) => ({ name: g.name, versions: g.versions.map((version) => ({ version })), preferredVersion: { version: g.versions[0] } })) }),
  '/api/v1': E.right({ resources: [{ name: 'secrets', kind: 'Secret', namespaced: true, verbs: ['get', 'list'] }] }),
  ...Object.fromEntries(Object.entries(docs).map(([k, v]) => [k, E.right(v)])),
});

describe('discoverResource', () => {
  const gvr = { group: 'nope.example.dev', version: 'v1', resource: 'leases' };
  const missing = { type: 'missing', message: 'group nope.example.dev has no version v1 (leases.v1.nope.example.dev)' };

  it('an unknown group version is not served, whether the server answers 404 (kube-apiserver) or an empty list (kcp)', async () => {
    expect(discoverResource(await servedOn(answering(legacy([], {}))), gvr)).toEqual(missing);
    const kcpLike = legacy([{ name: 'nope.example.dev', versions: ['v1'] }], { '/apis/nope.example.dev/v1': { kind: 'APIResourceList', groupVersion: 'nope.example.dev/v1', resources: [] } });
    expect(discoverResource(await servedOn(answering(kcpLike)), gvr)).toEqual(missing);
  });

  it('a served group version without the resource names the resource; the preferred version is the group\'s first', async () => {
    const asked: string[] = [];
    const served = await servedOn(
      answering(
        legacy([{ name: 'nope.example.dev', versions: ['v2', 'v1'] }], {
          '/apis/nope.example.dev/v1': { resources: [{ name: 'widgets', kind: 'Widget', namespaced: true, verbs: ['list'] }] },
          '/apis/nope.example.dev/v2': { resources: [{ name: 'widgets', kind: 'Widget', namespaced: true, verbs: ['list'] }, { name: 'widgets/status', kind: 'Widget', namespaced: true, verbs: ['get', 'patch'] }] },
        }),
        asked,
      ),
    );
    expect(discoverResource(served, gvr)).toEqual({ type: 'missing', message: 'leases.v1.nope.example.dev is not served' });
    expect(discoverResource(served, { ...gvr, resource: 'widgets' })).toMatchObject({ type: 'found', resource: { kind: 'Widget', plural: 'widgets', namespaced: true, version: 'v1' }, statusSubresource: false });
    expect(discoverResource(served, { group: 'nope.example.dev', resource: 'widgets' })).toMatchObject({ type: 'found', resource: { version: 'v2' }, statusSubresource: true });
    expect(discoverResource(served, { group: '', version: 'v1', resource: 'secrets' })).toMatchObject({ type: 'found', resource: { kind: 'Secret' } });
    // One reading of the cluster answers every entry.
    expect(asked.filter((p) => p === '/apis').length).toBe(1);
  });

  it('reads a status subresource from aggregated discovery too, in two requests', async () => {
    const asked: string[] = [];
    const aggregated = (items: unknown[]): E.Either<KubeError, unknown> => E.right({ kind: 'APIGroupDiscoveryList', items });
    const served = await servedOn(
      answering(
        {
          '/api': aggregated([{ metadata: { name: '' }, versions: [{ version: 'v1', resources: [{ resource: 'secrets', responseKind: { kind: 'Secret' }, scope: 'Namespaced', verbs: ['list'] }] }] }]),
          '/apis': aggregated([{ metadata: { name: 'coordination.k8s.io' }, versions: [{ version: 'v1', resources: [{ resource: 'leases', responseKind: { kind: 'Lease' }, scope: 'Namespaced', verbs: ['list'], subresources: [{ subresource: 'status' }] }] }] }]),
        },
        asked,
      ),
    );
    expect(discoverResource(served, { group: 'coordination.k8s.io', resource: 'leases' })).toMatchObject({ type: 'found', resource: { kind: 'Lease', version: 'v1' }, statusSubresource: true });
    expect(discoverResource(served, { group: '', version: 'v1', resource: 'secrets' })).toMatchObject({ type: 'found', statusSubresource: false });
    expect(asked).toEqual(['/api', '/apis']);
  });
});
