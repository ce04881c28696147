// The watch state machine in virtual time: list → watch, resume points, backoff and every recovery
// rule of RELIABILITY.md "Watches", driven through a scripted ListerWatcher.
import { takeUntil, timer } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { E } from '../../src/fp/index.js';
import type { ConfigMap, Either, KubeError, ObjectList } from '../../src/index.js';
import { configMaps } from '../../src/index.js';
import { backoffCeiling } from '../../src/streams/backoff.js';
import type { WatchSignalsOptions } from '../../src/streams/index.js';
import { backoffDelay, createStore, defaultBackoff, reflect, signalEvents, watchSignals } from '../../src/streams/index.js';
import { bookmark, cm, east, err, gone, label, line, page, record, scripted, testScheduler } from './watch-fixtures.js';

const base: WatchSignalsOptions = { cluster: east, resource: configMaps, streamingList: false, random: () => 1 };

describe('backoff', () => {
  it('should keep full jitter within [0, ceiling] and cap at 30 s', () => {
    expect(backoffCeiling(defaultBackoff, 0)).toBe(800);
    expect(backoffCeiling(defaultBackoff, 3)).toBe(6_400);
    expect(backoffCeiling(defaultBackoff, 6)).toBe(30_000);
    expect(backoffCeiling(defaultBackoff, 10_000)).toBe(30_000);
    for (const r of [0, 0.25, 0.5, 0.999999]) {
      for (let n = 0; n < 10; n++) {
        const d = backoffDelay(defaultBackoff, n, () => r);
        expect(d).toBeGreaterThanOrEqual(0);
        expect(d).toBeLessThanOrEqual(backoffCeiling(defaultBackoff, n));
      }
    }
    expect(backoffDelay(defaultBackoff, 2, () => 0.5)).toBe(1_600);
  });
});

describe('watch state machine', () => {
  it('should list, then watch from the list resourceVersion with bookmarks, advancing on every event and bookmark', () => {
    const ts = testScheduler();
    ts.run(({ cold, expectObservable, expectSubscriptions }) => {
      const list = cold('-a|', { a: page('10', [cm('x', '9')]) });
      const w1 = cold('---------b--c--|', { b: line('ADDED', cm('y', '11')), c: bookmark('12') });
      const s = scripted([list], [w1]);
      const events = watchSignals(s.source, { ...base, scheduler: ts }).pipe(signalEvents());
      expectObservable(events, '^ 40ms !').toBe('-(sxd) 5ms y', {
        s: { type: 'initStarted' },
        x: { type: 'initApply', object: cm('x', '9') },
        d: { type: 'initDone' },
        y: { type: 'applied', object: cm('y', '11') },
      });
      expectSubscriptions(list.subscriptions).toBe('^-!');
      expectSubscriptions(w1.subscriptions).toBe('--^--------------!');
      ts.flush();
      expect(s.lists).toEqual([{ resourceVersion: '0', limit: 500 }]);
      expect(s.watches[0]).toMatchObject({ resourceVersion: '10', allowWatchBookmarks: true });
      // The server closed cleanly at frame 17: resumed at once, from the bookmark's resourceVersion, no relist.
      expect(s.watches[1]).toMatchObject({ resourceVersion: '12' });
    });
  });

  it('should ask the server for a random timeout between 5 and 10 minutes', () => {
    const ts = testScheduler();
    ts.run(({ cold }) => {
      const s = scripted([cold('(a|)', { a: page('1', []) })], [cold('-')]);
      record(ts, watchSignals(s.source, { ...base, random: () => 0.5, scheduler: ts }), 10);
      ts.flush();
      expect(s.watches[0]?.timeoutSeconds).toBe(450);
    });
  });

  it('should back off 0.8, 1.6, 3.2 s (full jitter at its ceiling) on repeated failures and report it in health', () => {
    const ts = testScheduler();
    ts.run(({ cold, expectSubscriptions }) => {
      const e = err('Transient');
      const fails = [cold('#', undefined, e), cold('#', undefined, e), cold('#', undefined, e), cold('-')];
      const s = scripted([cold('(a|)', { a: page('1', []) })], [...fails]);
      const t = record(ts, watchSignals(s.source, { ...base, scheduler: ts }), 10_000);
      expectSubscriptions(fails[0]?.subscriptions ?? []).toBe('(^!)');
      expectSubscriptions(fails[1]?.subscriptions ?? []).toBe('800ms (^!)');
      expectSubscriptions(fails[2]?.subscriptions ?? []).toBe('2400ms (^!)');
      expectSubscriptions(fails[3]?.subscriptions ?? []).toBe('5600ms ^ 4399ms !');
      ts.flush();
      const backing = t.health.filter((h) => h.state === 'backingOff');
      expect(backing.map((h) => h.nextAttemptAt)).toEqual([800, 2400, 5600]);
      expect(backing[0]?.lastError?.type).toBe('Transient');
      // Each failed at once, before any answer: failed attempts, not interruptions of an open watch.
      expect(t.health.at(-1)).toMatchObject({ state: 'connected', synced: true, reconnects: 3, interruptions: 0, relists: 0 });
    });
  });

  it('should draw each delay from the injected random source (jitter)', () => {
    const ts = testScheduler();
    ts.run(({ cold, expectSubscriptions }) => {
      const e = err('ClusterUnreachable');
      const fails = [cold('#', undefined, e), cold('#', undefined, e), cold('-')];
      const s = scripted([cold('(a|)', { a: page('1', []) })], [...fails]);
      record(ts, watchSignals(s.source, { ...base, random: () => 0.25, scheduler: ts }), 1_000);
      // 0.25 × 800 = 200, then 0.25 × 1600 = 400.
      expectSubscriptions(fails[1]?.subscriptions ?? []).toBe('200ms (^!)');
      expectSubscriptions(fails[2]?.subscriptions ?? []).toBe('600ms ^ 399ms !');
    });
  });

  it('should reset the backoff after two minutes of healthy watching', () => {
    const ts = testScheduler();
    ts.run(({ cold, expectSubscriptions }) => {
      const e = err('Transient');
      const w = [cold('#', undefined, e), cold('3m #', undefined, e), cold('-')];
      const s = scripted([cold('(a|)', { a: page('1', []) })], [...w]);
      record(ts, watchSignals(s.source, { ...base, inactivityTimeoutMs: 600_000, scheduler: ts }), 200_000);
      expectSubscriptions(w[1]?.subscriptions ?? []).toBe('800ms ^ 179999ms !');
      // Back to 800 ms after the healthy period, not 1600 ms.
      expectSubscriptions(w[2]?.subscriptions ?? []).toBe('181600ms ^ 18399ms !');
    });
  });

  it('should restart a silent watch after the inactivity timeout, from the last resourceVersion, without relisting', () => {
    const ts = testScheduler();
    ts.run(({ cold, expectSubscriptions }) => {
      const silent = cold('-a', { a: line('ADDED', cm('a', '11')) });
      const next = cold('-');
      const s = scripted([cold('(a|)', { a: page('10', []) })], [silent, next]);
      const t = record(ts, watchSignals(s.source, { ...base, inactivityTimeoutMs: 90_000, scheduler: ts }), 100_000);
      expectSubscriptions(silent.subscriptions).toBe('^ 90000ms !');
      expectSubscriptions(next.subscriptions).toBe('90001ms 800ms ^ 9198ms !');
      ts.flush();
      expect(s.lists).toHaveLength(1);
      expect(s.watches[1]?.resourceVersion).toBe('11');
      expect(t.health.find((h) => h.state === 'backingOff')?.lastError?.type).toBe('Timeout');
    });
  });

  it('should relist after a 410 ERROR event and, through the store, delete exactly the objects that vanished', () => {
    const ts = testScheduler();
    ts.run(({ cold }) => {
      const l1 = cold('(a|)', { a: page('10', [cm('a', '5'), cm('b', '6')]) });
      const l2 = cold('(a|)', { a: page('20', [cm('b', '15'), cm('c', '16')]) });
      const w1 = cold('--g', { g: gone() });
      // After the relist the server (or a race) sends a DELETED for `a` again: it must not be delivered twice.
      const w2 = cold('--x--y', { x: line('DELETED', cm('a', '21')), y: line('DELETED', cm('b', '22')) });
      const s = scripted([l1, l2], [w1, w2]);
      const store = createStore<ConfigMap>();
      const t: string[] = [];
      watchSignals(s.source, { ...base, scheduler: ts })
        .pipe(signalEvents(), reflect(store, east), takeUntil(timer(2_000, ts)))
        .subscribe((ev) => t.push(`${ts.now()} ${label(ev)}`));
      ts.flush();
      expect(t).toEqual([
        '0 initStarted',
        '0 initApply a',
        '0 initApply b',
        '0 initDone',
        '802 initStarted',
        '802 initApply b',
        '802 initApply c',
        '802 deleted a',
        '802 initDone',
        '807 deleted b',
      ]);
      expect(s.lists.map((o) => o.resourceVersion)).toEqual(['0', '']);
      expect(s.watches.map((o) => o.resourceVersion)).toEqual(['10', '20']);
      expect(store.list().map((o) => o.metadata.name)).toEqual(['c']);
    });
  });

  it('should wait out a 429 (honouring Retry-After) and resume from the same resourceVersion, never relisting', () => {
    const ts = testScheduler();
    ts.run(({ cold, expectSubscriptions }) => {
      const w1 = cold('-a-#', { a: line('ADDED', cm('a', '11')) }, err('TooManyRequests', { code: 429, retryAfterSeconds: 5 }));
      const w2 = cold('-');
      const s = scripted([cold('(a|)', { a: page('10', []) })], [w1, w2]);
      record(ts, watchSignals(s.source, { ...base, scheduler: ts }), 6_000);
      expectSubscriptions(w2.subscriptions).toBe('3ms 5000ms ^ 996ms !');
      ts.flush();
      expect(s.lists).toHaveLength(1);
      expect(s.watches[1]?.resourceVersion).toBe('11');
    });
  });

  it('should wait at most maxRetryAfterMs (30 s by default) when a 429 asks for an hour, and show that wait in health', () => {
    const ts = testScheduler();
    ts.run(({ cold, expectSubscriptions }) => {
      const hour = () => cold('-a-#', { a: line('ADDED', cm('a', '11')) }, err('TooManyRequests', { code: 429, retryAfterSeconds: 3600 }));
      const [w1, w2, v1, v2] = [hour(), cold('-'), hour(), cold('-')];
      const s = scripted([cold('(a|)', { a: page('10', []) })], [w1, w2]);
      const t = record(ts, watchSignals(s.source, { ...base, scheduler: ts }), 40_000);
      expectSubscriptions(w2.subscriptions).toBe('3ms 30000ms ^ 9996ms !');
      const c = scripted([cold('(a|)', { a: page('10', []) })], [v1, v2]);
      record(ts, watchSignals(c.source, { ...base, maxRetryAfterMs: 5_000, scheduler: ts }), 6_000);
      expectSubscriptions(v2.subscriptions).toBe('3ms 5000ms ^ 996ms !');
      ts.flush();
      expect(t.health.find((h) => h.state === 'backingOff')).toMatchObject({ nextAttemptAt: 30_003, lastError: { type: 'TooManyRequests' } });
    });
  });

  it('should retry 401/403 on the slow auth backoff and keep going', () => {
    const ts = testScheduler();
    ts.run(({ cold, expectSubscriptions }) => {
      const lists = [cold<Either<KubeError, ObjectList<ConfigMap>>>('#', undefined, err('Forbidden', { code: 403 })), cold('(a|)', { a: page('3', []) })];
      const w = cold('-');
      const s = scripted([...lists], [w]);
      const t = record(ts, watchSignals(s.source, { ...base, scheduler: ts }), 20_000);
      expectSubscriptions(w.subscriptions).toBe('10000ms ^ 9999ms !');
      ts.flush();
      expect(t.health[1]).toMatchObject({ state: 'backingOff', nextAttemptAt: 10_000, synced: false });
      expect(t.health[1]?.lastError?.type).toBe('Forbidden');
    });
  });

  it('should list again from scratch with an empty resourceVersion when a continue token expires', () => {
    const ts = testScheduler();
    ts.run(({ cold }) => {
      const s = scripted(
        [
          cold('(a|)', { a: page('10', [cm('a', '5')], 'tok') }),
          cold('(a|)', { a: E.left(err('Gone', { code: 410 })) }),
          cold('(a|)', { a: page('12', [cm('a', '5'), cm('b', '11')]) }),
        ],
        [cold('-')],
      );
      const t = record(ts, watchSignals(s.source, { ...base, scheduler: ts }), 10);
      ts.flush();
      expect(t.events).toEqual(['0 initStarted', '0 initApply a', '0 initStarted', '0 initApply a', '0 initApply b', '0 initDone']);
      expect(s.lists).toEqual([{ resourceVersion: '0', limit: 500 }, { limit: 500, continue: 'tok' }, { resourceVersion: '', limit: 500 }]);
      expect(s.watches[0]?.resourceVersion).toBe('12');
    });
  });

  it('should resume after a clean server close at once, without relisting', () => {
    const ts = testScheduler();
    ts.run(({ cold, expectSubscriptions }) => {
      const w1 = cold('-a 5s |', { a: line('MODIFIED', cm('a', '11')) });
      const w2 = cold('-');
      const s = scripted([cold('(a|)', { a: page('10', [cm('a', '5')]) })], [w1, w2]);
      record(ts, watchSignals(s.source, { ...base, scheduler: ts }), 6_000);
      expectSubscriptions(w2.subscriptions).toBe('5002ms ^ 997ms !');
      ts.flush();
      expect(s.lists).toHaveLength(1);
      expect(s.watches[1]?.resourceVersion).toBe('11');
    });
  });

  it('should survive a stream cut mid-line: the bad line restarts the watch from the last resourceVersion', () => {
    const ts = testScheduler();
    ts.run(({ cold }) => {
      const w1 = cold('-ab', { a: line('ADDED', cm('a', '11')), b: '{"type":"ADDED","object":{"metadata":{"na' });
      const w2 = cold('-c', { c: line('ADDED', cm('c', '12')) });
      const s = scripted([cold('(a|)', { a: page('10', []) })], [w1, w2]);
      const t = record(ts, watchSignals(s.source, { ...base, scheduler: ts }), 2_000);
      ts.flush();
      expect(t.events).toEqual(['0 initStarted', '0 initDone', '1 applied a', '803 applied c']);
      expect(s.watches[1]?.resourceVersion).toBe('11');
    });
  });

  it('should stream the initial list (sendInitialEvents) and be synced only at the initial-events-end bookmark', () => {
    const ts = testScheduler();
    ts.run(({ cold }) => {
      const w1 = cold('-ab-c-d', {
        a: line('ADDED', cm('a', '5')),
        b: line('ADDED', cm('b', '6')),
        c: bookmark('10', true),
        d: line('MODIFIED', cm('a', '11')),
      });
      const s = scripted([], [w1]);
      const t = record(ts, watchSignals(s.source, { ...base, streamingList: true, scheduler: ts }), 100);
      ts.flush();
      expect(t.events).toEqual(['1 initStarted', '1 initApply a', '2 initApply b', '4 initDone', '6 applied a']);
      expect(s.watches[0]).toMatchObject({ sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan', resourceVersion: '0', allowWatchBookmarks: true });
      expect(t.health.at(-1)).toMatchObject({ state: 'connected', synced: true });
    });
  });

  it('should fall back to list-then-watch when the server refuses streaming lists', () => {
    const ts = testScheduler();
    ts.run(({ cold }) => {
      const refused = cold('#', undefined, err('Invalid', { code: 422 }));
      const s = scripted([cold('(a|)', { a: page('10', [cm('a', '5')]) })], [refused, cold('-')]);
      const t = record(ts, watchSignals(s.source, { ...base, streamingList: true, scheduler: ts }), 100);
      ts.flush();
      expect(t.events).toEqual(['0 initStarted', '0 initApply a', '0 initDone']);
      expect(s.watches[1]).toMatchObject({ resourceVersion: '10' });
      expect(s.watches[1]?.sendInitialEvents).toBeUndefined();
    });
  });

  it('should strip managedFields and deliver deep-frozen objects', () => {
    const ts = testScheduler();
    ts.run(({ cold }) => {
      const withMf = { ...cm('a', '11'), metadata: { ...cm('a', '11').metadata, managedFields: [{ manager: 'kubectl' }] }, data: { k: 'v' } };
      const s = scripted([cold('(a|)', { a: page('10', []) })], [cold('-a', { a: JSON.stringify({ type: 'ADDED', object: withMf }) })]);
      const seen: ConfigMap[] = [];
      watchSignals(s.source, { ...base, scheduler: ts })
        .pipe(signalEvents(), takeUntil(timer(10, ts)))
        .subscribe((ev) => {
          if (ev.type === 'applied') seen.push(ev.object);
        });
      ts.flush();
      expect(seen[0]?.metadata.managedFields).toBeUndefined();
      expect(Object.isFrozen(seen[0]?.data)).toBe(true);
    });
  });
});
