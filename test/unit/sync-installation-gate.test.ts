// An installation whose kcp could not be read at start stays out of the fleet, reported, until its
// preflight passes, retried on a capped backoff in the injected clock; one that passed runs at once.
import { of, VirtualTimeScheduler } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/index.js';
import type { FleetEvent } from '../../src/streams/index.js';
import { reported } from '../../src/streams/index.js';
import { gatedInstallation } from '../../packages/sync-agent/src/installation-gate.js';

const marker = reported({ type: 'error', provider: 'eu-provider', reason: 'the provider runs', at: 0 });

// Lets each settled check's promise reach the stream, then runs the virtual clock to its next action.
async function drain(scheduler: VirtualTimeScheduler, turns = 12): Promise<void> {
  for (let i = 0; i < turns; i++) {
    await new Promise<void>((resolve) => setImmediate(resolve));
    scheduler.flush();
  }
}

function scripted(outcomes: (Error | undefined)[]): { check: () => Promise<void>; calls: number[]; scheduler: VirtualTimeScheduler } {
  const scheduler = new VirtualTimeScheduler(undefined, Infinity);
  const calls: number[] = [];
  const check = (): Promise<void> => {
    calls.push(scheduler.now());
    const o = outcomes.shift();
    return o === undefined ? Promise.resolve() : Promise.reject(o);
  };
  return { check, calls, scheduler };
}

const described = (ev: FleetEvent): string => (ev.type === 'report' ? `${ev.report.type}: ${'reason' in ev.report ? ev.report.reason : ''}` : ev.type);

describe('sync agent: an installation not checked at start', () => {
  it('stays out, reported as waiting with its cause, until its preflight passes; retries double from 1 s', async () => {
    const { check, calls, scheduler } = scripted([new Error('connect ECONNREFUSED 127.0.0.1:6443'), new Error('headers timeout')]);
    const seen: string[] = [];
    const sub = gatedInstallation('eu', { passed: false, check }, () => of(marker), { scheduler }).subscribe((ev) => seen.push(`${scheduler.now()} ${described(ev)}`));
    await drain(scheduler);
    sub.unsubscribe();
    expect(calls).toEqual([0, 1_000, 3_000]);
    expect(seen).toEqual([
      '0 waiting: installation "eu": its preflight could not read its kcp (connect ECONNREFUSED 127.0.0.1:6443); checked again in 1 s, its clusters stay out of the fleet until it passes',
      '1000 waiting: installation "eu": its preflight could not read its kcp (headers timeout); checked again in 2 s, its clusters stay out of the fleet until it passes',
      '3000 error: the provider runs',
    ]);
  });

  it('caps the delay, and reports a configuration its kcp refuses as an error, checked again at the cap', async () => {
    const refused = new ConfigError('sync config: 1 problem:\n- the APIExport is kept by agent "other"');
    const { check, calls, scheduler } = scripted([refused, ...Array.from({ length: 8 }, () => new Error('unreachable'))]);
    const seen: FleetEvent[] = [];
    const sub = gatedInstallation('eu', { passed: false, check }, () => of(marker), { scheduler, initialDelayMs: 1_000, maxDelayMs: 8_000 }).subscribe((ev) => seen.push(ev));
    await drain(scheduler, 30);
    sub.unsubscribe();
    // The refusal waits the cap; then 1, 2, 4, 8, 8, 8, 8, 8 s.
    expect(calls.slice(0, 10)).toEqual([0, 8_000, 9_000, 11_000, 15_000, 23_000, 31_000, 39_000, 47_000, 55_000]);
    expect(seen[0]).toMatchObject({ type: 'report', report: { type: 'error', provider: 'sync-agent' } });
    expect(seen.map(described)[0]).toContain('installation "eu": its preflight found problems (sync config: 1 problem:');
    expect(seen[1]).toMatchObject({ type: 'report', report: { type: 'waiting', cluster: 'eu#kcp-export' } });
    expect(seen.map(described).at(-1)).toBe('error: the provider runs');
  });

  it('runs the provider at once, with no check, when the preflight passed at start', async () => {
    const { check, calls, scheduler } = scripted([]);
    const seen: string[] = [];
    gatedInstallation('eu', { passed: true, check }, () => of(marker), { scheduler }).subscribe((ev) => seen.push(described(ev)));
    await drain(scheduler, 1);
    expect(calls).toEqual([]);
    expect(seen).toEqual(['error: the provider runs']);
  });
});
