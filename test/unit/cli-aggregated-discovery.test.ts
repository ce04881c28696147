// Aggregated discovery documents read as the legacy ones are: core group first, then the groups in
// the server's order, each group's versions as served (preferred first), listable resources only
// (subresources are not resources there), and a Stale version reported as failed, left out.
import { describe, expect, it } from 'vitest';
import type { GroupDiscoveryList } from '../../packages/cli/src/aggregated-discovery.js';
import { fromAggregated, isAggregated } from '../../packages/cli/src/aggregated-discovery.js';

const list = (items: NonNullable<GroupDiscoveryList['items']>): GroupDiscoveryList => ({ kind: 'APIGroupDiscoveryList', items });
const res = (resource: string, kind: string, verbs = ['get', 'list', 'watch']) => ({ resource, responseKind: { kind }, scope: 'Namespaced', singularResource: resource.replace(/s$/, ''), verbs });

describe('fromAggregated', () => {
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
