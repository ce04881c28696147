// Lists paced per server, in virtual time: at most `listsPerServer` lists (plain or streaming) at
// once per server origin, a place held until the list is over (the last page, a streaming list's
// end bookmark, a failure, an unsubscribe), a waiting watch `listing` and not synced; and the one
// limiter under it (FIFO, early release, a waiting subscriber leaving).
import type { Observable, SchedulerLike } from 'rxjs';
import { defer, NEVER, of, Subject, takeUntil, timer } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { ClusterClient } from '../../src/client/index.js';
import type { ConfigMap, Either, KubeError, ObjectList } from '../../src/index.js';
import { clusterName, configMaps } from '../../src/index.js';
import { limiter } from '../../src/streams/concurrency-limit.js';
import type { Cluster, ListTurn, WatchSignalsOptions, WatchSignal, ListerWatcher } from '../../src/streams/index.js';
import { createInformers, listPacer, watchSignals } from '../../src/streams/index.js';
import { bookmark, cm, east, err, line, page, testScheduler } from './watch-fixtures.js';

const base: WatchSignalsOptions = { cluster: east, resource: configMaps, streamingList: false, random: () => 1 };

/** A source whose requests are timed when sent (subscribed: `frame name list|watch`) and answered by `answer`. */
function timedSource(
  now: () => number,
  calls: string[],
  name: string,
  answer: { list?: () => Observable<Either<KubeError, ObjectList<ConfigMap>>>; watch?: () => Observable<string> },
): ListerWatcher<ConfigMap> {
  return {
    list: () =>
      defer(() => {
        calls.push(`${now()} ${name} list`);
        return answer.list?.() ?? NEVER;
      }),
    watch: () =>
      defer(() => {
        calls.push(`${now()} ${name} watch`);
        return answer.watch?.() ?? NEVER;
      }),
  };
}

/** When each health snapshot said synced, as `frame state synced`. */
function healthOf(now: () => number, signals: Observable<WatchSignal<ConfigMap>>, out: string[], untilMs: number, sched: SchedulerLike): void {
  signals.pipe(takeUntil(timer(untilMs, sched))).subscribe((s) => {
    if (s.type === 'health') out.push(`${now()} ${s.health.state} ${String(s.health.synced)}`);
  });
}

describe('limiter', () => {
  it('runs in the order asked, gives a place back at release() before the run ends, and forgets a subscriber that left while waiting', () => {
    const places = limiter(1);
    const seen: string[] = [];
    const releases: (() => void)[] = [];
    const runOf = (name: string) =>
      places.run((release) => {
        seen.push(`start ${name}`);
        releases.push(release);
        return NEVER;
      });
    const a = runOf('a').subscribe();
    const b = runOf('b').subscribe();
    runOf('c').subscribe();
    expect([places.running, places.waiting]).toEqual([1, 2]);
    b.unsubscribe();
    releases[0]?.();
    releases[0]?.(); // a second release gives nothing back twice
    expect(seen).toEqual(['start a', 'start c']);
    expect([places.running, places.waiting]).toEqual([1, 0]);
    a.unsubscribe(); // a already gave its place back
    expect(places.running).toBe(1);
  });

  it('starts thousands of runs that end synchronously without deep recursion, then says it is idle', () => {
    let idle = 0;
    const places = limiter(2, () => idle++);
    let completed = 0;
    for (let i = 0; i < 5_000; i++) places.run(() => of(i)).subscribe({ complete: () => completed++ });
    expect(completed).toBe(5_000);
    expect([places.running, places.waiting]).toEqual([0, 0]);
    expect(idle).toBeGreaterThan(0);
  });
});

describe('lists paced per server', () => {
  it('lets two of three watches list at once: the third lists when the first list is over, and stays listing, not synced, meanwhile', () => {
    const ts = testScheduler();
    ts.run(({ cold }) => {
      const calls: string[] = [];
      const turn = listPacer(2).turn('https://hub.example:6443');
      const healths: string[] = [];
      for (const [name, listFrames] of [['a', '10ms (a|)'], ['b', '30ms (a|)'], ['c', '10ms (a|)']] as const) {
        const source = timedSource(() => ts.now(), calls, name, { list: () => cold(listFrames, { a: page('5', [cm(name, '4')]) }), watch: () => cold('-') });
        const signals = watchSignals(source, { ...base, listTurn: turn, scheduler: ts });
        if (name === 'c') healthOf(() => ts.now(), signals, healths, 100, ts);
        else signals.pipe(takeUntil(timer(100, ts))).subscribe();
      }
      ts.flush();
      // The place is given back before the list's end reaches its own watch: c's list goes out first.
      expect(calls).toEqual(['0 a list', '0 b list', '10 c list', '10 a watch', '20 c watch', '30 b watch']);
      // c said `listing` from the start while it waited for a's place, and synced only after its own list.
      expect(healths).toEqual(['0 listing false', '20 connected true']);
    });
  });

  it('holds a streaming list’s place until its end bookmark, not for the rest of the watch', () => {
    const ts = testScheduler();
    ts.run(({ cold }) => {
      const calls: string[] = [];
      const turn = listPacer(1).turn('https://hub.example:6443');
      const stream = (name: string) => cold('5ms a 4ms b 50ms c', { a: line('ADDED', cm(name, '3')), b: bookmark('4', true), c: line('MODIFIED', cm(name, '6')) });
      for (const name of ['a', 'b', 'c']) {
        const source = timedSource(() => ts.now(), calls, name, { watch: () => stream(name) });
        watchSignals(source, { ...base, streamingList: true, listTurn: turn, scheduler: ts }).pipe(takeUntil(timer(200, ts))).subscribe();
      }
      ts.flush();
      expect(calls).toEqual(['0 a watch', '10 b watch', '20 c watch']);
    });
  });

  it('gives the place back when a list fails (the watch backs off outside it) and when a listing watch is unsubscribed', () => {
    const ts = testScheduler();
    ts.run(({ cold }) => {
      const calls: string[] = [];
      const turn = listPacer(1).turn('https://hub.example:6443');
      const failing = timedSource(() => ts.now(), calls, 'a', { list: () => cold('5ms #', undefined, err('Transient', { code: 503 })) });
      const stuck = timedSource(() => ts.now(), calls, 'b', { list: () => cold('-') });
      const later = timedSource(() => ts.now(), calls, 'c', { list: () => cold('(a|)', { a: page('5', []) }) });
      watchSignals(failing, { ...base, listTurn: turn, scheduler: ts, backoff: { initialMs: 1_000 } }).pipe(takeUntil(timer(100, ts))).subscribe();
      const b = new Subject<void>();
      watchSignals(stuck, { ...base, listTurn: turn, scheduler: ts }).pipe(takeUntil(b)).subscribe();
      watchSignals(later, { ...base, listTurn: turn, scheduler: ts }).pipe(takeUntil(timer(100, ts))).subscribe();
      ts.schedule(() => {
        b.next();
      }, 30);
      ts.flush();
      expect(calls).toEqual(['0 a list', '5 b list', '30 c list', '30 c watch']);
    });
  });

  it('shares one bound among the clusters of one origin (kcp workspaces behind one server), not across servers', () => {
    const pacer = listPacer(1);
    const started: string[] = [];
    const run = (turn: ListTurn, name: string) =>
      turn(() => {
        started.push(name);
        return NEVER;
      }).subscribe();
    run(pacer.turn('https://kcp.example:6443/clusters/root:a'), 'a');
    run(pacer.turn('https://kcp.example:6443/clusters/root:b'), 'b');
    run(pacer.turn('https://other.example:6443'), 'other');
    expect(started).toEqual(['a', 'other']);
    expect(pacer.load('https://kcp.example:6443/clusters/root:zzz')).toEqual({ running: 1, waiting: 1 });
  });

  it('refuses a bound that is not an integer ≥ 1', () => {
    expect(() => listPacer(0)).toThrow(/listsPerServer must be an integer ≥ 1, got 0/);
    expect(() => createInformers({ listsPerServer: 1.5 })).toThrow(/listsPerServer/);
  });

  it('paces the informers of one registry across its clusters on one server (listsPerServer)', () => {
    const ts = testScheduler();
    ts.run(({ cold }) => {
      const calls: string[] = [];
      const on = (name: string, server: string): Cluster => ({ name: clusterName(name), client: { server } as unknown as ClusterClient });
      const informers = createInformers({
        listsPerServer: 1,
        streamingList: false,
        scheduler: ts,
        listerWatcherFor: <T,>(c: Cluster) =>
          timedSource(() => ts.now(), calls, c.name, { list: () => cold('10ms (a|)', { a: page('5', []) }), watch: () => cold('-') }) as unknown as ListerWatcher<T & ConfigMap>,
      });
      for (const c of [on('ws-a', 'https://kcp:6443/clusters/a'), on('ws-b', 'https://kcp:6443/clusters/b')]) {
        informers.informer(c, configMaps).events.pipe(takeUntil(timer(100, ts))).subscribe();
      }
      ts.flush();
      expect(calls).toEqual(['0 ws-a list', '10 ws-b list', '10 ws-a watch', '20 ws-b watch']);
    });
  });
});
