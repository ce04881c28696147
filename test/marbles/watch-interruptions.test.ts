// Routine renewals against interruptions, in virtual time: the server ends every watch at the
// timeoutSeconds that request asked for (jittered per request), which is counted in `reconnects`
// only; an early clean close, a cut connection, the inactivity timeout and a refusal in disguise are
// `interruptions`; a 410 Gone is a relist and refused streaming lists a fallback, neither of them;
// a request that never opened (no connection, no 2xx) is a failed attempt: a cluster that stays
// down counts no interruption, however long it stays down.
import type { Observable } from 'rxjs';
import { interval, map, takeUntil, timer } from 'rxjs';
import type { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import type { ConfigMap } from '../../src/index.js';
import { configMaps } from '../../src/index.js';
import type { ListerWatcher, WatchSignalsOptions } from '../../src/streams/index.js';
import { watchSignals } from '../../src/streams/index.js';
import { failedEnding, watchEnd } from '../../src/streams/watch-end.js';
import { bookmark, east, err, gone, page, record, scripted, testScheduler } from './watch-fixtures.js';

const base: WatchSignalsOptions = { cluster: east, resource: configMaps, streamingList: false, random: () => 1 };

/** A quiet watch as a server serves it: a bookmark every 30 s, ended cleanly after `endsAfterMs`. */
const served = (ts: TestScheduler, endsAfterMs: number): Observable<string> =>
  interval(30_000, ts).pipe(
    map((n) => bookmark(String(10 + n))),
    takeUntil(timer(endsAfterMs, ts)),
  );

describe('watch ends: renewals and interruptions', () => {
  it('should count watches the server ends at their own jittered timeoutSeconds as renewals, never interruptions', () => {
    const ts = testScheduler();
    ts.run(({ cold }) => {
      const draws = [0, 0.5, 0.99];
      let n = 0;
      const timeouts: number[] = [];
      const source: ListerWatcher<ConfigMap> = {
        list: () => cold('(a|)', { a: page('1', []) }),
        watch: (o) => {
          timeouts.push(o.timeoutSeconds ?? 0);
          return served(ts, (o.timeoutSeconds ?? 0) * 1_000);
        },
      };
      const config = { ...base, serverTimeoutSeconds: { min: 60, max: 120 }, random: () => draws[n++ % draws.length] ?? 0, scheduler: ts };
      const t = record(ts, watchSignals(source, config), 30 * 60_000);
      ts.flush();
      // Each request asked for its own timeout; a fixed threshold would misjudge some of them.
      expect(new Set(timeouts)).toEqual(new Set([60, 90, 120]));
      expect(t.health.at(-1)).toMatchObject({ state: 'connected', reconnects: timeouts.length - 1, interruptions: 0, relists: 0 });
      expect(timeouts.length).toBeGreaterThan(15);
      expect(t.health.filter((h) => h.state === 'backingOff' || h.interruptions > 0)).toEqual([]);
    });
  });

  it('should count a clean close before timeoutSeconds (a proxy idle timeout) as an interruption, and resume at once', () => {
    const ts = testScheduler();
    ts.run(({ cold, expectSubscriptions }) => {
      const early = cold('10s a 19999ms |', { a: bookmark('11') });
      const next = cold('-');
      const s = scripted([cold('(a|)', { a: page('10', []) })], [early, next]);
      const t = record(ts, watchSignals(s.source, { ...base, serverTimeoutSeconds: { min: 300, max: 300 }, scheduler: ts }), 60_000);
      expectSubscriptions(next.subscriptions).toBe('30s ^ 29999ms !');
      ts.flush();
      expect(s.watches[1]).toMatchObject({ resourceVersion: '11' });
      expect(t.health.at(-1)).toMatchObject({ state: 'connected', reconnects: 1, interruptions: 1 });
      expect(t.health.some((h) => h.state === 'backingOff')).toBe(false);
    });
  });

  it('should count a cut connection of an open watch as an interruption', () => {
    const ts = testScheduler();
    ts.run(({ cold }) => {
      // Cut after the server's 200 and before any line: the transport keeps the 200 on the error.
      const s = scripted([cold('(a|)', { a: page('10', []) })], [cold('10s #', undefined, err('Transient', { code: 200 })), cold('-')]);
      const t = record(ts, watchSignals(s.source, { ...base, scheduler: ts }), 60_000);
      ts.flush();
      expect(t.health.find((h) => h.state === 'backingOff')).toMatchObject({ interruptions: 1, nextAttemptAt: 10_800 });
      expect(t.health.at(-1)).toMatchObject({ state: 'connected', reconnects: 1, interruptions: 1 });
    });
  });

  it('should count the inactivity timeout as an interruption', () => {
    const ts = testScheduler();
    ts.run(({ cold }) => {
      const s = scripted([cold('(a|)', { a: page('10', []) })], [cold('-'), cold('-')]);
      const t = record(ts, watchSignals(s.source, { ...base, inactivityTimeoutMs: 90_000, scheduler: ts }), 100_000);
      ts.flush();
      expect(t.health.find((h) => h.state === 'backingOff')).toMatchObject({ interruptions: 1, lastError: { type: 'Timeout' } });
      expect(t.health.at(-1)).toMatchObject({ state: 'connected', reconnects: 1, interruptions: 1 });
    });
  });

  it('should count a watch closed at once without a line as an interruption and a failure', () => {
    const ts = testScheduler();
    ts.run(({ cold }) => {
      const s = scripted([cold('(a|)', { a: page('10', []) })], [cold('|'), cold('-')]);
      const t = record(ts, watchSignals(s.source, { ...base, scheduler: ts }), 5_000);
      ts.flush();
      expect(t.health.find((h) => h.state === 'backingOff')).toMatchObject({ interruptions: 1, lastError: { type: 'Transient' } });
      expect(t.health.at(-1)).toMatchObject({ state: 'connected', interruptions: 1 });
    });
  });

  it('should count attempts that never open (a cluster down) as failures, never as interruptions', () => {
    const ts = testScheduler();
    ts.run(({ cold }) => {
      // Open and cut once (a line came), then refused connections and a 503 for ten minutes.
      const down = cold('#', undefined, err('ClusterUnreachable'));
      const unavailable = cold('#', undefined, err('Transient', { code: 503 }));
      const attempts = Array.from({ length: 40 }, (_, i) => (i % 4 === 3 ? unavailable : down));
      const s = scripted([cold('(a|)', { a: page('10', []) })], [cold('10s a 5s #', { a: bookmark('11') }, err('Transient')), ...attempts, cold('-')]);
      const t = record(ts, watchSignals(s.source, { ...base, backoff: { initialMs: 1_000, maxMs: 30_000 }, scheduler: ts }), 600_000);
      ts.flush();
      const last = t.health.at(-1);
      expect(s.watches.length).toBeGreaterThan(20);
      expect(last).toMatchObject({ state: 'backingOff', interruptions: 1, degraded: true, lastError: { type: 'ClusterUnreachable' } });
      expect(last?.failingSinceAt, 'failing since the cut, not since a later attempt').toBe(15_001);
    });
  });

  it('should count attempts that never open until the first list as failures, never as interruptions', () => {
    const ts = testScheduler();
    ts.run(({ cold }) => {
      // Streaming lists (watch requests) to a cluster that is down from the start.
      const s = scripted([], Array.from({ length: 30 }, () => cold('#', undefined, err('ClusterUnreachable'))));
      const t = record(ts, watchSignals(s.source, { ...base, streamingList: true, backoff: { initialMs: 1_000, maxMs: 30_000 }, scheduler: ts }), 600_000);
      ts.flush();
      expect(s.watches.length).toBeGreaterThan(20);
      expect(t.health.at(-1)).toMatchObject({ state: 'backingOff', synced: false, interruptions: 0, degraded: true });
    });
  });

  it('should count a 410 Gone as a relist and refused streaming lists as neither', () => {
    const ts = testScheduler();
    ts.run(({ cold }) => {
      const s = scripted([cold('(a|)', { a: page('10', []) }), cold('(a|)', { a: page('20', []) })], [cold('10s a', { a: gone() }), cold('-')]);
      const t = record(ts, watchSignals(s.source, { ...base, scheduler: ts }), 60_000);
      const refused = scripted([cold('(a|)', { a: page('10', []) })], [cold('#', undefined, err('BadRequest')), cold('-')]);
      const r = record(ts, watchSignals(refused.source, { ...base, streamingList: true, scheduler: ts }), 60_000);
      ts.flush();
      expect(t.health.at(-1)).toMatchObject({ state: 'connected', relists: 1, interruptions: 0 });
      expect(refused.lists).toHaveLength(1);
      expect(r.health.at(-1)).toMatchObject({ state: 'connected', synced: true, interruptions: 0 });
    });
  });
});

describe('watchEnd', () => {
  it('should take a clean close a moment early by the client clock for a renewal, and one earlier for an interruption', () => {
    const facts = { ending: 'clean', timeoutSeconds: 450, lines: 3 } as const;
    expect(watchEnd({ ...facts, elapsedMs: 450_000 })).toBe('renewal');
    expect(watchEnd({ ...facts, elapsedMs: 449_750 })).toBe('renewal');
    expect(watchEnd({ ...facts, elapsedMs: 449_749 })).toBe('interruption');
    expect(watchEnd({ ...facts, elapsedMs: 900 })).toBe('interruption');
    expect(watchEnd({ ...facts, elapsedMs: 900, lines: 0 })).toBe('refusal');
    expect(watchEnd({ ...facts, ending: 'failed', elapsedMs: 450_000 })).toBe('interruption');
    expect(watchEnd({ ...facts, ending: 'unopened', elapsedMs: 3, lines: 0 })).toBe('failedAttempt');
    expect(watchEnd({ ...facts, ending: 'counted', elapsedMs: 10 })).toBe('counted');
  });
});

describe('failedEnding', () => {
  it('should take a failure for an open watch once a line came or the server had answered 2xx, else for a failed attempt', () => {
    expect(failedEnding(err('ClusterUnreachable'), 0)).toBe('unopened');
    expect(failedEnding(err('Tls'), 0)).toBe('unopened');
    expect(failedEnding(err('Timeout'), 0)).toBe('unopened');
    expect(failedEnding(err('Transient', { code: 503 }), 0)).toBe('unopened');
    expect(failedEnding(err('Unauthorized', { code: 401 }), 0)).toBe('unopened');
    expect(failedEnding(err('Transient', { code: 200 }), 0)).toBe('failed');
    expect(failedEnding(err('Transient'), 1)).toBe('failed');
    expect(failedEnding(err('Unknown', { code: 500 }), 1)).toBe('failed');
  });
});
