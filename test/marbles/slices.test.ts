// Bursts handed out a slice per turn, in virtual time: the queue itself, the fleet's engagements
// (thousands engaged at once reach the pipelines `engagementsPerTurn` per turn) and a shared watch's
// end of listing (its clusters' listings end a slice per turn, none overtaken by its own events).
import { NEVER, of } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { ClusterClient } from '../../src/client/index.js';
import type { ConfigMap } from '../../src/index.js';
import { clusterName } from '../../src/index.js';
import type { Cluster, FleetEvent, WatchEvent } from '../../src/streams/index.js';
import { createFleet, disengaged, engaged } from '../../src/streams/index.js';
import { slices } from '../../src/streams/slices.js';
import { splitCache } from '../../src/streams/split-cache.js';
import { byNamespace, cm, initApply, testScheduler } from './watch-fixtures.js';

const cluster = (name: string): Cluster => ({ name: clusterName(name), client: {} as unknown as ClusterClient });

describe('slices', () => {
  it('delivers perTurn items now and the rest a slice per scheduled turn; take() delivers one out of turn, drop() never', () => {
    const ts = testScheduler();
    ts.run(() => {
      const seen: string[] = [];
      let turn = 0;
      const q = slices<string>(2, ts, (item) => seen.push(`${turn} ${item}`));
      for (const item of ['a', 'b', 'c', 'd', 'e', 'f']) q.push(item);
      expect(seen).toEqual(['0 a', '0 b']);
      expect(q.take('e')).toBe(true);
      expect(q.drop('d')).toBe(true);
      expect(q.take('zz')).toBe(false);
      turn = 1;
      ts.flush();
      expect(seen).toEqual(['0 a', '0 b', '0 e', '1 c', '1 f']);
    });
  });

  it('ends a turn once its time budget is used, whatever its count allows: costly items spread over more turns', () => {
    const ts = testScheduler();
    ts.run(() => {
      // Each delivery costs 4 ms of the clock the queue reads (virtual time stands still in a turn).
      let spent = 0;
      // Numbers the scheduled turns as they run.
      let turn = 0;
      const clock = {
        now: () => ts.now() + spent,
        schedule: (work: () => void, delay?: number) =>
          ts.schedule(() => {
            turn++;
            work();
          }, delay),
      } as unknown as typeof ts;
      const seen: string[] = [];
      const q = slices<string>(100, clock, (item) => {
        seen.push(`${turn} ${item}`);
        spent += 4;
      }, 10);
      for (const item of ['a', 'b', 'c', 'd', 'e', 'f', 'g']) q.push(item);
      // 0, 4 and 8 ms into the turn: three items, then the budget of 10 ms is used.
      expect(seen).toEqual(['0 a', '0 b', '0 c']);
      ts.flush();
      expect(seen).toEqual(['0 a', '0 b', '0 c', '1 d', '1 e', '1 f', '2 g']);
    });
  });

  it('gives a turn its full count again once the queue is empty, and flush() empties it at once', () => {
    const ts = testScheduler();
    ts.run(() => {
      const seen: string[] = [];
      const q = slices<string>(1, ts, (item) => seen.push(item));
      q.push('a');
      q.push('b');
      q.push('c');
      q.flush();
      expect(seen).toEqual(['a', 'b', 'c']);
      ts.flush();
      q.push('d'); // a new turn: delivered at once
      expect(seen).toEqual(['a', 'b', 'c', 'd']);
    });
  });
});

describe('fleet engagements in slices', () => {
  it('hands a burst of engagements to the pipelines two per turn; fleet.get knows them all at once; one disengaged before its turn never arrives', () => {
    const ts = testScheduler();
    ts.run(({ cold }) => {
      const names = ['c0', 'c1', 'c2', 'c3', 'c4'];
      const events: Record<string, FleetEvent> = Object.fromEntries(names.map((n, i) => [String(i), engaged(cluster(n))]));
      const provider = cold('(01234x)', { ...events, x: disengaged(clusterName('c3')) });
      const fleet = createFleet(provider, { engagementsPerTurn: 2, scheduler: ts });
      const seen: string[] = [];
      fleet.engagements.subscribe(({ cluster: c }) => seen.push(`${ts.now()} ${c.name}`));
      ts.schedule(() => {
        // After the provider's burst, before the next turn: two delivered, all but c3 known.
        expect(seen).toEqual(['0 c0', '0 c1']);
        expect(fleet.clusters().map((c) => c.name)).toEqual(['c0', 'c1', 'c2', 'c4']);
        // A late subscriber gets the delivered ones at once and each other one exactly once, later.
        fleet.engagements.subscribe(({ cluster: c }) => seen.push(`late ${c.name}`));
        expect(seen).toEqual(['0 c0', '0 c1', 'late c0', 'late c1']);
      }, 0);
      ts.flush();
      expect(seen).toEqual(['0 c0', '0 c1', 'late c0', 'late c1', '0 c2', 'late c2', '0 c4', 'late c4']);
    });
  });

  it('delivers a small fleet synchronously, as before', () => {
    const fleet = createFleet(of(engaged(cluster('east')), engaged(cluster('west'))));
    const seen: string[] = [];
    fleet.engagements.subscribe(({ cluster: c }) => seen.push(c.name));
    expect(seen).toEqual(['east', 'west']);
  });
});

describe('a shared watch ends its clusters’ listings in slices', () => {
  it('ends two listings per turn; a cluster’s own live event and a new view end its listing first', () => {
    const ts = testScheduler();
    ts.run(({ cold }) => {
      // Cold: its frame-2 burst is scheduled when the first view subscribes, before the check below.
      const shared = cold<WatchEvent<ConfigMap>>('--(sxyzvwdu)', {
        s: { type: 'initStarted' },
        x: initApply(cm('one', '1', 'a')),
        y: initApply(cm('one', '2', 'b')),
        z: initApply(cm('one', '3', 'c')),
        v: initApply(cm('one', '4', 'd')),
        w: initApply(cm('one', '5', 'e')),
        d: { type: 'initDone' },
        u: { type: 'applied', object: cm('one', '6', 'd') },
      });
      const split = splitCache({ events: shared, health: NEVER, scopeOf: byNamespace, listingsPerTurn: 2, scheduler: ts });
      const seen: string[] = [];
      for (const scope of ['a', 'b', 'c', 'd']) {
        split.view(clusterName(scope), clusterName(scope)).events.subscribe((ev) => {
          if (ev.type === 'initDone' || ev.type === 'applied') seen.push(`${scope} ${ev.type}`);
        });
      }
      ts.schedule(() => {
        // a and b in the first turn; d's change ended d's listing before it; c and e wait.
        expect(seen).toEqual(['a initDone', 'b initDone', 'd initDone', 'd applied']);
        // A view of e, subscribed now, gets its whole listing at once.
        split.view(clusterName('e'), clusterName('e')).events.subscribe((ev) => seen.push(`e ${ev.type}`));
        expect(seen.slice(4)).toEqual(['e initStarted', 'e initApply', 'e initDone']);
      }, 2);
      ts.flush();
      expect(seen.slice(7)).toEqual(['c initDone']);
    });
  });
});
