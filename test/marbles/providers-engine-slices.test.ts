// The engine builds a large burst of added candidates a slice per turn (200), so that kcp's listing
// of 10,000 bound workspaces does not hold the event loop for the seconds their clients take to
// build; a small burst is built at once. Each queued candidate is built as it is desired when its
// turn comes: removed meanwhile, never; changed meanwhile, once, as changed.
import { Subject } from 'rxjs';
import type { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import { clusterName } from '../../src/core/cluster.js';
import { E } from '../../src/internal/fp.js';
import type { Candidate, Desired } from '../../src/providers/internal/candidates.js';
import { engageCandidates } from '../../src/providers/internal/engage.js';
import { reporting } from '../../src/providers/internal/report.js';
import type { FleetEvent } from '../../src/streams/cluster.js';
import { fakeCluster } from '../../src/testing/fleet.js';
import { testScheduler } from './watch-fixtures.js';
import { describeEv, engineConfig } from './engine-fixtures.js';

const built: string[] = [];
const candidate = (name: string, fingerprint = '1'): Candidate => ({
  name: clusterName(name),
  fingerprint,
  build: () => {
    built.push(`${name}@${fingerprint}`);
    return E.right(fakeCluster(name));
  },
});
const desired = (cs: readonly Candidate[]): Desired => new Map(cs.map((c) => [c.name, c]));
const names = (n: number): string[] => Array.from({ length: n }, (_, i) => `c${i}`);

/** An engine on a virtual clock fed the desired sets pushed to `sets`, every fleet event described in `events`; nothing built yet. */
function engine(): { ts: TestScheduler; sets: Subject<Desired>; events: string[] } {
  built.length = 0;
  const ts = testScheduler();
  const sets = new Subject<Desired>();
  const events: string[] = [];
  const cfg = engineConfig(ts);
  reporting(cfg, (say) => sets.pipe(engageCandidates(cfg, say))).subscribe((ev: FleetEvent) => events.push(describeEv(ev)));
  return { ts, sets, events };
}

describe('engageCandidates with a burst of candidates', () => {
  it('builds and engages 200 per turn, says discovered once all are engaged, and builds a small burst at once', () => {
    const { ts, sets, events } = engine();
    const engagedNow = (): number => events.filter((e) => e.startsWith('+')).length;

    sets.next(desired(names(450).map((n) => candidate(n))));
    expect([engagedNow(), built.length]).toEqual([200, 200]);
    ts.flush();
    expect([engagedNow(), built.length]).toEqual([450, 450]);
    expect(events.filter((e) => e.startsWith('!discovered'))).toEqual(['!discovered 450/450']);

    sets.next(desired([...names(450), 'x', 'y'].map((n) => candidate(n))));
    expect(events.slice(-4)).toEqual(['+x', '!engaged x', '+y', '!engaged y']);
  });

  it('never builds a queued candidate removed before its turn, and builds one changed before its turn once, as changed', () => {
    const { ts, sets, events } = engine();

    const all = names(300);
    sets.next(desired(all.map((n) => candidate(n))));
    // c299 leaves and c298 changes while both still wait for their turn.
    sets.next(desired(all.slice(0, 299).map((n) => candidate(n, n === 'c298' ? '2' : '1'))));
    ts.flush();
    expect(built.filter((b) => b.startsWith('c299') || b.startsWith('c298'))).toEqual(['c298@2']);
    expect(events.filter((e) => e.startsWith('+')).length).toBe(299);
    expect(events.filter((e) => e.startsWith('-'))).toEqual([]);
  });
});
