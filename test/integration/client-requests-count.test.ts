// Every request counted where it is sent, on a real kube-apiserver: each call of the client reports
// its verb and result once (reads, watches, every write, a raw request, a 404, a refused write), to
// the transport's own recorder or to the one in effect where the request is made; a closed
// transport counts nothing more.
import { firstValueFrom, take, toArray } from 'rxjs';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ClusterClient, RequestRecorder } from '../../src/client/index.js';
import { countingRequests, createClusterClient } from '../../src/client/index.js';
import { E } from '../../src/fp/index.js';
import { clusterName, configMaps } from '../../src/index.js';
import { sharedKubeApiserver } from '../support/context.js';
import { must } from '../support/wait.js';
import { kubeApiserverAccess, kubeconfigWith } from './providers-support.js';
import { randomName } from './targets.js';

const recorded = (): { readonly record: RequestRecorder; readonly seen: string[] } => {
  const seen: string[] = [];
  return { seen, record: (cluster, verb, result) => seen.push(`${cluster} ${verb} ${result}`) };
};

describe('requests counted by the transport (kube-apiserver)', () => {
  let yaml: string;
  let namespace: string;
  beforeAll(async () => {
    yaml = sharedKubeApiserver().kubeconfigYaml('admin');
    namespace = await sharedKubeApiserver().createNamespace('counted');
  });
  const clientWith = (name: string, requests?: RequestRecorder): ClusterClient => {
    const c = createClusterClient(clusterName(name), { yaml }, requests === undefined ? {} : { requests });
    if (E.isLeft(c)) throw new Error(c.left.message);
    return c.right;
  };

  it("counts each call once, with its verb and its answer's status class", async () => {
    const { record, seen } = recorded();
    const c = clientWith('counted', record);
    const name = randomName('cm');
    const made = must(await c.create(configMaps, { metadata: { name, namespace }, data: { a: '1' } }));
    must(await c.get(configMaps, name, { namespace }));
    must(await c.list(configMaps, { namespace }));
    must(await c.update(configMaps, { ...made, data: { a: '2' } }));
    // A stale update is refused: one request, its 409 counted as 4xx.
    expect(E.isLeft(await c.update(configMaps, { ...made, data: { a: 'stale' } }))).toBe(true);
    must(await c.patch(configMaps, name, { data: { b: '3' } }, { type: 'merge', namespace }));
    must(await c.apply(configMaps, { metadata: { name, namespace }, data: { c: '4' } }, { fieldManager: 'counted', namespace }));
    expect(E.isLeft(await c.get(configMaps, 'missing', { namespace }))).toBe(true);
    must(await c.raw({ method: 'GET', path: '/version' }));
    await firstValueFrom(c.watch(configMaps, { namespace, sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan' }).pipe(take(1), toArray()));
    must(await c.delete(configMaps, name, { namespace }));
    expect(seen).toEqual([
      'counted create 2xx',
      'counted get 2xx',
      'counted list 2xx',
      'counted update 2xx',
      'counted update 4xx',
      'counted patch 2xx',
      'counted apply 2xx',
      'counted get 4xx',
      'counted get 2xx',
      'counted watch 2xx',
      'counted delete 2xx',
    ]);
    c.close();
    expect(E.isLeft(await c.get(configMaps, name, { namespace }))).toBe(true);
    expect(seen).toHaveLength(11);
  });

  it('counts a client made without a recorder where its requests are made, and one made where a recorder is in effect there', async () => {
    const outside = clientWith('outside');
    const { record, seen } = recorded();
    // Not counted: no recorder in effect, none of its own.
    must(await outside.list(configMaps, { namespace }));
    const inside = await countingRequests(record, async () => {
      must(await outside.list(configMaps, { namespace }));
      return clientWith('inside');
    });
    // Made where the recorder was in effect: counted by it wherever its requests are made.
    must(await inside.list(configMaps, { namespace }));
    expect(seen).toEqual(['outside list 2xx', 'inside list 2xx']);
    outside.close();
    inside.close();
  });

  it('counts a request no answer came to by why', async () => {
    const { record, seen } = recorded();
    const access = kubeApiserverAccess();
    const dead = createClusterClient(clusterName('dead'), { yaml: kubeconfigWith('https://127.0.0.1:1', access.caData, { token: access.token }) }, { requests: record });
    if (E.isLeft(dead)) throw new Error(dead.left.message);
    expect(E.isLeft(await dead.right.get(configMaps, 'x', { namespace }))).toBe(true);
    expect(seen).toEqual(['dead get ClusterUnreachable']);
    dead.right.close();
  });
});
