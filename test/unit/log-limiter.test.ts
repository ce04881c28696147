import { describe, expect, it } from 'vitest';
import { createLogLimiter } from '../../src/runtime/log-limiter.js';

describe('createLogLimiter', () => {
  it('logs the first of 6 identical failures in 20 s, and the next window carries repeated: 5', () => {
    let t = 0;
    const limiter = createLogLimiter({ windowMs: 30_000, now: () => t });
    const decisions = [0, 4_000, 8_000, 12_000, 16_000, 20_000].map((at) => {
      t = at;
      return limiter.admit('east|NotFound|configmaps "a" not found');
    });
    expect(decisions.filter((d) => d.type === 'log')).toEqual([{ type: 'log', repeated: 0 }]);
    t = 30_000;
    expect(limiter.admit('east|NotFound|configmaps "a" not found')).toEqual({ type: 'log', repeated: 5 });
    t = 31_000;
    expect(limiter.admit('east|NotFound|configmaps "a" not found')).toEqual({ type: 'suppress' });
  });

  it('does not merge distinct errors', () => {
    const limiter = createLogLimiter({ now: () => 0 });
    expect(limiter.admit('east|NotFound|a').type).toBe('log');
    expect(limiter.admit('west|NotFound|a').type).toBe('log');
    expect(limiter.admit('east|Conflict|a').type).toBe('log');
    expect(limiter.admit('east|NotFound|b').type).toBe('log');
    expect(limiter.admit('east|NotFound|a').type).toBe('suppress');
  });

  it('keeps memory bounded with 10,000 distinct keys, forgetting the least recently seen first', () => {
    let t = 0;
    const limiter = createLogLimiter({ maxKeys: 1_000, now: () => t });
    limiter.admit('hot');
    for (let i = 0; i < 10_000; i++) {
      t = i;
      limiter.admit(`key-${i}`);
      if (i % 100 === 0) limiter.admit('hot'); // seen often: stays tracked
      expect(limiter.size()).toBeLessThanOrEqual(1_000);
    }
    expect(limiter.size()).toBe(1_000);
    expect(limiter.admit('hot').type).toBe('suppress');
    expect(limiter.admit('key-0')).toEqual({ type: 'log', repeated: 0 }); // forgotten: starts afresh
  });
});
