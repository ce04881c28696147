// A leader whose event loop is busy keeps its Lease, as separate OS processes: once it leads, the
// busy replica (test/fixtures/busy) blocks its loop 1.2 s at a time, back to back, leaving one
// turn of the loop between blocks; a second replica stands by. A renew sent before a block is
// answered during it, but Node runs the timers that fell due before it reads the sockets: the
// keeper read that answer as a timeout (0.5 s here), every renew failed, the leader was fenced
// and the standby took over. Now a timeout or a renew deadline is decided only once the answers
// already there have been read: the busy leader renews every two blocks (2.4 s, within its 3 s
// renew deadline), is never fenced, and the standby never leads. Lease 4 s, renew 3 s, retry 0.5 s.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sharedKubeApiserver } from '../support/context.js';
import type { LeaseObject } from '../support/replica-audit.js';
import { leaseResource, recordOnServer } from '../support/replica-audit.js';
import type { ReplicaBuild } from '../support/replica-build.js';
import { buildReplicaExample } from '../support/replica-build.js';
import type { ReplicaProcess } from '../support/replica-process.js';
import { startReplica, states, stopAll, tails } from '../support/replica-process.js';
import { createTenants, putInputs, randomGroup } from '../support/replica-tenants.js';
import { eventually } from '../support/wait.js';
import { clientFrom } from './runtime-support.js';

const TIMING = { leaseDurationMs: 4_000, renewDeadlineMs: 3_000, retryPeriodMs: 500 };
const BURN_MS = 1_200;
// Blocks the leader must sit through with its Lease: 12 s of a blocked loop, three lease durations.
const BLOCKS = 10;

let build: ReplicaBuild | undefined;
const started: ReplicaProcess[] = [];
const records: { stop(): void }[] = [];

beforeAll(async () => {
  build = await buildReplicaExample('test/fixtures/busy');
});
afterAll(async () => {
  await stopAll(started);
  for (const r of records) r.stop();
  build?.remove();
});

describe('a leader with a busy event loop (separate processes)', () => {
  it('keeps its Lease while its loop is blocked 1.2 s at a time: never fenced, the standby never leads', async () => {
    if (build === undefined) throw new Error('the busy fixture was not built');
    const client = clientFrom('server', sharedKubeApiserver().kubeconfigYaml('admin'));
    const leaseNamespace = await sharedKubeApiserver().createNamespace('ha-busy');
    const tenants = await createTenants(client, 1, randomGroup('busy'));
    await putInputs(client, tenants.names, 'settings', 0);
    const leases = recordOnServer<LeaseObject>(client, leaseResource, { namespace: leaseNamespace });
    records.push(leases);
    await leases.ready;
    const suffix = randomBytes(3).toString('hex');
    const spec = { mode: 'leader' as const, kubeconfigPath: sharedKubeApiserver().kubeconfigPath('admin'), leaseNamespace, leaseName: 'ha-copy', tenantSelector: tenants.selector, timing: TIMING };
    const busy = startReplica(build, { ...spec, identity: `busy-${suffix}`, burnMs: BURN_MS });
    started.push(busy);
    await eventually('the busy replica leads', () => states(busy).some((s) => s.type === 'leading'), { timeoutMs: 30_000, context: () => tails([busy]) });
    const standby = startReplica(build, { ...spec, identity: `standby-${suffix}` });
    started.push(standby);
    await eventually('the other replica stands by', () => states(standby).some((s) => s.type === 'standby'), { timeoutMs: 30_000, context: () => tails([busy, standby]) });
    const blocks = (): number => busy.lines().filter((l) => l.msg === 'burned').length;
    const from = blocks();
    const renewsFrom = leases.events().length;
    // The sentinel: the busy replica ended BLOCKS more blocks of its loop after the standby came.
    await eventually(`the busy replica ended ${BLOCKS} more blocks of ${BURN_MS} ms`, () => blocks() >= from + BLOCKS, { timeoutMs: 120_000, context: () => tails([busy, standby]) });

    const context = `\n${tails([busy, standby], 15)}`;
    const sinceLeading = states(busy).map((s) => s.type).slice(states(busy).findIndex((s) => s.type === 'leading'));
    expect(sinceLeading.filter((t) => t !== 'leading'), `the busy leader's states since it led${context}`).toEqual([]);
    expect(states(standby).map((s) => s.type).filter((t) => t !== 'standby'), `the standby's states${context}`).toEqual([]);
    const writes = leases.events().slice(renewsFrom);
    expect(writes.map((e) => e.object.spec?.holderIdentity).filter((h) => h !== busy.identity), 'Lease holders other than the busy leader').toEqual([]);
    // It went on renewing through the blocks (at least once every two of them).
    expect(writes.length).toBeGreaterThanOrEqual(BLOCKS / 2 - 1);
    client.close();
  }, 240_000);
});
