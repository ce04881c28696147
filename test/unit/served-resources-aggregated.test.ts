// Aggregated discovery documents read as the legacy ones are: core group first, then the groups in
// the server's order, each group's versions as served (preferred first), listable resources only
// (subresources are not resources there, but listed on theirs), and a Stale version reported as
// failed, left out.
import { describe, expect, it } from 'vitest';
import type { GroupDiscoveryList } from '../../src/client/served-resources-aggregated.js';
import { fromAggregated, isAggregated } from '../../src/client/served-resources-aggregated.js';
import type { ClusterClient } from '../../src/client/index.js';
import { kubeError, servedResources } from '../../src/client/index.js';
import { E } from '../../src/fp/index.js';
import { clusterName } from '../../src/index.js';

const list = (items: NonNullable<GroupDiscoveryList['items']>): GroupDiscoveryList => ({ kind: 'APIGroupDiscoveryList', items });
const res = (resource: string, kind: string, verbs = ['get', 'list', 'watch']) => ({ resource, responseKind: { kind }, scope: 'Namespaced', singularResource: resource.replace(/s$/, ''), verbs });

describe('servedResources: aggregated discovery', () => {
  it('orders core first, then groups and versions as served, and keeps only listable resources', () => {
    const core = list([{ metadata: { name: '' }, versions: [{ version: 'v1', resources: [res('configmaps', 'ConfigMap'), res('bindings', 'Binding', ['create'])] }] }]);
    const apis = list([
      { metadata: { name: 'autoscaling' }, versions: [{ version: 'v2', resources: [res('horizontalpodautoscalers', 'HorizontalPodAutoscaler')] }, { version: 'v1', resources: [res('horizontalpodautoscalers', 'HorizontalPodAutoscaler')] }] },
      { metadata: { name: 'apps' }, versions: [{ version: 'v1', resources: [{ ...res('deployments', 'Deployment'), shortNames: ['deploy'] }] }] },
    ]);
    const served = fromAggregated(core, apis);
    expect(served.failed).toEqual([]);
    expect(served.resources.map((r) => `${r.group}/${r.version}/${r.plural}`)).toEqual(['/v1/configmaps', 'autoscaling/v2/horizontalpodautoscalers', 'autoscaling/v1/horizontalpodautoscalers', 'apps/v1/deployments']);
    expect(served.resources[3]).toEqual({ group: 'apps', version: 'v1', plural: 'deployments', singular: 'deployment', kind: 'Deployment', namespaced: true, shortNames: ['deploy'] });
  });

  it('lists a resource\'s subresources on it, as the legacy documents do', async () => {
    const apis = list([{ metadata: { name: 'apps' }, versions: [{ version: 'v1', resources: [{ ...res('deployments', 'Deployment'), subresources: [{ subresource: 'status' }, { subresource: 'scale' }] }] }] }]);
    expect(fromAggregated(undefined, apis).resources[0]?.subresources).toEqual(['status', 'scale']);
    const cluster = clusterName('c');
    const legacyClient = {
      cluster,
      raw: (req: { path: string }) =>
        Promise.resolve(
          ({
            '/apis': E.right({ kind: 'APIGroupList', groups: [{ name: 'apps', versions: [{ version: 'v1' }], preferredVersion: { version: 'v1' } }] }),
            '/apis/apps/v1': E.right({ resources: [{ name: 'deployments', kind: 'Deployment', namespaced: true, verbs: ['list'] }, { name: 'deployments/status', kind: 'Deployment', verbs: ['get'] }, { name: 'deployments/scale', kind: 'Scale', verbs: ['get'] }] }),
          } as Record<string, unknown>)[req.path] ?? E.left(kubeError('NotFound', cluster, req.path)),
        ),
    } as unknown as ClusterClient;
    const served = await servedResources(legacyClient, { timeoutMs: 1_000 });
    expect(E.isRight(served) ? served.right.resources.map((r) => [r.plural, r.subresources]) : served.left.message).toEqual([['deployments', ['status', 'scale']]]);
  });

  it('reports a Stale version as failed and leaves it out; a server without /api has no core group', () => {
    const apis = list([{ metadata: { name: 'metrics.k8s.io' }, versions: [{ version: 'v1beta1', freshness: 'Stale', resources: [res('pods', 'PodMetrics')] }] }]);
    const served = fromAggregated(undefined, apis);
    expect(served.resources).toEqual([]);
    expect(served.failed).toEqual(['metrics.k8s.io/v1beta1: its discovery is stale (the aggregated API did not answer)']);
  });

  it('tells an aggregated document from a legacy one', () => {
    expect(isAggregated(list([]))).toBe(true);
    expect(isAggregated({ kind: 'APIGroupList' })).toBe(false);
    expect(isAggregated(undefined)).toBe(false);
  });
});
