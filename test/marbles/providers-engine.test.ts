// The engine every provider shares, in virtual time: desired sets in, FleetEvents out; a silent
// cluster is retried on schedule and holds back no one; unsubscribing closes clients silently.
import type { Observable } from 'rxjs';
import { map } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { Cluster, FleetEvent } from '../../src/index.js';
import { clusterName, E } from '../../src/index.js';
import type { Candidate, Desired } from '../../src/providers/internal/candidates.js';
import { diffDesired, skipped } from '../../src/providers/internal/candidates.js';
import type { EngageConfig, Probe } from '../../src/providers/internal/engage.js';
import { engageCandidates } from '../../src/providers/internal/engage.js';
import type { ProviderReport } from '../../src/providers/internal/report.js';
import { reporter } from '../../src/providers/internal/report.js';
import { rescanTicks } from '../../src/providers/internal/poll.js';
import { fakeCluster } from '../../src/testing/index.js';
import { testScheduler } from './watch-fixtures.js';

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

function describeEv(ev: FleetEvent): string {
  return ev.type === 'engaged' ? `+${ev.cluster.name}` : `-${ev.name} (${ev.reason ?? ''})`;
}

function config(scheduler: EngageConfig['scheduler'], reports: ProviderReport[], probe?: Probe): EngageConfig {
  return { say: reporter('test', { report: (r) => reports.push(r), scheduler }), scheduler, probe, probeTimeout: 5, retryInterval: 10, removedReason: 'gone' };
}

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
      const source = hot<Desired>('-x-y-z-----w', {
        x: desired(a1.candidate),
        y: desired(a1.candidate, b.candidate),
        z: desired(a2.candidate, b.candidate),
        w: desired(a2.candidate),
      });
      const out = source.pipe(engageCandidates(config(ts, reports)));
      expectObservable(out.pipe(map(describeEv))).toBe('-a-b-(cd)--e', {
        a: '+a',
        b: '+b',
        c: '-a (credentials or server changed)',
        d: '+a',
        e: '-b (gone)',
      });
      ts.flush();
      expect(closed).toEqual(['a@1', 'b@1']);
      expect(reports.map((r) => `${r.at} ${r.type}`)).toEqual(['1 engaged', '3 engaged', '5 disengaged', '5 reengaged', '11 disengaged']);
    });
  });

  it('should report a skipped candidate once per reason, and disengage an engaged cluster that becomes skipped', () => {
    const ts = testScheduler();
    ts.run(({ hot, expectObservable }) => {
      const a = candidate('a', '1');
      const bad = skipped(clusterName('a'), 'kubeconfig is malformed');
      const reports: ProviderReport[] = [];
      const source = hot<Desired>('-x-y-y-x', { x: desired(a.candidate), y: desired(bad) });
      expectObservable(source.pipe(engageCandidates(config(ts, reports)), map(describeEv))).toBe('-a-b---c', {
        a: '+a',
        b: '-a (skipped: kubeconfig is malformed)',
        c: '+a',
      });
      ts.flush();
      expect(reports.map((r) => `${r.type}${'reason' in r ? ` ${r.reason}` : ''}`)).toEqual([
        'engaged',
        'disengaged skipped: kubeconfig is malformed',
        'skipped kubeconfig is malformed',
        'engaged',
      ]);
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
      const reports: ProviderReport[] = [];
      const source = hot<Desired>('-x', { x: desired(slow.candidate, fast.candidate) });
      // slow: tries at 1, 16, 31 (each try times out after 5, then waits 10); answers at 33.
      expectObservable(source.pipe(engageCandidates(config(ts, reports, (c) => probe(c.name))), map(describeEv))).toBe(
        '-f 31ms s',
        { f: '+fast', s: '+slow' },
      );
      ts.flush();
      expect(reports.filter((r) => r.type === 'waiting').map((r) => r.at)).toEqual([6, 21]);
      expect(slowTries).toBe(3);
    });
  });

  it('should close the clients it built and emit nothing when unsubscribed', () => {
    const ts = testScheduler();
    ts.run(({ hot, cold, expectObservable }) => {
      const closed: string[] = [];
      const a = candidate('a', '1', closed);
      const waiting = candidate('w', '1', closed);
      const shared: Candidate = { ...candidate('s', '1', closed).candidate, owned: false };
      const source = hot<Desired>('-x', { x: desired(a.candidate, waiting.candidate, shared) });
      const probe: Probe = (c) => (c.name === 'w' ? cold('-') : cold('(r|)', { r: E.right(true) }));
      expectObservable(source.pipe(engageCandidates(config(ts, [], probe)), map(describeEv)), '---!').toBe('-(as)', { a: '+a', s: '+s' });
      ts.flush();
      expect(closed).toEqual(['a@1', 'w@1']);
    });
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
