// Warm take-over, as separate OS processes: two replicas of examples/ha under leader election,
// both with warm caches (WARM_CACHES). The standby keeps every cluster's watch listed (its gauge
// says so), and still neither reconciles nor writes while it stands by: the inputs change, the
// leader writes every output, and the standby logged no reconcile and wrote nothing (server
// audit). Killed with -9, the leader is replaced by the standby, which then writes every output.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClusterClient } from '../../src/client/index.js';
import type { ConfigMap } from '../../src/index.js';
import { configMaps } from '../../src/index.js';
import { sharedKubeApiserver } from '../support/context.js';
import type { ServerRecord } from '../support/replica-audit.js';
import { ownersNow, recordOnServer } from '../support/replica-audit.js';
import type { ReplicaBuild } from '../support/replica-build.js';
import { buildReplicaExample } from '../support/replica-build.js';
import type { ReplicaProcess } from '../support/replica-process.js';
import { metricOf, startReplica, states, stopAll, tails } from '../support/replica-process.js';
import type { Tenants } from '../support/replica-tenants.js';
import { createTenants, putInputs } from '../support/replica-tenants.js';
import { eventually } from '../support/wait.js';
import { clientFrom } from './runtime-support.js';

const TIMING = { leaseDurationMs: 4_000, renewDeadlineMs: 3_000, retryPeriodMs: 500 };
const CLUSTERS = 6;
const WRITTEN_BY = 'rxfleet.io/written-by';

let build: ReplicaBuild | undefined;
let client: ClusterClient;
let tenants: Tenants;
let leaseNamespace: string;
let outputs: ServerRecord<ConfigMap> | undefined;
const replicas: ReplicaProcess[] = [];

function launch(identity: string): ReplicaProcess {
  if (build === undefined) throw new Error('examples/ha was not built');
  const r = startReplica(build, { identity, mode: 'leader', kubeconfigPath: sharedKubeApiserver().kubeconfigPath('admin'), leaseNamespace, leaseName: 'ha-warm', tenantSelector: tenants.selector, timing: TIMING, warmCaches: CLUSTERS, logLevel: 'debug' });
  replicas.push(r);
  return r;
}

/** Per cluster, the writers of its outputs since `since` (test clock). */
function writersSince(since: number): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const e of outputs?.events() ?? []) {
    if (e.type === 'LISTED' || e.seenAt < since) continue;
    const ns = e.object.metadata.namespace ?? '';
    out.set(ns, (out.get(ns) ?? new Set()).add(e.object.metadata.annotations?.[WRITTEN_BY] ?? ''));
  }
  return out;
}

beforeAll(async () => {
  client = clientFrom('server', sharedKubeApiserver().kubeconfigYaml('admin'));
  const built = buildReplicaExample();
  leaseNamespace = await sharedKubeApiserver().createNamespace('ha-warm-lease');
  tenants = await createTenants(client, CLUSTERS, 'ha-warm');
  await putInputs(client, tenants.names, 'settings', 0);
  outputs = recordOnServer<ConfigMap>(client, configMaps, { labelSelector: 'rxfleet.io/ha-role=output' });
  await outputs.ready;
  build = await built;
});

afterAll(async () => {
  await stopAll(replicas);
  outputs?.stop();
  build?.remove();
});

describe('a warm standby (leader election, separate processes)', () => {
  it('keeps every cluster listed but neither reconciles nor writes until it leads, then takes every cluster over', async () => {
    const leader = launch('warm-a');
    await eventually('warm-a leading every cluster', () => states(leader).some((s) => s.type === 'leading') && ownersNow([leader]).size === CLUSTERS, { timeoutMs: 30_000, context: () => tails([leader], 20) });
    const standby = launch('warm-b');
    const warm = { kept: -1, synced: -1 };
    await eventually(
      'warm-b standing by with every cluster warm',
      async () => {
        warm.kept = (await metricOf(standby, 'rxfleet_replica_warm_clusters', 'state="kept"')) ?? -1;
        warm.synced = (await metricOf(standby, 'rxfleet_replica_warm_clusters', 'state="synced"')) ?? -1;
        return states(standby).at(-1)?.type === 'standby' && warm.synced === CLUSTERS;
      },
      { timeoutMs: 30_000, context: () => `warm clusters: ${JSON.stringify(warm)}\n${tails([standby], 20)}` },
    );

    // While it stands by, every input changes; the leader writes every output (the sentinel).
    const since = Date.now();
    await putInputs(client, tenants.names, 'settings', 1);
    await eventually('the leader wrote every changed output', () => tenants.names.every((n) => writersSince(since).get(n)?.has('warm-a')), { timeoutMs: 30_000, context: () => tails([leader], 20) });
    expect([...writersSince(0).values()].flatMap((w) => [...w]).filter((w) => w !== 'warm-a')).toEqual([]);
    expect(standby.lines().filter((l) => l.msg === 'reconciled' || l.msg === 'reconcile failed' || l.msg === 'cluster engaged').map((l) => l.msg)).toEqual([]);
    expect(await metricOf(standby, 'rxfleet_replica_owned_clusters')).toBe(0);

    const killedAt = leader.signal('SIGKILL');
    await leader.exited;
    await eventually('warm-b wrote every output after taking over', () => tenants.names.every((n) => writersSince(killedAt).get(n)?.has('warm-b')), { timeoutMs: 30_000, context: () => tails([standby], 20) });
    expect(states(standby).some((s) => s.type === 'leading')).toBe(true);
  });
});
