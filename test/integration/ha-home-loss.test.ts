// Losing the home cluster (the one holding the Leases) must fence a leader, not leave it writing
// blind: a replica that cannot renew stops writing at its renew deadline and disengages its
// clusters, and leads again once the home cluster answers. Here the home cluster is a private
// kube-apiserver frozen with SIGSTOP (it holds its sockets and answers nothing), the fleet a
// namespace of the shared kube-apiserver, which stays up the whole time.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { pino } from 'pino';
import type { Subscription } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClusterClient } from '../../src/client/index.js';
import type { ClusterClient } from '../../src/client/index.js';
import { E } from '../../src/fp/index.js';
import type { Cluster, ConfigMap, RunHandle } from '../../src/index.js';
import { clusterName, configMaps, controller, done, namespaces, run, toAction } from '../../src/index.js';
import { namespaceProvider } from '../../src/providers/namespaces/index.js';
import type { ReplicaState } from '../../src/runtime/index.js';
import { apply } from '../../src/sinks/index.js';
import { sharedKubeApiserver } from '../support/context.js';
import type { KubeApiserverHandle } from '../support/kube-apiserver.js';
import { startKubeApiserver } from '../support/kube-apiserver.js';
import { eventually, must } from '../support/wait.js';

const timing = { leaseDurationMs: 3_000, renewDeadlineMs: 2_000, retryPeriodMs: 500 };
const tag = randomBytes(3).toString('hex');

function clientOf(name: string, yaml: string): ClusterClient {
  const made = createClusterClient(clusterName(name), { yaml });
  if (E.isLeft(made)) throw new Error(made.left.message);
  return made.right;
}

describe('leader election when the home cluster is lost', () => {
  let home: KubeApiserverHandle;
  let homeCluster: Cluster;
  let fleetClient: ClusterClient;
  /** Requests the replica sent to the home cluster (its Lease calls): the replica's own clock. */
  let homeCalls = 0;
  const ns = `home-loss-${tag}`;

  beforeAll(async () => {
    home = await startKubeApiserver();
    const homeClient = clientOf('home', readFileSync(home.kubeconfigPath('admin'), 'utf8'));
    homeCluster = {
      name: clusterName('home'),
      client: {
        ...homeClient,
        raw: (req) => {
          homeCalls += 1;
          return homeClient.raw(req);
        },
      },
    };
    must(await homeCluster.client.create(namespaces, { metadata: { name: 'rxfleet-system' } }), 'lease namespace');
    fleetClient = clientOf('hub', sharedKubeApiserver().kubeconfigYaml('admin'));
    must(await fleetClient.create(namespaces, { metadata: { name: ns, labels: { [`home-loss-${tag}`]: 'true' } } }), 'tenant namespace');
  }, 120_000);

  afterAll(async () => {
    // resume() throws when the server is not running (it died): stop() must run all the same.
    try {
      home.resume();
    } finally {
      await home.stop();
    }
    await fleetClient.delete(namespaces, ns);
  });

  it('fences the leader while the home cluster does not answer: its clusters leave and nothing is written; it leads again when the home cluster returns', async () => {
    const hub: Cluster = { name: clusterName('hub'), client: fleetClient };
    const copier = controller<ConfigMap>({
      name: `home-loss-${tag}`,
      provider: namespaceProvider({ management: hub, labelSelector: `home-loss-${tag}=true` }),
      resource: configMaps,
      select: { labelSelector: 'role=input' },
      reconcile: (req, ctx) =>
        req.object === undefined
          ? done()
          : apply(ctx.sinks, { cluster: req.cluster, resource: configMaps, object: { metadata: { name: 'out', namespace: ns }, data: { ...req.object.data } } }).pipe(toAction()),
    });
    const states: string[] = [];
    const handle: RunHandle = await run(copier, {
      logger: pino({ level: 'silent' }),
      http: false,
      signals: false,
      replicas: { type: 'leader-election', home: homeCluster, namespace: 'rxfleet-system', timing },
    });
    let sub: Subscription | undefined;
    try {
      sub = handle.replica?.states.subscribe((s: ReplicaState) => states.push(s.type));
      const output = async (): Promise<string | undefined> => {
        const got = await fleetClient.get(configMaps, 'out', { namespace: ns });
        return E.isRight(got) ? got.right.data?.v : undefined;
      };
      must(await fleetClient.create(configMaps, { metadata: { name: 'in', namespace: ns, labels: { role: 'input' } }, data: { v: '1' } }), 'input');
      await eventually('the leader copies the input', async () => ((await output()) === '1' ? true : undefined), { timeoutMs: 30_000 });
      expect(states).toContain('leading');
      // A client a reconciler kept from ctx.fleet while leading: its writes are fenced too.
      const kept = handle.fleet.clusters()[0];
      expect(kept).toBeDefined();

      await home.pause();
      await eventually('the leader is fenced', () => (states.at(-1) === 'fenced' ? true : undefined), { timeoutMs: 10_000 });
      expect(handle.fleet.clusters()).toEqual([]); // its clusters are disengaged: nothing reconciles
      const direct = await kept?.client.apply(configMaps, { metadata: { name: 'out', namespace: ns }, data: { v: 'direct' } }, { fieldManager: 'direct', force: true });
      expect(direct !== undefined && E.isLeft(direct) && direct.left.type).toBe('Fenced');
      must(await fleetClient.patch(configMaps, 'in', { data: { v: '2' } }, { type: 'merge', namespace: ns }), 'input change');
      // Four more Lease attempts while fenced (each begins once the one before has failed): four
      // turns of its loop in which it could have led again and written; none may have landed.
      const callsAtChange = homeCalls;
      await eventually('four more Lease attempts', () => homeCalls >= callsAtChange + 5, { timeoutMs: 60_000 });
      expect(await output()).toBe('1');
      expect(handle.health.report().replica?.type).toBe('fenced');

      home.resume();
      await eventually('the replica leads again', () => (states.at(-1) === 'leading' ? true : undefined), { timeoutMs: 30_000 });
      await eventually('the change made while fenced is copied', async () => ((await output()) === '2' ? true : undefined), { timeoutMs: 30_000 });
      // A standby between fenced and leading is allowed (it may find its own old Lease still fresh).
      expect(states.slice(states.indexOf('fenced'))).toContain('leading');
    } finally {
      sub?.unsubscribe();
      await handle.stop();
    }
  }, 120_000);
});
