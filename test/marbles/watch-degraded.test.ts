// A watch that keeps failing, in virtual time: after `degradedAfterMs` without a successful list or
// a line from the server its health says degraded, once, until the watch works again.
import type { Observable } from 'rxjs';
import { takeUntil, timer } from 'rxjs';
import type { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import type { ConfigMap, Either, KubeError, ObjectList } from '../../src/index.js';
import { ConfigError, configMaps } from '../../src/index.js';
import type { WatchHealth, WatchSignalsOptions, WatchSignal } from '../../src/streams/index.js';
import { watchSignals } from '../../src/streams/index.js';
import { cm, east, err, line, page, scripted, testScheduler } from './watch-fixtures.js';

const base: WatchSignalsOptions = { cluster: east, resource: configMaps, streamingList: false, random: () => 1 };
const http500 = err('Transient', { code: 500 });

/** Every health snapshot, and `frame degraded` / `frame recovered` at each change of `degraded`. */
function degradedChanges(ts: TestScheduler, signals: Observable<WatchSignal<ConfigMap>>, untilMs: number): { changes: string[]; health: WatchHealth[] } {
  const out = { changes: [] as string[], health: [] as WatchHealth[] };
  let was = false;
  signals.pipe(takeUntil(timer(untilMs, ts))).subscribe((s) => {
    if (s.type !== 'health') return;
    out.health.push(s.health);
    const now = s.health.degraded === true;
    if (now !== was) out.changes.push(`${ts.now()} ${now ? 'degraded' : 'recovered'}`);
    was = now;
  });
  return out;
}

describe('degraded watches', () => {
  it('should report a list failing with 500 for longer than degradedAfterMs as degraded once, when the time is up, and clear it after a successful list', () => {
    const ts = testScheduler();
    ts.run(({ cold }) => {
      // Failures at 0, 800, 2400, 5600 and 12000 (backoff 0.8, 1.6, 3.2, 6.4, 12.8 s); the list works at 24800.
      const failing = Array.from({ length: 5 }, () => cold<Either<KubeError, ObjectList<ConfigMap>>>('#', undefined, http500));
      const s = scripted([...failing, cold('(a|)', { a: page('10', [cm('a', '5')]) })], [cold('-')]);
      const t = degradedChanges(ts, watchSignals(s.source, { ...base, degradedAfterMs: 10_000, scheduler: ts }), 30_000);
      ts.flush();
      // Degraded during the wait that crosses 10 s, not at the next failure (12 s); said once across two more failures.
      expect(t.changes).toEqual(['10000 degraded', '24800 recovered']);
      expect(t.health.find((h) => h.degraded === true)).toMatchObject({ state: 'backingOff', failingSinceAt: 0, nextAttemptAt: 12_000, synced: false, lastError: { code: 500 } });
      const last = t.health.at(-1);
      expect(last).toMatchObject({ state: 'connected', synced: true });
      expect(last).not.toHaveProperty('degraded');
      expect(last).not.toHaveProperty('failingSinceAt');
    });
  });

  it('should stay degraded between retries of a watch failing with 500 past the default 2 minutes, until an event comes through', () => {
    const ts = testScheduler();
    ts.run(({ cold }) => {
      // Watch failures at 0, 0.8, 2.4, 5.6, 12, 24.8, 50.4, 80.4, 110.4 and 140.4 s; the next watch, at 170.4 s, works.
      const failing = Array.from({ length: 10 }, () => cold('#', undefined, http500));
      const works = cold('-a', { a: line('ADDED', cm('a', '11')) });
      const s = scripted([cold('(a|)', { a: page('10', []) })], [...failing, works]);
      const t = degradedChanges(ts, watchSignals(s.source, { ...base, inactivityTimeoutMs: 600_000, scheduler: ts }), 200_000);
      ts.flush();
      expect(t.changes).toEqual(['120000 degraded', '170401 recovered']);
      // The retry at 140.4 s opens a request (`connected`) without any data: still degraded.
      const retrying = t.health.filter((h) => h.state === 'connected' && h.degraded === true);
      expect(retrying.length).toBeGreaterThan(0);
      expect(retrying[0]).toMatchObject({ failingSinceAt: 0, synced: true });
      expect(t.health.at(-1)).toMatchObject({ state: 'connected', lastEventAt: 170_401 });
      expect(t.health.at(-1)).not.toHaveProperty('degraded');
    });
  });

  it('should carry the latest line time into the next health report, also for lines that were not reported on their own', () => {
    const ts = testScheduler();
    ts.run(({ cold }) => {
      // Lines at 1 and 2000 ms: within 5 s of the `connected` report, neither is reported by itself;
      // the watch then fails at 2998 ms, and the backingOff report says when the last line came.
      const watch = cold('-a 1998ms b 997ms #', { a: line('ADDED', cm('a', '11')), b: line('MODIFIED', cm('a', '12')) }, http500);
      const s = scripted([cold('(a|)', { a: page('10', []) })], [watch, cold('-')]);
      const t = degradedChanges(ts, watchSignals(s.source, { ...base, scheduler: ts }), 10_000);
      ts.flush();
      // Reports before the backoff: listing, then connected at 0 ms, before any line.
      const before = t.health.slice(0, t.health.findIndex((h) => h.state === 'backingOff'));
      expect(before.map((h) => [h.state, h.lastEventAt])).toEqual([['listing', undefined], ['connected', undefined]]);
      expect(t.health.find((h) => h.state === 'backingOff')).toMatchObject({ lastEventAt: 2000, lastError: { code: 500 } });
    });
  });

  it('should refuse a degradedAfterMs that is not above 0 and a negative maxRetryAfterMs', () => {
    const s = scripted([], []);
    expect(() => watchSignals(s.source, { ...base, degradedAfterMs: 0 })).toThrow(ConfigError);
    expect(() => watchSignals(s.source, { ...base, maxRetryAfterMs: -1 })).toThrow(/maxRetryAfterMs must be a number ≥ 0/);
  });
});
