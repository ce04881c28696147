// Resolving a related resource by discovery (issue 28 item 4): kube-apiserver answers a group version
// it does not serve with 404, kcp with an empty resource list; both are the same "not served".
import { describe, expect, it } from 'vitest';
import type { ClusterClient } from '../../src/client/index.js';
import { kubeError } from '../../src/client/index.js';
import { E } from '../../src/fp/index.js';
import type { KubeError } from '../../src/index.js';
import { clusterName } from '../../src/index.js';
import { discoverResource } from '../../packages/sync-agent/src/related-discovery.js';

const cluster = clusterName('ws');
const answering = (answers: Readonly<Record<string, E.Either<KubeError, unknown>>>): ClusterClient =>
  ({ cluster, raw: (req: { path: string }) => Promise.resolve(answers[req.path] ?? E.left(kubeError('NotFound', cluster, req.path))) }) as unknown as ClusterClient;

describe('discoverResource', () => {
  const gvr = { group: 'nope.example.dev', version: 'v1', resource: 'leases' };
  const missing = { type: 'missing', message: 'group nope.example.dev has no version v1 (leases.v1.nope.example.dev)' };

  it('an unknown group version is not served, whether the server answers 404 (kube-apiserver) or an empty list (kcp)', async () => {
    expect(await discoverResource(answering({}), gvr)).toEqual(missing);
    expect(await discoverResource(answering({ '/apis/nope.example.dev/v1': E.right({ kind: 'APIResourceList', groupVersion: 'nope.example.dev/v1', resources: [] }) }), gvr)).toEqual(missing);
  });

  it('a served group version without the resource names the resource', async () => {
    const doc = E.right({ resources: [{ name: 'widgets', kind: 'Widget', namespaced: true }] });
    expect(await discoverResource(answering({ '/apis/nope.example.dev/v1': doc }), gvr)).toEqual({ type: 'missing', message: 'leases.v1.nope.example.dev is not served' });
    expect(await discoverResource(answering({ '/apis/nope.example.dev/v1': doc }), { ...gvr, resource: 'widgets' })).toMatchObject({ type: 'found', resource: { kind: 'Widget', plural: 'widgets', namespaced: true } });
  });
});
