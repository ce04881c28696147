// A split cache that keeps only the clusters it accepts (a sharding replica's own): the objects of
// the others are dropped as they arrive, a cluster no longer accepted is released, and a cluster
// accepted after some of its objects were dropped gets them by a relist of the shared watch; its
// listing ends with them, never empty first.
import { describe, expect, it } from 'vitest';
import { NEVER } from 'rxjs';
import type { ConfigMap } from '../../src/index.js';
import { clusterName } from '../../src/index.js';
import type { ClusterName } from '../../src/index.js';
import { splitCache } from '../../src/streams/split-cache.js';
import { applied, byNamespace, cm, initDone as d, initApply, initStarted as s, testScheduler } from './watch-fixtures.js';

const a = clusterName('a');
const b = clusterName('b');
const a1 = cm('one', '1', 'a');
const b1 = cm('one', '2', 'b');
const b2 = cm('two', '3', 'b');

describe('split cache narrowed to the clusters it accepts', () => {
  it('stores nothing of a cluster it does not accept, and releases a cluster it stops accepting', () => {
    const ts = testScheduler();
    const seen: { readonly frame: string; readonly a: readonly ConfigMap[]; readonly b: readonly ConfigMap[] }[] = [];
    ts.run(({ cold, expectObservable }) => {
      const accepted = new Set<ClusterName>([a, b]);
      // The listing at 1 (a group spans its characters: 1 to 6), b2 applied at 9.
      const shared = cold('-(sxyd)--u', { s, d, x: initApply(a1), y: initApply(b1), u: applied(b2) });
      const split = splitCache({ events: shared, health: NEVER, scopeOf: byNamespace, accepts: (c) => accepted.has(c) });
      expectObservable(split.view(a, a).events, '^--------------!').toBe('-(sxd)', { s, d, x: initApply(a1) });
      const look = (frame: string): void => {
        seen.push({ frame, a: split.view(a, a).store.list(), b: split.view(b, b).store.list() });
      };
      cold('--l-r-------l').subscribe((v) => {
        if (v === 'r') {
          accepted.delete(b);
          split.rescope();
        }
        look(v);
      });
    });
    // b kept while accepted (no view of it), released at the rescope, its later object dropped as it came.
    expect(seen).toEqual([
      { frame: 'l', a: [a1], b: [b1] },
      { frame: 'r', a: [a1], b: [] },
      { frame: 'l', a: [a1], b: [] },
    ]);
  });

  it('relists for a cluster accepted after its objects were dropped; its listing ends with them, never empty first', () => {
    const ts = testScheduler();
    ts.run(({ cold, expectObservable }) => {
      const accepted = new Set<ClusterName>([a]);
      // Lists at 2 (a group spans its characters: 2 to 8).
      const shared = cold('--(sxyzd)', { s, d, x: initApply(a1), y: initApply(b1), z: initApply(b2) });
      const split = splitCache({ events: shared, health: NEVER, scopeOf: byNamespace, accepts: (c) => accepted.has(c) });
      const values = { s, d, x: initApply(a1), y: initApply(b1), z: initApply(b2) };
      cold('----------r').subscribe(() => {
        accepted.add(b);
        split.rescope();
      });
      // The relist (subscribed at 10) lists at 12: a lists again; b, viewed from 11, gets its objects then, nothing before.
      expectObservable(split.view(a, a).events, '^-------------------!').toBe('--(sxd)-----(sxd)', values);
      expectObservable(split.view(b, b).events, '-----------^--------!').toBe('------------(syzd)', values);
    });
  });

  it('does not relist for a newly accepted cluster none of whose objects was dropped', () => {
    const ts = testScheduler();
    ts.run(({ cold, expectObservable, expectSubscriptions }) => {
      const accepted = new Set<ClusterName>([a]);
      const shared = cold('--(sxd)', { s, d, x: initApply(a1) });
      const split = splitCache({ events: shared, health: NEVER, scopeOf: byNamespace, accepts: (c) => accepted.has(c) });
      cold('---r').subscribe(() => {
        accepted.add(b);
        split.rescope();
      });
      expectObservable(split.view(a, a).events, '^-------!').toBe('--(sxd)', { s, d, x: initApply(a1) });
      expectObservable(split.view(b, b).events, '----^---!').toBe('----(sd)', { s, d });
      expectSubscriptions(shared.subscriptions).toBe('^-------!');
    });
  });
});
