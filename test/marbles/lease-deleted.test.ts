// A Lease deleted under the keepers, in virtual time: a standby that saw it treats it as its last
// holder's for one lease duration (client-go's observed-time rule, extended to a missing Lease),
// and a holder whose renew finds it gone stops at once and claims it again only through a read,
// however the server answers that renew (the fake answers like kube-apiserver unless told).
import type { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import type { LeaseApi } from '../../src/runtime/ha/lease-api.js';
import type { LeaseKeeper, LeaseKeeperCommon, LeaseState } from '../../src/runtime/ha/lease-keeper.js';
import { leaseKeeper } from '../../src/runtime/ha/lease-keeper.js';
import { heldNow, heldUntil, observeLease } from '../../src/runtime/ha/lease-observation.js';
import { defaultLeaseTiming } from '../../src/runtime/ha/lease-timing.js';
import { testScheduler } from '../support/marbles.js';
import type { FakeLeases } from './lease-fake.js';
import { fakeLeases } from './lease-fake.js';

const acquiring: LeaseState = { type: 'acquiring' };
const heldBy = (holder: string): LeaseState => ({ type: 'acquiring', holder });
const held = (epoch: number): LeaseState => ({ type: 'held', epoch });
const lost = (why: string): LeaseState => ({ type: 'lost', reason: expect.stringContaining(why) as string });

/** A keeper of Lease ops/ctl with the default timing (15 s / 10 s / 2 s) on the virtual clock. */
function keeper(ts: TestScheduler, api: LeaseApi, over: Partial<LeaseKeeperCommon> = {}): LeaseKeeper {
  return leaseKeeper({ api, namespace: 'ops', name: 'ctl', identity: 'me', timing: defaultLeaseTiming, mode: 'leader', clock: () => ts.now(), wallClock: () => ts.now(), scheduler: ts, ...over });
}

const at = (ts: TestScheduler, time: number, f: () => unknown): void => {
  ts.schedule(() => {
    f();
  }, time);
};

const writes = (fake: FakeLeases, from: number): string[] => fake.calls.filter((c) => !c.startsWith('GET') && Number(c.split('@')[1]) >= from);

describe('observeLease', () => {
  it('keeps a vanished record and its change time, ignores a stale reappearance, and stamps a real change', () => {
    const a = observeLease(undefined, { rv: '7', holder: 'a', durationMs: 15_000 }, 1_000);
    expect(observeLease(undefined, undefined, 1_000)).toBeUndefined();
    const gone = observeLease(a, undefined, 3_000);
    expect(gone).toEqual({ rv: '7', holder: 'a', durationMs: 15_000, changedAt: 1_000, gone: true });
    expect(gone === undefined ? undefined : heldUntil(gone)).toBe(16_000);
    expect([heldNow(gone, 15_999), heldNow(gone, 16_000)]).toEqual([true, false]);
    expect(observeLease(gone, { rv: '7', holder: 'a', durationMs: 15_000 }, 5_000)).toMatchObject({ changedAt: 1_000, gone: false });
    expect(observeLease(gone, { rv: '9', holder: 'a', durationMs: 15_000 }, 5_000)).toMatchObject({ changedAt: 5_000, gone: false });
    expect(heldNow(observeLease(a, { rv: '8', holder: '', durationMs: 1_000 }, 2_000), 2_000)).toBe(false);
  });
});

describe('leaseKeeper and a deleted Lease', () => {
  it('waits a lease duration from the last change it saw before creating a Lease deleted under a holder that stopped', () => {
    const ts = testScheduler();
    const fake = fakeLeases(ts);
    fake.writeAs('ctl', 'other');
    ts.run(({ expectObservable }) => {
      at(ts, 3_000, () => { fake.writeAs('ctl', 'other'); }); // its last renew; we see it at our 4 s read
      at(ts, 4_500, () => { fake.remove('ctl'); });
      const k = keeper(ts, fake.api);
      expectObservable(k.states, '^ 25s !').toBe('(ab) 18996ms h', { a: acquiring, b: heldBy('other'), h: held(1) });
    });
    // Not at 6 s, when it first found the Lease missing: at 4 s + 15 s.
    expect(writes(fake, 0)[0]).toBe('POST ctl @19000');
  });

  it('never lets a standby lead while the holder whose Lease was deleted right after a renew may still write', () => {
    const ts = testScheduler();
    const fake = fakeLeases(ts);
    const both: number[] = [];
    ts.run(({ expectObservable }) => {
      const me = keeper(ts, fake.api);
      let you: LeaseKeeper | undefined;
      // The standby polls between the holder's renews (1 s, 3 s, ...), so it reads the gap first.
      at(ts, 1_000, () => {
        you = keeper(ts, fake.api, { identity: 'you' });
        const sub = you.states.subscribe((s) => fake.calls.push(`you ${s.type} @${ts.now()}`));
        at(ts, 39_000, () => { sub.unsubscribe(); });
      });
      at(ts, 2_001, () => { fake.remove('ctl'); });
      for (let t = 0; t < 40_000; t += 100) at(ts, t, () => (me.valid() && you?.valid() === true ? both.push(t) : undefined));
      // The holder's renew at 4 s is refused (409: the Lease it names is gone): it stops at once,
      // reads, finds nothing, its own record being the last seen creates it, and holds it again.
      expectObservable(me.states, '^ 40s !').toBe('(ah) 3996ms (lg)', { a: acquiring, h: held(1), l: lost('the Lease was deleted or taken'), g: held(2) });
    });
    expect(both).toEqual([]);
    expect(fake.calls.filter((c) => c.startsWith('you ') && !c.includes('acquiring'))).toEqual([]);
    expect(fake.calls.filter((c) => c.endsWith('@3000') || c.endsWith('@4000'))).toEqual(['GET ctl @3000', 'PUT ctl @4000', 'GET ctl @4000', 'POST ctl @4000']);
    expect(fake.read('ctl')?.spec?.holderIdentity).toBe('me');
  });

  it.each([
    ['409 (kube-apiserver: the body names the old uid)', 'server', 'the Lease was deleted or taken (a renew answered 409 Conflict)'],
    ['404 (a server that does not create on update)', 'notfound', 'the Lease was deleted (a renew answered 404)'],
    ['201 (a server that creates it whatever the body says)', 'create', 'the Lease was deleted (a renew created it anew)'],
  ] as const)('stops writing at once when a renew of its deleted Lease is answered %s, and claims it again through a read', (_, putMissing, why) => {
    const ts = testScheduler();
    const fake = fakeLeases(ts);
    fake.putMissing = putMissing;
    const seen: string[] = [];
    ts.run(() => {
      const k = keeper(ts, fake.api);
      at(ts, 2_001, () => { fake.remove('ctl'); });
      // Each state with what the fence reads then: no write may pass once it says lost.
      const sub = k.states.subscribe((st) => seen.push(`${st.type === 'lost' ? st.reason : st.type} ${String(k.valid())} @${ts.now()}`));
      at(ts, 10_000, () => { sub.unsubscribe(); });
    });
    expect(seen).toEqual(['acquiring false @0', 'held true @0', `leader Lease ops/ctl on cluster "home": ${why} false @4000`, 'held true @4000']);
    const reclaim = putMissing === 'create' ? ['GET ctl @4000', 'PUT ctl @4000'] : ['GET ctl @4000', 'POST ctl @4000'];
    expect(fake.calls.filter((c) => c.endsWith('@4000'))).toEqual(['PUT ctl @4000', ...reclaim]);
  });
});
