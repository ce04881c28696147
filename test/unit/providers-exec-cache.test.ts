// The exec credential cache on a fake clock: when a plugin runs again.
import { describe, expect, it } from 'vitest';
import type { ExecCredentialStatus } from '../../src/client/exec-credential.js';
import { execCredentialCache } from '../../src/client/exec-credential.js';

function setup(lifetimeMs: number | undefined) {
  let now = 1_000_000;
  let runs = 0;
  const run = (): Promise<ExecCredentialStatus> => {
    runs++;
    return Promise.resolve(lifetimeMs === undefined ? { token: `t${runs}` } : { token: `t${runs}`, expirationTimestamp: new Date(now + lifetimeMs).toISOString() });
  };
  const cache = execCredentialCache(run, () => now);
  return { cache, runs: () => runs, advance: (ms: number) => (now += ms) };
}

describe('execCredentialCache', () => {
  it('should refresh a token in the last 20% of its life, and at most a minute early', async () => {
    const short = setup(10_000);
    expect((await short.cache.get()).token).toBe('t1');
    short.advance(7_900);
    expect((await short.cache.get()).token).toBe('t1');
    short.advance(200); // 8.1 s of 10 s
    expect((await short.cache.get()).token).toBe('t2');

    const long = setup(3_600_000);
    await long.cache.get();
    long.advance(3_600_000 - 61_000);
    expect((await long.cache.get()).token).toBe('t1');
    long.advance(2_000);
    expect((await long.cache.get()).token).toBe('t2');
  });

  it('should keep a token without expiry until invalidated, and share one run between concurrent callers', async () => {
    const s = setup(undefined);
    const [a, b] = await Promise.all([s.cache.get(), s.cache.get()]);
    expect([a.token, b.token, s.runs()]).toEqual(['t1', 't1', 1]);
    s.advance(1e9);
    expect((await s.cache.get()).token).toBe('t1');
    s.cache.invalidate();
    expect((await s.cache.get()).token).toBe('t2');
  });

  it('should not cache a failed run', async () => {
    let fail = true;
    const cache = execCredentialCache(() => (fail ? Promise.reject(new Error('boom')) : Promise.resolve({ token: 'ok' })));
    await expect(cache.get()).rejects.toThrow('boom');
    fail = false;
    expect((await cache.get()).token).toBe('ok');
  });
});
