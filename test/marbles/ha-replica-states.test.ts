// What `handle.replica.states` shows while a sharding replica cannot renew its Lease: one `fenced`
// state per loss, not one more each time the peers or the Lease loop say the same thing again.
import { from, map } from 'rxjs';
import type { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import type { Lease, ObjectList } from '../../src/core/object.js';
import { E } from '../../src/internal/fp.js';
import type { Coordination } from '../../src/runtime/ha/coordination.js';
import { coordination } from '../../src/runtime/ha/coordination.js';
import type { PeerLeaseApi } from '../../src/runtime/ha/peers.js';
import type { ReplicaState } from '../../src/runtime/index.js';
import { fakeCluster } from '../../src/testing/index.js';
import { testScheduler } from '../support/marbles.js';
import type { FakeLeases } from './lease-fake.js';
import { fakeLeases, home } from './lease-fake.js';

const at = (ts: TestScheduler, time: number, f: () => unknown): void => {
  ts.schedule(() => {
    f();
  }, time);
};

function sharding(ts: TestScheduler, fake: FakeLeases): Coordination {
  const peerApi: PeerLeaseApi = {
    cluster: home,
    list: (namespace, selector) => from(fake.api.list(namespace, selector)).pipe(map(E.map((l: ObjectList<Lease>) => l.items))),
    delete: (namespace, name) => fake.api.delete(namespace, name),
  };
  const replicas = { type: 'sharding', home: fakeCluster('home'), namespace: 'ops', name: 'ctl', identity: 'me' } as const;
  return coordination(replicas, 'ctl', { scheduler: ts, clock: () => ts.now(), leaseApi: fake.api, peerApi });
}

const brief = (s: ReplicaState): string => `${s.type}${s.type === 'sharing' ? ` ${s.members.join(',')} ${String(s.confirmed)}${s.problems === undefined ? '' : ' !'}` : ''}`;

describe('replica states', () => {
  it('emits a fenced sharding replica once per loss, however often its inputs repeat it', () => {
    const ts = testScheduler();
    const fake = fakeLeases(ts);
    const seen: string[] = [];
    const fenced: ReplicaState[] = [];
    ts.run(() => {
      const co = sharding(ts, fake);
      const own = co.ownership.subscribe((o) => { co.applied(o); });
      const states = co.states.subscribe((s) => {
        seen.push(`${brief(s)} @${ts.now()}`);
        if (s.type === 'fenced') fenced.push(s);
      });
      // The home cluster answers 503 from 3 s to 40 s: renews and LISTs fail, the renew deadline
      // passes at 12 s, and the peers' view changes at 17 s (its own Lease, last listed at 2 s, expires).
      at(ts, 3_000, () => (fake.mode = 'fail'));
      at(ts, 40_000, () => (fake.mode = 'ok'));
      at(ts, 60_000, () => {
        own.unsubscribe();
        states.unsubscribe();
      });
    });
    expect(fenced).toHaveLength(1);
    expect(fenced[0]).toMatchObject({ type: 'fenced', identity: 'me', reason: expect.stringContaining('not renewed within the renew deadline') as string });
    // No state follows an identical one.
    expect(seen.filter((s, i) => i > 0 && s.split(' @')[0] === seen[i - 1]?.split(' @')[0])).toEqual([]);
    expect(seen.at(-1)).toMatch(/^sharing me true @/);
  });
});
