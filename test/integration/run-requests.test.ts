// Every request a run sends, in its rxfleet_requests_total (by verb) and
// rxfleet_cluster_requests_total (by cluster), on a real kube-apiserver: its leader
// election's Lease requests, its provider's reads of kubeconfig Secrets (through a management
// client made before the run), its watches of each engaged cluster; and a cluster's series go when
// it leaves, so that clusters coming and going leave no series behind.
import { pino } from 'pino';
import { filter, firstValueFrom } from 'rxjs';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Cluster, RunHandle, Secret } from '../../src/index.js';
import { configMaps, controller, done, run, secrets } from '../../src/index.js';
import { kubeconfigSecretLabel, kubeconfigSecretProvider } from '../../src/providers/kubeconfig-secrets/index.js';
import { sharedKubeApiserver } from '../support/context.js';
import { eventually, must } from '../support/wait.js';
import { b64, kubeApiserverAccess, kubeconfigWith } from './providers-support.js';
import { clusterFrom, httpGet, randomName } from './runtime-support.js';

const timing = { leaseDurationMs: 4_000, renewDeadlineMs: 3_000, retryPeriodMs: 500 };
const handles: RunHandle[] = [];
afterEach(async () => {
  await Promise.all(handles.splice(0).map((h) => h.stop({ deadlineMs: 0 })));
});

/** The value of a label in one sample line. */
const label = (line: string, k: string): string => new RegExp(`[{,]${k}="([^"]*)"`).exec(line)?.[1] ?? '?';

/** The `rxfleet_cluster_requests_total` series of a /metrics text, as `cluster result`. */
const clusterSeries = (text: string): string[] =>
  text
    .split('\n')
    .filter((l) => l.startsWith('rxfleet_cluster_requests_total{'))
    .map((l) => `${label(l, 'cluster')} ${label(l, 'result')}`);

/** The `rxfleet_requests_total` series of a /metrics text (every cluster), as `verb result`. */
const verbSeries = (text: string): string[] =>
  text
    .split('\n')
    .filter((l) => l.startsWith('rxfleet_requests_total{'))
    .map((l) => `${label(l, 'verb')} ${label(l, 'result')}`);

describe("a run's requests (kube-apiserver)", () => {
  let hub: Cluster;
  let home: Cluster;
  let ns: string;
  let kubeconfig: string;
  beforeAll(async () => {
    const yaml = sharedKubeApiserver().kubeconfigYaml('admin');
    hub = clusterFrom('hub', yaml);
    home = clusterFrom('home', yaml);
    ns = await sharedKubeApiserver().createNamespace('requests');
    const access = kubeApiserverAccess();
    kubeconfig = b64(kubeconfigWith(access.server, access.caData, { token: access.token }));
  });
  const secret = (name: string): Secret => ({ metadata: { name, namespace: ns, labels: { [kubeconfigSecretLabel]: 'true' } }, data: { kubeconfig } });

  it('counts its Lease, provider and watch requests, and forgets the series of each cluster that left', async () => {
    for (const name of ['stays-a', 'stays-b']) must(await hub.client.create(secrets, secret(name)));
    const c = controller({
      name: randomName('requests'),
      provider: kubeconfigSecretProvider({ management: hub, namespace: ns }),
      resource: configMaps,
      select: { namespace: ns },
      reconcile: () => done(),
    });
    const handle = await run(c, { logger: pino({ level: 'silent' }), signals: false, http: { port: 0 }, replicas: { type: 'leader-election', home, namespace: ns, timing } });
    handles.push(handle);
    const url = handle.url ?? '';
    const scrape = async (): Promise<string> => (await httpGet(`${url}/metrics`)).body;
    const series = async (): Promise<string[]> => clusterSeries(await scrape());
    const has = (all: readonly string[], cluster: string): boolean => all.includes(`${cluster} 2xx`);

    let last = '';
    await eventually('Lease, Secret and watch requests in /metrics', async () => {
      const text = await scrape();
      last = [...clusterSeries(text), ...verbSeries(text)].join(', ');
      const all = clusterSeries(text);
      const verbs = verbSeries(text);
      // The Lease on the home cluster (read: 404 at first; then created and renewed: the only
      // writes of a run whose reconciler writes nothing), the Secrets through the management
      // client, each engaged cluster's watch through its own client.
      const lease = verbs.some((v) => v.startsWith('get ')) && verbs.includes('create 2xx') && verbs.includes('update 2xx');
      // (A watch lists too: its initial events, where the server streams them.)
      const reads = verbs.includes('list 2xx') || verbs.includes('watch 2xx');
      return lease && reads && all.some((x) => x.startsWith('home ')) && ['hub', 'stays-a', 'stays-b'].every((n) => has(all, n)) ? true : undefined;
    }, { timeoutMs: 30_000, context: () => `served: ${last}` });

    // Clusters come and go: each one's series are there while it is engaged, gone once it left.
    for (let round = 0; round < 3; round++) {
      const names = [`round-${round}-a`, `round-${round}-b`];
      for (const name of names) must(await hub.client.create(secrets, secret(name)));
      await eventually(`round ${round}: its clusters' requests counted`, async () => {
        const all = await series();
        return names.every((n) => has(all, n)) ? true : undefined;
      }, { timeoutMs: 30_000 });
      for (const name of names) must(await hub.client.delete(secrets, name, { namespace: ns }));
      await eventually(`round ${round}: its clusters' series gone`, async () => {
        const all = await series();
        return handle.fleet.clusters().length === 2 && !all.some((s) => names.some((n) => s.startsWith(`${n} `))) ? true : undefined;
      }, { timeoutMs: 30_000 });
    }
    const clusters = new Set((await series()).map((s) => s.split(' ')[0]));
    expect([...clusters].sort()).toEqual(['home', 'hub', 'stays-a', 'stays-b']);
  });

  it("counts its Lease's release when stopped from outside the run (a sharding member's delete)", async () => {
    const c = controller({ name: randomName('release'), provider: kubeconfigSecretProvider({ management: hub, namespace: ns }), resource: configMaps, select: { namespace: ns }, reconcile: () => done() });
    const leases = await sharedKubeApiserver().createNamespace('release');
    const handle = await run(c, { logger: pino({ level: 'silent' }), signals: false, http: false, replicas: { type: 'sharding', home, namespace: leases, timing } });
    const states = handle.replica?.states;
    if (states === undefined) throw new Error('a sharding run has a replica');
    await firstValueFrom(states.pipe(filter((st) => st.type === 'sharing' && st.confirmed)));
    const deletes = async (): Promise<string[]> => verbSeries(await handle.metrics.registry.metrics()).filter((v) => v.startsWith('delete '));
    // (Its start may send a delete that is refused, 4xx; none succeeds before the release.)
    expect(await deletes()).not.toContain('delete 2xx');
    // Stopped here, where no recorder is in effect: the release deletes the member's own Lease once
    // released, through the home client made outside the run.
    await handle.stop();
    expect(await deletes()).toContain('delete 2xx');
  });
});
