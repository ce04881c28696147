// Ownership on every access path (multicluster-runtime's issue #172), as separate OS processes: a
// sharding replica that ran every cluster alone kept, for each, the Cluster ctx.fleet gave it, its
// client, an informer handle with a subscription held open, and its Event recorder. A second
// replica joins and takes its rendezvous share. The first then uses everything it kept: for the
// clusters that moved, ctx.fleet and the informer serve nothing (the held subscription has ended),
// and the kept Cluster's client, the kept client and the Event recorder are refused with `Fenced`,
// naming the cluster and saying this replica does not own it; for the clusters it still owns,
// every path serves (the sentinel that the probe itself works).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClusterClient } from '../../src/client/index.js';
import { rendezvousAssignments } from '../../src/runtime/ha/rendezvous.js';
import { sharedKubeApiserver } from '../support/context.js';
import { ownersNow } from '../support/replica-audit.js';
import type { ReplicaBuild } from '../support/replica-build.js';
import { buildReplicaExample } from '../support/replica-build.js';
import type { LogLine, ReplicaProcess } from '../support/replica-process.js';
import { startReplica, states, stopAll, tails } from '../support/replica-process.js';
import type { Tenants } from '../support/replica-tenants.js';
import { createTenants, putInput, putInputs } from '../support/replica-tenants.js';
import { eventually } from '../support/wait.js';
import { clientFrom } from './runtime-support.js';

const TIMING = { leaseDurationMs: 4_000, renewDeadlineMs: 3_000, retryPeriodMs: 500 };
const CLUSTERS = 8;
const PATHS = ['fleet', 'fleet-cluster', 'client', 'informer', 'recorder'] as const;

let build: ReplicaBuild | undefined;
let client: ClusterClient;
let tenants: Tenants;
let leaseNamespace: string;
const replicas: ReplicaProcess[] = [];

function launch(identity: string): ReplicaProcess {
  if (build === undefined) throw new Error('the probe was not built');
  const r = startReplica(build, { identity, mode: 'shard', kubeconfigPath: sharedKubeApiserver().kubeconfigPath('admin'), leaseNamespace, leaseName: 'ownership-probe', tenantSelector: tenants.selector, timing: TIMING });
  replicas.push(r);
  return r;
}

beforeAll(async () => {
  client = clientFrom('server', sharedKubeApiserver().kubeconfigYaml('admin'));
  const built = buildReplicaExample('test/fixtures/ownership');
  leaseNamespace = await sharedKubeApiserver().createNamespace('ha-own-lease');
  tenants = await createTenants(client, CLUSTERS, 'ha-own');
  await putInputs(client, tenants.names, 'keep', 0);
  build = await built;
});

afterAll(async () => {
  await stopAll(replicas);
  build?.remove();
});

describe('ownership on every access path of a sharding replica (separate processes)', () => {
  it('refuses or serves nothing, on every path, for the clusters that moved to another replica, handles kept from before included', async () => {
    const a = launch('own-a');
    await eventually('own-a alone kept every cluster', () => tenants.names.every((n) => a.lines().some((l) => l.msg === 'kept' && l.cluster === n)), { timeoutMs: 60_000, context: () => tails([a], 20) });

    const expected = rendezvousAssignments(['own-a', 'own-b'].map((identity) => ({ identity, weight: 1 })), tenants.names);
    const moved = tenants.names.filter((n) => expected.get(n) === 'own-b');
    const stayed = tenants.names.filter((n) => expected.get(n) === 'own-a');
    // Fixed names and identities: the split is known, and has clusters on both sides.
    expect(moved.length).toBeGreaterThan(0);
    expect(stayed.length).toBeGreaterThan(0);

    const b = launch('own-b');
    await eventually(
      'both replicas confirmed on their rendezvous shares',
      () => {
        const confirmed = [a, b].every((r) => {
          const s = states(r).at(-1);
          return s?.type === 'sharing' && s.confirmed !== false && s.members?.length === 2;
        });
        const owners = ownersNow([a, b]);
        return confirmed && tenants.names.every((n) => owners.get(n)?.join() === expected.get(n));
      },
      { timeoutMs: 30_000, context: () => tails([a, b], 20) },
    );

    const since = Date.now();
    const [probeIn = ''] = stayed;
    await putInput(client, probeIn, 'probe', 1);
    const probes = await eventually(
      'own-a probed every cluster it kept',
      () => (a.lines().some((l) => l.msg === 'probe done' && l.time >= since) ? a.lines().filter((l) => l.msg === 'probe' && l.time >= since) : undefined),
      { timeoutMs: 30_000, context: () => tails([a], 30) },
    );
    const probe = (cluster: string, path: string): LogLine => {
      const line = probes.find((l) => l.probed === cluster && l.path === path);
      if (line === undefined) throw new Error(`no ${path} probe of ${cluster}:\n${tails([a], 30)}`);
      return line;
    };

    // The sentinel: every path serves the clusters own-a still owns.
    for (const n of stayed) for (const path of PATHS) expect([n, path, probe(n, path).outcome, probe(n, path).error]).toEqual([n, path, 'served', undefined]);
    for (const n of stayed) expect([n, probe(n, 'informer').heldEnded]).toEqual([n, false]);

    // Requests are refused, naming the cluster and saying this replica does not own it.
    const refusal = (n: string, path: string): string => {
      const line = probe(n, path);
      if (line.outcome !== 'refused') return String(line.outcome);
      const error = String(line.error);
      const clear = error.includes(`cluster "${n}"`) && error.includes('replica own-a') && error.includes('this replica does not own');
      return `refused ${String(line.type)}${clear ? ', naming the cluster and that this replica does not own it' : `: ${error}`}`;
    };
    const refused = 'refused Fenced, naming the cluster and that this replica does not own it';
    const seen = moved.map((n) => {
      const informer = probe(n, 'informer');
      return {
        cluster: n,
        // Lookups serve nothing: the fleet view, the informer handle's store and a new subscription;
        // the subscription held since own-a owned the cluster ended when it moved.
        fleet: probe(n, 'fleet').outcome,
        informer: { outcome: informer.outcome, cached: informer.cached, replayed: informer.replayed, heldEnded: informer.heldEnded },
        fleetCluster: refusal(n, 'fleet-cluster'),
        client: refusal(n, 'client'),
        recorder: refusal(n, 'recorder'),
      };
    });
    expect(seen).toEqual(moved.map((n) => ({ cluster: n, fleet: 'nothing', informer: { outcome: 'nothing', cached: false, replayed: 0, heldEnded: true }, fleetCluster: refused, client: refused, recorder: refused })));
  });
});
