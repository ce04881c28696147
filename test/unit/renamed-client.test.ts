// A client answers under the name of the cluster the fleet knows: a cluster renamed by withPrefix,
// and a namespace-cluster calling through the hub's client. Its `cluster` and every error its calls
// or watches give name that cluster (the runtime labels a failure's logs and metric series with the
// error's cluster, and forgets series by fleet name), while requests and answers pass unchanged.
import { firstValueFrom, of } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { kubeError } from '../../src/client/index.js';
import { E } from '../../src/fp/index.js';
import type { ConfigMap, KubeError } from '../../src/index.js';
import { clusterName, configMaps } from '../../src/index.js';
import { withPrefix } from '../../src/providers/multi/index.js';
import { scopedClient } from '../../src/providers/namespaces/scoped-client.js';
import type { Cluster } from '../../src/streams/index.js';
import { engaged } from '../../src/streams/index.js';
import { fakeCluster, stubClient } from '../../src/testing/index.js';

const east = clusterName('east');

/** The cluster `withPrefix('prod#', …)` engages for `cluster`. */
async function renamed(cluster: Cluster): Promise<Cluster> {
  const ev = await firstValueFrom(withPrefix('prod#', of(engaged(cluster))));
  if (ev.type !== 'engaged') throw new Error(`expected engaged, got ${ev.type}`);
  return ev.cluster;
}

const leftOf = <T>(r: E.Either<KubeError, T>): KubeError => {
  if (E.isRight(r)) throw new Error('expected an error');
  return r.left;
};

describe('a client renamed with its cluster', () => {
  it('names the new cluster in every call’s error, message included', async () => {
    const { client } = await renamed(fakeCluster('east'));
    expect(client.cluster).toBe('prod#east');
    const cm: ConfigMap = { metadata: { name: 'a', namespace: 'default' } };
    const errors = [
      leftOf(await client.get(configMaps, 'a', { namespace: 'default' })),
      leftOf(await client.list(configMaps)),
      leftOf(await client.listAll(configMaps)),
      leftOf(await client.create(configMaps, cm)),
      leftOf(await client.update(configMaps, cm)),
      leftOf(await client.apply(configMaps, cm, { fieldManager: 'test' })),
      leftOf(await client.patch(configMaps, 'a', {}, { type: 'merge', namespace: 'default' })),
      leftOf(await client.delete(configMaps, 'a', { namespace: 'default' })),
      leftOf(await client.raw({ method: 'GET', path: '/api' })),
    ];
    for (const e of errors) {
      expect(e.cluster).toBe('prod#east');
      expect(e.message).toMatch(/^cluster "prod#east": stub client: \w+ is not stubbed in this test$/);
    }
    const watchError: unknown = await firstValueFrom(client.watch(configMaps)).catch((e: unknown) => e);
    expect(watchError).toMatchObject({ type: 'NotEngaged', cluster: 'prod#east' });
  });

  it('passes requests and answers through, and leaves an error about another cluster as it was', async () => {
    const hub = clusterName('hub');
    const fromHub = kubeError('Forbidden', hub, 'no', { code: 403 });
    const asked: string[] = [];
    const cm: ConfigMap = { metadata: { name: 'a', namespace: 'default', resourceVersion: '7' } };
    const { client } = await renamed(
      fakeCluster('east', undefined, {
        get: (_r, name, opts) => (asked.push(`get ${opts?.namespace ?? ''}/${name}`), Promise.resolve(E.right(cm) as never)),
        list: () => Promise.resolve(E.left(fromHub)),
        patch: () => Promise.resolve(E.left(kubeError('Conflict', east, 'stale', { code: 409, request: 'PATCH /x' }))),
      }),
    );
    expect(await client.get(configMaps, 'a', { namespace: 'default' })).toEqual(E.right(cm));
    expect(asked).toEqual(['get default/a']);
    expect(leftOf(await client.list(configMaps))).toBe(fromHub);
    // Every field kept; the name replaced where kubeError wrote it.
    expect(leftOf(await client.patch(configMaps, 'a', {}, { type: 'merge' }))).toEqual(kubeError('Conflict', clusterName('prod#east'), 'stale', { code: 409, request: 'PATCH /x' }));
  });
});

describe("a namespace-cluster's client", () => {
  it('names the namespace-cluster in the errors of the hub client it calls through', async () => {
    const teamA = clusterName('team-a');
    const client = scopedClient(stubClient(clusterName('hub'), { get: () => Promise.resolve(E.left(kubeError('NotFound', clusterName('hub'), 'configmaps "a" not found', { code: 404 }))) }), teamA, 'team-a');
    expect(leftOf(await client.get(configMaps, 'a'))).toEqual(kubeError('NotFound', teamA, 'configmaps "a" not found', { code: 404 }));
    // Inside multiProvider, the same error names the prefixed name.
    const { client: renamedTeamA } = await renamed({ name: teamA, client });
    expect(leftOf(await renamedTeamA.get(configMaps, 'a'))).toMatchObject({ cluster: 'prod#team-a', message: 'cluster "prod#team-a" → 404: configmaps "a" not found' });
  });
});
