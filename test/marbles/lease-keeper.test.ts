// The Lease keeper in virtual time against an in-memory Lease API: acquiring, renewing, waiting out
// a fresh holder, taking over exactly at expiry, losing after the renew deadline (and on a late
// wake-up, before anything else), releasing, and publishing annotations. Also the timing rule and
// the Lease records written, client-go style.
import type { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/core/config-error.js';
import type { LeaseKeeper, LeaseKeeperCommon, LeaseState } from '../../src/runtime/ha/lease-keeper.js';
import { leaseKeeper } from '../../src/runtime/ha/lease-keeper.js';
import { claimedLease, microTime, readLease, releasedLease } from '../../src/runtime/ha/lease-record.js';
import { defaultLeaseTiming, leaseTiming } from '../../src/runtime/ha/lease-timing.js';
import { testScheduler } from '../support/marbles.js';
import type { FakeLeases } from './lease-fake.js';
import { fakeLeases } from './lease-fake.js';

const acquiring: LeaseState = { type: 'acquiring' };
const heldBy = (holder: string): LeaseState => ({ type: 'acquiring', holder });
const held = (epoch: number): LeaseState => ({ type: 'held', epoch });
const lost = (why: string): LeaseState => ({ type: 'lost', reason: expect.stringContaining(why) as string });

/** A keeper of Lease ops/ctl on the fake, with the default timing (15 s / 10 s / 2 s) and the virtual clock. */
function keeper(ts: TestScheduler, fake: FakeLeases, over: Partial<LeaseKeeperCommon> = {}): LeaseKeeper {
  return leaseKeeper({ api: fake.api, namespace: 'ops', name: 'ctl', identity: 'me', timing: defaultLeaseTiming, mode: 'leader', clock: () => ts.now(), wallClock: () => ts.now(), scheduler: ts, ...over });
}

/** Runs `f` at virtual time `at`. */
const at = (ts: TestScheduler, time: number, f: () => unknown): void => {
  ts.schedule(() => {
    f();
  }, time);
};

/** Samples `k.valid()` at each time; read the result after the run. */
function probe(ts: TestScheduler, k: () => boolean, times: readonly number[]): Record<number, boolean> {
  const seen: Record<number, boolean> = {};
  for (const t of times) at(ts, t, () => (seen[t] = k()));
  return seen;
}

const writesAfter = (fake: FakeLeases, time: number): string[] => fake.calls.filter((c) => !c.startsWith('GET') && Number(c.split('@')[1]) > time);

/** What {@link runKeeper} watches: the keeper's states until `until` (marbles), and valid() at `times`. */
interface KeeperRun {
  readonly until: string;
  readonly states: string;
  readonly values: Readonly<Record<string, LeaseState>>;
  readonly times: readonly number[];
  /** Options of the keeper, given the virtual clock. */
  readonly over?: (ts: TestScheduler) => Partial<LeaseKeeperCommon>;
  /** Runs first, inside the run: the fake's other holders, timers. */
  readonly arrange?: (ts: TestScheduler, fake: FakeLeases) => void;
}

/** Runs one keeper on a fresh fake in virtual time; returns the fake and what valid() said when. */
function runKeeper(o: KeeperRun): { readonly fake: FakeLeases; readonly valid: Record<number, boolean> } {
  const ts = testScheduler();
  const fake = fakeLeases(ts);
  let valid: Record<number, boolean> = {};
  ts.run(({ expectObservable }) => {
    o.arrange?.(ts, fake);
    const k = keeper(ts, fake, o.over?.(ts));
    valid = probe(ts, () => k.valid(), o.times);
    expectObservable(k.states, o.until).toBe(o.states, o.values);
  });
  return { fake, valid };
}

describe('leaseKeeper', () => {
  it('creates an absent Lease, holds it, and renews it every retry period with one PUT each', () => {
    const { fake, valid } = runKeeper({ until: '^ 9s !', states: '(ah)', values: { a: acquiring, h: held(1) }, times: [1, 9_000] });
    expect(fake.calls).toEqual(['GET ctl @0', 'POST ctl @0', 'PUT ctl @2000', 'PUT ctl @4000', 'PUT ctl @6000', 'PUT ctl @8000']);
    expect(fake.read('ctl')?.spec).toEqual({ holderIdentity: 'me', leaseDurationSeconds: 15, acquireTime: microTime(0), renewTime: microTime(8_000), leaseTransitions: 0 });
    expect(valid).toEqual({ 1: true, 9000: true });
  });

  it('never writes a Lease another holder keeps renewing', () => {
    const { fake, valid } = runKeeper({
      until: '^ 60s !',
      states: '(ab)',
      values: { a: acquiring, b: heldBy('other') },
      times: [0, 30_000, 59_000],
      arrange: (ts, fake) => {
        fake.writeAs('ctl', 'other');
        for (let t = 1_000; t < 60_000; t += 2_000) at(ts, t, () => { fake.writeAs('ctl', 'other'); });
      },
    });
    expect(writesAfter(fake, -1)).toEqual([]);
    expect(valid).toEqual({ 0: false, 30000: false, 59000: false });
  });

  it('takes an abandoned Lease over exactly leaseDuration after it last saw it change, counting a transition', () => {
    const { fake, valid } = runKeeper({
      until: '^ 25s !',
      states: '(ab) 18996ms h',
      values: { a: acquiring, b: heldBy('other'), h: held(1) },
      times: [18_999, 19_001],
      arrange: (ts, fake) => {
        fake.writeAs('ctl', 'other');
        at(ts, 3_000, () => { fake.writeAs('ctl', 'other'); }); // its last renew; we see it at our 4 s read
      },
    });
    expect(writesAfter(fake, 3_000)[0]).toBe('PUT ctl @19000');
    expect(fake.read('ctl')?.spec).toMatchObject({ holderIdentity: 'me', acquireTime: microTime(19_000), leaseTransitions: 1 });
    expect(valid).toEqual({ 18999: false, 19001: true });
  });

  it.each(['fail', 'hang'] as const)('is lost renewDeadline after the last successful renew was sent when renews %s, and held again after', (mode) => {
    const { valid } = runKeeper({
      until: '^ 20s !',
      states: '(ah) 9996ms l 3999ms g',
      values: { a: acquiring, h: held(1), l: lost('not renewed within the renew deadline of 10000 ms (last successful renew sent 10000 ms ago)'), g: held(2) },
      times: [9_999, 10_000, 13_999, 14_001],
      over: () => ({ requestTimeoutMs: 1_000 }),
      arrange: (ts, fake) => {
        at(ts, 1_000, () => (fake.mode = mode));
        at(ts, 13_000, () => (fake.mode = 'ok'));
      },
    });
    expect(valid).toEqual({ 9999: true, 10000: false, 13999: false, 14001: true });
  });

  it('says lost first when it wakes up late (a paused process), then renews when nobody took over', () => {
    const ts = testScheduler();
    const fake = fakeLeases(ts);
    let jump = 0;
    let valid: Record<number, boolean> = {};
    ts.run(({ expectObservable }) => {
      at(ts, 5_000, () => (jump = 30_000)); // frozen for 30 s: the clock moved, the timers did not fire
      const k = keeper(ts, fake, { clock: () => ts.now() + jump });
      valid = probe(ts, () => k.valid(), [4_999, 5_000]);
      expectObservable(k.states, '^ 10s !').toBe('(ah) 5996ms (lg)', { a: acquiring, h: held(1), l: lost('last successful renew sent 32000 ms ago'), g: held(2) });
      const log = k.states.subscribe((s) => fake.calls.push(`${s.type} @${ts.now()}`));
      at(ts, 10_000, () => { log.unsubscribe(); });
    });
    expect(valid).toEqual({ 4999: true, 5000: false });
    // 'lost' before any request, and the re-claim reads the Lease first rather than renewing blindly.
    expect(fake.calls.filter((c) => c.endsWith('@6000'))).toEqual(['lost @6000', 'GET ctl @6000', 'PUT ctl @6000', 'held @6000']);
  });

  it('says lost and never writes again when it wakes up late and another replica took over meanwhile', () => {
    const ts = testScheduler();
    const fake = fakeLeases(ts);
    let jump = 0;
    ts.run(({ expectObservable }) => {
      at(ts, 5_000, () => {
        jump = 30_000;
        fake.writeAs('ctl', 'other');
      });
      const k = keeper(ts, fake, { clock: () => ts.now() + jump });
      expectObservable(k.states, '^ 20s !').toBe('(ah) 5996ms (lb)', { a: acquiring, h: held(1), l: lost('not renewed'), b: heldBy('other') });
    });
    expect(writesAfter(fake, 4_000)).toEqual([]);
    expect(fake.read('ctl')?.spec?.holderIdentity).toBe('other');
  });

  it('learns at once that a renew was refused because the Lease was taken', () => {
    const ts = testScheduler();
    const fake = fakeLeases(ts);
    ts.run(({ expectObservable }) => {
      at(ts, 3_000, () => { fake.writeAs('ctl', 'other'); });
      const k = keeper(ts, fake);
      expectObservable(k.states, '^ 10s !').toBe('(ah) 3996ms (lb)', { a: acquiring, h: held(1), l: lost('a renew answered 409 Conflict'), b: heldBy('other') });
    });
    expect(fake.calls.filter((c) => c.endsWith('@4000'))).toEqual(['PUT ctl @4000', 'GET ctl @4000']);
  });

  it('gives exactly one of two racing replicas the Lease, and never both a valid one', () => {
    const ts = testScheduler();
    const fake = fakeLeases(ts);
    const both: number[] = [];
    ts.run(({ expectObservable }) => {
      const k1 = keeper(ts, fake);
      const k2 = keeper(ts, fake, { identity: 'you' });
      for (let t = 0; t < 60_000; t += 250) at(ts, t, () => (k1.valid() && k2.valid() ? both.push(t) : undefined));
      expectObservable(k1.states, '^ 60s !').toBe('(ah)', { a: acquiring, h: held(1) });
      expectObservable(k2.states, '^ 60s !').toBe('(ab)', { a: acquiring, b: heldBy('me') });
    });
    expect(both).toEqual([]);
  });

  it('releases a leader Lease with an empty holder and a 1 s duration, so a standby takes over at its next try', async () => {
    const ts = testScheduler();
    const fake = fakeLeases(ts);
    let released: Promise<void> | undefined;
    let valid: Record<number, boolean> = {};
    ts.run(({ expectObservable }) => {
      const k1 = keeper(ts, fake);
      const k2 = keeper(ts, fake, { identity: 'you' });
      at(ts, 3_000, () => (released = k1.release()));
      valid = probe(ts, () => k1.valid(), [2_999, 3_000]);
      expectObservable(k1.states).toBe('(ah) 2996ms (l|)', { a: acquiring, h: held(1), l: lost('released') });
      expectObservable(k2.states, '^ 10s !').toBe('(ab) 3996ms h', { a: acquiring, b: heldBy('me'), h: held(1) });
    });
    await expect(released).resolves.toBeUndefined();
    expect(valid).toEqual({ 2999: true, 3000: false });
    expect(fake.calls).toContain('PUT ctl @3000');
    expect(fake.read('ctl')?.spec).toMatchObject({ holderIdentity: 'you', leaseDurationSeconds: 15, leaseTransitions: 1 });
  });

  it('releases its own Lease in member mode by emptying the holder too, and deletes it once peers have polled it', async () => {
    const ts = testScheduler();
    const fake = fakeLeases(ts);
    let released: Promise<void> | undefined;
    let between: unknown;
    ts.run(({ expectObservable }) => {
      const k = keeper(ts, fake, { mode: 'member' });
      at(ts, 3_000, () => (released = k.release()));
      at(ts, 6_999, () => (between = fake.read('ctl')?.spec));
      expectObservable(k.states).toBe('(ah) 2996ms l 3999ms |', { a: acquiring, h: held(1), l: lost('membership Lease ops/ctl on cluster "home": released') });
    });
    await released;
    // Two retry periods with the released record for the peers to see (a vanished one would be its holder's to them), then gone.
    expect(between).toMatchObject({ holderIdentity: '', leaseDurationSeconds: 1 });
    expect(fake.calls.slice(-2)).toEqual(['PUT ctl @3000', 'DELETE ctl @7000']);
    expect(fake.read('ctl')).toBeUndefined();
  });

  it('leaves a Lease someone else took alone on release', async () => {
    const ts = testScheduler();
    const fake = fakeLeases(ts);
    let released: Promise<void> | undefined;
    ts.run(() => {
      const k = keeper(ts, fake);
      k.states.subscribe();
      at(ts, 3_000, () => { fake.writeAs('ctl', 'other'); });
      at(ts, 3_500, () => (released = k.release()));
    });
    await released;
    expect(fake.calls.slice(-2)).toEqual(['PUT ctl @3500', 'GET ctl @3500']);
    expect(fake.read('ctl')?.spec?.holderIdentity).toBe('other');
  });

  it.each(['fail', 'hang'] as const)('resolves release within its request timeouts when the API calls %s', async (mode) => {
    const ts = testScheduler();
    const fake = fakeLeases(ts);
    let released: Promise<void> | undefined;
    ts.run(() => {
      const k = keeper(ts, fake);
      k.states.subscribe();
      at(ts, 1_000, () => (fake.mode = mode));
      at(ts, 3_000, () => (released = k.release()));
    });
    await expect(released).resolves.toBeUndefined();
  });

  it('publishes annotations with a renew made at once, over the ones it started with', () => {
    const ts = testScheduler();
    const fake = fakeLeases(ts);
    let seen: unknown;
    ts.run(() => {
      const k = keeper(ts, fake, { mode: 'member', labels: { 'rxfleet.io/replicas': 'ctl' }, annotations: { 'rxfleet.io/weight': '2' } });
      const sub = k.states.subscribe();
      at(ts, 3_000, () => { k.annotate({ 'rxfleet.io/acknowledged-view': 'v1' }); });
      at(ts, 3_001, () => (seen = fake.read('ctl')?.metadata));
      at(ts, 5_000, () => { sub.unsubscribe(); });
    });
    expect(fake.calls).toEqual(['GET ctl @0', 'POST ctl @0', 'PUT ctl @2000', 'PUT ctl @3000', 'PUT ctl @4000']);
    expect(seen).toMatchObject({ labels: { 'rxfleet.io/replicas': 'ctl' }, annotations: { 'rxfleet.io/weight': '2', 'rxfleet.io/acknowledged-view': 'v1' } });
  });

  it('stops every timer and call when unsubscribed, and is no longer valid', () => {
    const { fake, valid } = runKeeper({ until: '^ 5s !', states: '(ah)', values: { a: acquiring, h: held(1) }, times: [4_999, 5_002] });
    expect(fake.calls.at(-1)).toBe('PUT ctl @4000');
    expect(valid).toEqual({ 4999: true, 5002: false });
  });
});

describe('leaseTiming', () => {
  it("defaults to controller-runtime's 15 s / 10 s / 2 s", () => {
    expect(leaseTiming()).toEqual({ leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 });
    expect(leaseTiming({ leaseDurationMs: 4_000, renewDeadlineMs: 3_000, retryPeriodMs: 500 }).retryPeriodMs).toBe(500);
  });

  it.each([
    [{ renewDeadlineMs: 15_000 }, 'renew deadline 15000 ms must be less than lease duration 15000 ms'],
    [{ retryPeriodMs: 9_000 }, 'renew deadline 10000 ms must be more than 1.2 × retry period 9000 ms'],
    [{ retryPeriodMs: 0 }, 'retry period 0 ms must be positive'],
    [{ leaseDurationMs: Number.NaN }, 'leaseDurationMs must be a finite number'],
  ])('refuses %o with a ConfigError naming the values', (t, message) => {
    expect(() => leaseTiming(t)).toThrow(ConfigError);
    expect(() => leaseTiming(t)).toThrow(message);
  });
});

describe('Lease records', () => {
  const base = { namespace: 'ops', name: 'ctl', leaseDurationMs: 1_500 };
  it('writes MicroTimes, rounds the duration up to whole seconds, and counts holder changes only', () => {
    expect(microTime(Date.UTC(2026, 10, 23, 10, 0, 0, 123))).toBe('2026-11-23T10:00:00.123000Z');
    const mine = claimedLease(undefined, { ...base, identity: 'me', nowMs: 1_000 });
    expect(mine.spec).toEqual({ holderIdentity: 'me', leaseDurationSeconds: 2, acquireTime: microTime(1_000), renewTime: microTime(1_000), leaseTransitions: 0 });
    const renewed = claimedLease(mine, { ...base, identity: 'me', nowMs: 3_000 });
    expect(renewed.spec).toMatchObject({ acquireTime: microTime(1_000), renewTime: microTime(3_000), leaseTransitions: 0 });
    const taken = claimedLease(renewed, { ...base, identity: 'you', nowMs: 9_000 });
    expect(taken.spec).toMatchObject({ holderIdentity: 'you', acquireTime: microTime(9_000), leaseTransitions: 1 });
    expect(readLease(releasedLease(taken, 10_000))).toMatchObject({ holder: '', durationMs: 1_000, transitions: 1 });
  });
});
