// Applies that send nothing through the namespaces provider's shared cache, on a real
// kube-apiserver: a controller of ConfigMaps in tenant namespaces (read through the provider's one
// cluster-wide watch, split by namespace) labels each one, is restarted over the converged objects
// and sends no apply, as counted where requests are sent (rxfleet_requests_total): the run asks
// the shared cache to keep its own Apply entries, with no provider option (examples/ha relies on it).
import { beforeAll, describe, expect, it } from 'vitest';
import type { Cluster } from '../../src/index.js';
import { configMaps, controller, done, namespaces as namespaceResource, toAction } from '../../src/index.js';
import { namespaceProvider } from '../../src/providers/namespaces/index.js';
import { apply } from '../../src/sinks/index.js';
import { sharedKubeApiserver } from '../support/context.js';
import { eventually, must } from '../support/wait.js';
import { clusterFrom, randomName } from './runtime-support.js';
import type { CountedRun } from './counted-runs.js';
import { counter, countedRuns, unsentAfterRestart } from './counted-runs.js';

const TENANTS = 3;
const PER_TENANT = 3;
const counted = countedRuns();

describe("apply sends nothing through the namespaces provider's shared cache when nothing would change", () => {
  let hub: Cluster;
  const label = randomName('t');
  const tenants: string[] = [];
  beforeAll(async () => {
    hub = clusterFrom('hub', sharedKubeApiserver().kubeconfigYaml('admin'));
    for (let t = 0; t < TENANTS; t++) {
      const ns = `${label}-${t}`;
      tenants.push(ns);
      must(await hub.client.create(namespaceResource, { metadata: { name: ns, labels: { tenant: label } } }));
      for (let i = 0; i < PER_TENANT; i++) must(await hub.client.create(configMaps, { metadata: { name: `cm-${i}`, namespace: ns, labels: { role: 'in' } }, data: { i: String(i) } }));
    }
  });
  const N = TENANTS * PER_TENANT;

  const start = (): Promise<CountedRun> =>
    counted(controller({
      name: 'tenants-unsent',
      fieldManager: 'rxfleet-ns-unsent-test',
      provider: namespaceProvider({ management: hub, labelSelector: `tenant=${label}` }),
      resource: configMaps,
      select: { labelSelector: 'role=in' },
      reconcile: (req, ctx) => {
        if (req.object === undefined) return done();
        const object = { metadata: { name: req.key.name, namespace: req.key.namespace, labels: { 'example.dev/seen': 'yes' } } };
        return apply(ctx.sinks, { cluster: req.cluster, resource: configMaps, object }).pipe(toAction());
      },
    }));

  it('sends no apply after a restart over the converged namespaces', async () => {
    const first = await start();
    await eventually('every ConfigMap labelled', async () => {
      for (const ns of tenants) {
        const list = must(await hub.client.list(configMaps, { namespace: ns, labelSelector: 'role=in' }));
        if (list.items.length !== PER_TENANT || list.items.some((cm) => cm.metadata.labels?.['example.dev/seen'] !== 'yes')) return false;
      }
      return true;
    });
    await eventually('the first run to have sent an apply per ConfigMap', async () => counter(await first.metrics(), 'rxfleet_requests_total', ['verb="apply"', 'result="2xx"']) >= N);
    await first.handle.stop();

    const { metrics: after } = await unsentAfterRestart(start, N, 'ConfigMap');
    expect(counter(after, 'rxfleet_requests_total', ['verb="apply"'])).toBe(0);
  });
});
