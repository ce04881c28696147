// The engine every provider shares, in virtual time: desired sets in, FleetEvents out, each followed
// by its report in the same stream; a silent cluster is retried on schedule and holds back no one;
// unsubscribing closes clients silently. Reports are per subscription and stop at unsubscribe.
import type { Observable } from 'rxjs';
import { filter, map, tap } from 'rxjs';
import { describe, expect, it } from 'vitest';
// Narrow imports: the engine under test, not the barrels around it.
import { clusterName } from '../../src/core/cluster.js';
import { E } from '../../src/internal/fp.js';
import type { Candidate, Desired } from '../../src/providers/internal/candidates.js';
import { changeReason, diffDesired, skipped } from '../../src/providers/internal/candidates.js';
import type { EngageConfig } from '../../src/providers/internal/engage.js';
import { engageCandidates } from '../../src/providers/internal/engage.js';
import { rescanTicks } from '../../src/providers/internal/poll.js';
import type { ReportInput } from '../../src/providers/internal/report.js';
import { reporting, reportProblems } from '../../src/providers/internal/report.js';
import type { Cluster, FleetEvent } from '../../src/streams/cluster.js';
import { engaged } from '../../src/streams/cluster.js';
import type { ContactProbe } from '../../src/streams/provider-options.js';
import type { ProviderReport } from '../../src/streams/provider-report.js';
import { fakeCluster } from '../../src/testing/fleet.js';
import { testScheduler } from './watch-fixtures.js';
import { describeEv, engineConfig } from './engine-fixtures.js';

interface Built {
  readonly candidate: Candidate;
  readonly clusters: Cluster[];
  readonly closed: string[];
}

/** A candidate whose every build is a new fake cluster that records its close. */
function candidate(name: string, fingerprint: string, closed: string[] = []): Built {
  const clusters: Cluster[] = [];
  const c: Candidate = {
    name: clusterName(name),
    fingerprint,
    build: () => {
      const cluster = fakeCluster(name, undefined, { close: () => closed.push(`${name}@${fingerprint}`) });
      clusters.push(cluster);
      return E.right(cluster);
    },
  };
  return { candidate: c, clusters, closed };
}

function desired(...cs: Candidate[]): Desired {
  return new Map(cs.map((c) => [c.name, c]));
}

const config = engineConfig;

/** The engine as a provider: desired sets in, fleet events and reports out, in one stream. */
function engine(source: Observable<Desired>, cfg: EngageConfig): Observable<FleetEvent> {
  return reporting(cfg, (say) => source.pipe(engageCandidates(cfg, say)));
}

const reportsOf = (events: Observable<FleetEvent>): Observable<ProviderReport> =>
  events.pipe(
    filter((ev): ev is Extract<FleetEvent, { type: 'report' }> => ev.type === 'report'),
    map((ev) => ev.report),
  );

describe('diffDesired', () => {
  it('should find added, changed and removed candidates by name and fingerprint', () => {
    const a = candidate('a', '1').candidate;
    const b = candidate('b', '1').candidate;
    const b2 = candidate('b', '2').candidate;
    const c = candidate('c', '1').candidate;
    const d = diffDesired(desired(a, b), desired(b2, c));
    expect(d.added.map((x) => x.name)).toEqual(['c']);
    expect(d.changed.map((x) => x.name)).toEqual(['b']);
    expect(d.removed).toEqual(['a']);
    expect(diffDesired(desired(a), desired(candidate('a', '1').candidate))).toEqual({ added: [], changed: [], removed: [] });
  });
});

describe('engageCandidates', () => {
  it('should engage added, replace changed (disengage then engage, old client closed) and disengage removed candidates', () => {
    const ts = testScheduler();
    ts.run(({ hot, expectObservable }) => {
      const closed: string[] = [];
      const a1 = candidate('a', '1', closed);
      const a2 = candidate('a', '2', closed);
      const b = candidate('b', '1', closed);
      const reports: ProviderReport[] = [];
      const source = hot<Desired>('-x 9ms y 9ms z 9ms w', {
        x: desired(a1.candidate),
        y: desired(a1.candidate, b.candidate),
        z: desired(a2.candidate, b.candidate),
        w: desired(a2.candidate),
      });
      const out = engine(source, config(ts)).pipe(tap((ev) => ev.type === 'report' && reports.push(ev.report)));
      // Each lifecycle event is followed at once by its report, in the same stream.
      expectObservable(out.pipe(map(describeEv))).toBe('-(aAP) 5ms (bB) 6ms (cCdD) 4ms (eE)', {
        a: '+a',
        A: '!engaged a',
        P: '!discovered 1/1',
        b: '+b',
        B: '!engaged b',
        c: '-a (credentials or server changed)',
        C: '!disengaged a: credentials or server changed',
        d: '+a',
        D: '!reengaged a: credentials or server changed',
        e: '-b (gone)',
        E: '!disengaged b: gone',
      });
      ts.flush();
      expect(closed).toEqual(['a@1', 'b@1']);
      expect(reports.map((r) => `${r.at} ${r.type} ${r.provider}`)).toEqual(['1 engaged test', '1 discovered test', '11 engaged test', '21 disengaged test', '21 reengaged test', '31 disengaged test']);
    });
  });

  it('should report a skipped candidate once per reason, and disengage an engaged cluster that becomes skipped', () => {
    const ts = testScheduler();
    ts.run(({ hot, expectObservable }) => {
      const a = candidate('a', '1');
      const bad = skipped(clusterName('a'), 'kubeconfig is malformed');
      const source = hot<Desired>('-x 9ms y 9ms y 9ms x', { x: desired(a.candidate), y: desired(bad) });
      expectObservable(engine(source, config(ts)).pipe(map(describeEv))).toBe('-(aAP) 5ms (bBS) 15ms (cC)', {
        a: '+a',
        A: '!engaged a',
        P: '!discovered 1/1',
        b: '-a (skipped: kubeconfig is malformed)',
        B: '!disengaged a: skipped: kubeconfig is malformed',
        S: '!skipped a: kubeconfig is malformed',
        c: '+a',
        C: '!engaged a',
      });
    });
  });

  it('should rebuild a cluster whose labels or identity changed, saying so, and leave an unchanged one alone', () => {
    const ts = testScheduler();
    ts.run(({ hot, expectObservable }) => {
      const plain = candidate('a', '1').candidate;
      const relabelled: Candidate = { ...candidate('a', '1').candidate, metaFingerprint: 'region=eu' };
      expect(changeReason(plain, relabelled)).toBe('labels or identity changed');
      expect(changeReason(plain, { ...relabelled, fingerprint: '2' })).toBe('credentials or server changed');
      expect(changeReason(relabelled, { ...relabelled })).toBeUndefined();
      const source = hot<Desired>('-x 9ms y 9ms y', { x: desired(plain), y: desired(relabelled) });
      expectObservable(engine(source, config(ts)).pipe(map(describeEv))).toBe('-(aAP) 5ms (bBcC)', {
        a: '+a',
        A: '!engaged a',
        P: '!discovered 1/1',
        b: '-a (labels or identity changed)',
        B: '!disengaged a: labels or identity changed',
        c: '+a',
        C: '!reengaged a: labels or identity changed',
      });
    });
  });

  it('should engage a fast cluster at once while a silent one times out, is reported waiting and is retried on schedule', () => {
    const ts = testScheduler();
    ts.run(({ hot, cold, expectObservable }) => {
      const slow = candidate('slow', '1');
      const fast = candidate('fast', '1');
      let slowTries = 0;
      // slow: the first two tries never answer (timeout at 5), the third answers after 2 frames.
      const probe = (name: string): Observable<E.Either<string, unknown>> =>
        name === 'slow' ? (++slowTries < 3 ? cold('-') : cold('--(r|)', { r: E.right(true) })) : cold('(r|)', { r: E.right(true) });
      const source = hot<Desired>('-x', { x: desired(slow.candidate, fast.candidate) });
      // slow: tries at 1, 16, 31 (each try times out after 5, then waits 10); answers at 33.
      expectObservable(engine(source, config(ts, (c) => probe(c.name))).pipe(map(describeEv))).toBe('-(fF)-(wP) 11ms w 11ms (sS)', {
        f: '+fast',
        F: '!engaged fast',
        P: '!discovered 1/2',
        w: '!waiting slow: no answer within 5 ms; retrying in 10 ms',
        s: '+slow',
        S: '!engaged slow',
      });
      ts.flush();
      expect(slowTries).toBe(3);
    });
  });

  it('should say its first pass is over once, when the first set is settled, even empty, or when the source fails first', () => {
    const ts = testScheduler();
    ts.run(({ hot, cold, expectObservable }) => {
      const a = candidate('a', '1');
      const silent = candidate('s', '1');
      const probe: ContactProbe = (c) => (c.name === 's' ? cold('-') : cold('(r|)', { r: E.right(true) }));
      // a engages at 1; s is removed by the second set (at 5) before its first probe times out (at 6).
      const sets = hot<Desired>('-x---y', { x: desired(a.candidate, silent.candidate), y: desired(a.candidate) });
      expectObservable(engine(sets, config(ts, probe)).pipe(map(describeEv))).toBe('-(aA)(P)', { a: '+a', A: '!engaged a', P: '!discovered 1/2' });
      // A skipped candidate settles at once.
      const bad = skipped(clusterName('b'), 'no kubeconfig key');
      expectObservable(engine(hot<Desired>('-x', { x: desired(bad) }), config(ts)).pipe(map(describeEv))).toBe('-(BP)', { B: '!skipped b: no kubeconfig key', P: '!discovered 0/1' });
      expectObservable(engine(hot<Desired>('-x-x', { x: desired() }), config(ts)).pipe(map(describeEv))).toBe('-p', { p: '!discovered 0/0' });
      expectObservable(engine(hot<Desired>('--#', undefined, new Error('no route')), config(ts)).pipe(map(describeEv))).toBe('--(ep)', {
        e: '!error : discovery failed: no route',
        p: '!discovered 0/0',
      });
    });
  });

  it('should close the clients it built and emit nothing, not even a report, when unsubscribed', () => {
    const ts = testScheduler();
    ts.run(({ hot, cold, expectObservable }) => {
      const closed: string[] = [];
      const a = candidate('a', '1', closed);
      const waiting = candidate('w', '1', closed);
      const shared: Candidate = { ...candidate('s', '1', closed).candidate, owned: false };
      const source = hot<Desired>('-x', { x: desired(a.candidate, waiting.candidate, shared) });
      const probe: ContactProbe = (c) => (c.name === 'w' ? cold('-') : cold('(r|)', { r: E.right(true) }));
      // w's probe would time out at 6 and be reported waiting: the subscription ended at 3.
      expectObservable(engine(source, config(ts, probe)).pipe(map(describeEv)), '---!').toBe('-(aAsS)', { a: '+a', A: '!engaged a', s: '+s', S: '!engaged s' });
      ts.flush();
      expect(closed).toEqual(['a@1', 'w@1']);
    });
  });
});

describe('reporting', () => {
  it('should give each subscription its own reports, keep those said while subscribing, and say nothing after unsubscribe', () => {
    const ts = testScheduler();
    ts.run(({ cold, expectObservable }) => {
      const scope = { provider: 'p', scheduler: ts };
      const east = fakeCluster('east');
      // Says one report while being subscribed, one per event of its cold source, and one from a
      // timer that unsubscribing does not cancel (6 frames after subscribing).
      const provider = reporting(scope, (say) => {
        say({ type: 'error', reason: 'first look failed' });
        ts.schedule(() => {
          say({ type: 'error', reason: 'late' });
        }, 6);
        // tap says its report before the event it sees goes on: the report comes first.
        return cold<FleetEvent>('--a------b', { a: engaged(east), b: engaged(east) }).pipe(
          tap(() => {
            say({ type: 'waiting', cluster: east.name, reason: 'tick' });
          }),
        );
      });
      const values = { e: '!error : first look failed', l: '!error : late', a: '+east', w: '!waiting east: tick' };
      expectObservable(provider.pipe(map(describeEv)), '^ 3ms !').toBe('e-(wa)', values);
      expectObservable(provider.pipe(map(describeEv)), '--^ 10ms !').toBe('--e-(wa)l--(wa)', values);
    });
  });

  it('should stamp the provider name and the scheduler clock on every report, and say nothing once the provider completed', () => {
    const ts = testScheduler();
    ts.run(({ cold, expectObservable }) => {
      const provider = reporting({ provider: 'file', scheduler: ts }, (say) => {
        ts.schedule(() => {
          say({ type: 'error', reason: 'at 2' });
        }, 2);
        ts.schedule(() => {
          say({ type: 'error', reason: 'after completion' });
        }, 4);
        return cold<FleetEvent>('---|');
      });
      expectObservable(reportsOf(provider)).toBe('--r|', { r: { type: 'error', reason: 'at 2', provider: 'file', at: 2 } });
    });
  });
});

describe('reportProblems', () => {
  it('should say a problem when it appears, not again while it persists, and again when it comes back', () => {
    const said: ReportInput[] = [];
    const problems = reportProblems((r) => said.push(r));
    const missing: ReportInput = { type: 'skipped', candidate: '/etc/fleet', reason: 'kubeconfig path /etc/fleet does not exist' };
    const broken: ReportInput = { type: 'error', reason: 'context "east" is defined in 2 kubeconfig files' };
    problems([missing]);
    problems([missing, broken]);
    problems([missing, broken]);
    problems([broken]);
    problems([missing, broken]);
    expect(said).toEqual([missing, broken, missing]);
  });
});

describe('rescanTicks', () => {
  it('should tick at once, every interval, and once after a burst of change signals goes quiet', () => {
    const ts = testScheduler();
    ts.run(({ hot, expectObservable }) => {
      const kicks = hot('--k-k-k----------', { k: undefined });
      expectObservable(rescanTicks(10, ts, kicks, 3).pipe(map(() => 't')), '^ 20ms !').toBe('t--------tt---------t', { t: 't' });
    });
  });
});
