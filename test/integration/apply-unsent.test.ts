// Applies that send nothing, on a real kube-apiserver: a controller that watches its outputs
// converges, is restarted over the converged objects and sends no apply at all (its metrics count
// every write request its sinks send, and each write left unsent); then another field manager takes
// a field, a field drifts, a field is removed, and each time the controller sends its apply again.
import { beforeAll, describe, expect, it } from 'vitest';
import type { ClusterClient } from '../../src/client/index.js';
import { E } from '../../src/fp/index.js';
import type { Cluster, ConfigMap } from '../../src/index.js';
import { configMaps, controller, done, objectKey, toAction } from '../../src/index.js';
import { mapToKeys } from '../../src/operators/index.js';
import { apply } from '../../src/sinks/index.js';
import { staticProvider } from '../../src/streams/index.js';
import { kubeApiserverCluster, randomName } from './runtime-support.js';
import type { CountedRun } from './counted-runs.js';
import { counter, countedRuns, unsentAfterRestart } from './counted-runs.js';
import { eventually, must } from '../support/wait.js';

const N = 20;
const counted = countedRuns();

describe('apply sends nothing when the cache proves nothing would change (kube-apiserver)', () => {
  let cluster: Cluster;
  let client: ClusterClient;
  let namespace: string;
  beforeAll(async () => {
    ({ cluster, namespace } = await kubeApiserverCluster());
    client = cluster.client;
    for (let i = 0; i < N; i++) {
      must(await client.create(configMaps, { metadata: { name: `in-${i}`, namespace, labels: { role: 'in' } }, data: { k: `v${i}`, other: 'x' } }, { namespace }));
    }
  });

  const start = (): Promise<CountedRun> =>
    counted(controller({
      name: randomName('unsent'),
      fieldManager: 'rxfleet-unsent-test',
      provider: staticProvider([cluster]),
      resource: configMaps,
      select: { namespace, labelSelector: 'role=in' },
      // The outputs are watched, and each change to one reconciles its input: what corrects drift.
      inputs: ({ fleetWatch }) => [fleetWatch(configMaps, { namespace, labelSelector: 'role=out' }).pipe(mapToKeys(configMaps, (ev) => [objectKey(ev.key.cluster, ev.key.namespace, ev.key.name.replace(/-out$/, ''))]))],
      reconcile: (req, ctx) => {
        const x = req.object;
        if (x === undefined) return done();
        const out = { metadata: { name: `${req.key.name}-out`, namespace, labels: { role: 'out' }, annotations: { source: req.key.name } }, data: x.data ?? {} };
        return apply(ctx.sinks, { cluster: req.cluster, resource: configMaps, object: out }).pipe(toAction());
      },
    }));
  const output = async (i: number): Promise<ConfigMap> => must(await client.get(configMaps, `in-${i}-out`, { namespace }));
  const applies = (m: string): number => counter(m, 'rxfleet_write_requests_total', ['verb="apply"']);
  const unsent = (m: string): number => counter(m, 'rxfleet_writes_unsent_total', ['verb="apply"']);

  it('sends no apply after a restart over converged objects, and sends again when another manager took a field or a field drifted', async () => {
    const first = await start();
    await eventually('every output to be written', async () => {
      for (let i = 0; i < N; i++) {
        const got = await client.get(configMaps, `in-${i}-out`, { namespace });
        if (E.isLeft(got) || got.right.data?.k !== `v${i}`) return false;
      }
      return true;
    });
    await eventually('the first run to have sent an apply per output', async () => applies(await first.metrics()) >= N);
    await first.handle.stop();
    const versions = await Promise.all(Array.from({ length: N }, async (_, i) => (await output(i)).metadata.resourceVersion));

    // The restart: every input is reconciled (each one counted as an unsent apply), none is sent.
    const { run: second, metrics: afterRestart } = await unsentAfterRestart(start, N, 'input');
    // No apply sent, and every input decided unsent at least once: an input whose output's list event
    // arrives after its first reconcile ended is reconciled again (level-triggered), and proves
    // unsent again, so the count is N or a little more, never fewer.
    expect(applies(afterRestart)).toBe(0);
    expect(unsent(afterRestart)).toBeGreaterThanOrEqual(N);
    expect(await Promise.all(Array.from({ length: N }, async (_, i) => (await output(i)).metadata.resourceVersion))).toEqual(versions);

    // Another manager takes a field, by force: the controller's entry no longer owns it.
    must(await client.apply(configMaps, { metadata: { name: 'in-3-out', namespace }, data: { k: 'theirs' } }, { fieldManager: 'intruder', force: true, namespace }));
    await eventually('the taken field to be applied back', async () => (await output(3)).data?.k === 'v3');
    // A field drifts through an update by someone else.
    const five = await output(5);
    must(await client.update(configMaps, { ...five, data: { ...five.data, other: 'drifted' } }, { namespace, fieldManager: 'editor' }));
    await eventually('the drifted field to be applied back', async () => (await output(5)).data?.other === 'x');
    // A field this controller owns is removed.
    const seven = await output(7);
    must(await client.update(configMaps, { ...seven, metadata: { ...seven.metadata, annotations: {} } }, { namespace, fieldManager: 'editor' }));
    await eventually('the removed field to be applied back', async () => (await output(7)).metadata.annotations?.source === 'in-7');

    const end = await second.metrics();
    // One apply per repair (the events of its own writes come back proven, unsent).
    expect(applies(end)).toBe(3);
  });
});
