// The order `reconcile` serves ready keys in: oldest first across clusters, and keys that became
// ready at one instant (a take-over, a list replay) round-robin across their clusters, so every
// cluster's first key runs before any cluster's second; idle workers lent to a cluster at its cap.
import { Subject, VirtualTimeScheduler } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { ConfigMap, ReconcileInput } from '../../src/index.js';
import { configMaps } from '../../src/index.js';
import { reconcile } from '../../src/operators/index.js';
import { keyedEvents, outcomeLabel, recorder, takes, toLabels } from '../../src/testing/index.js';
import { testScheduler } from '../support/marbles.js';

const ev = keyedEvents(configMaps);

// A virtual clock that the test moves on in the middle of a synchronous run, as a real clock moves
// while a replay of thousands of keys runs without yielding.
class DriftingScheduler extends VirtualTimeScheduler {
  skew = 0;
  constructor() {
    super();
    // RxJS's schedulers read the clock through the `now` property their constructor sets.
    this.now = (): number => this.frame + this.skew;
  }
}

describe('reconcile: the order of ready keys', () => {
  it('should serve keys that became ready at one instant round-robin across clusters, and a key ready later after them', () => {
    testScheduler().run(({ hot, expectObservable }) => {
      // At 0 a replay readies east's three keys, then west's two; north's key is ready at 9.
      const input = hot<ReconcileInput<ConfigMap>>('(abcde) 2ms n', {
        a: ev.applied('east', 'default/e1'),
        b: ev.applied('east', 'default/e2'),
        c: ev.applied('east', 'default/e3'),
        d: ev.applied('west', 'default/w1'),
        e: ev.applied('west', 'default/w2'),
        n: ev.applied('north', 'default/n1'),
      });
      const out = input.pipe(reconcile(takes(10), { concurrency: 1 }), toLabels());
      expectObservable(out).toBe('10ms a 9ms b 9ms c 9ms d 9ms e 9ms n', {
        a: 'done east/default/e1',
        b: 'done west/default/w1',
        c: 'done east/default/e2',
        d: 'done west/default/w2',
        e: 'done east/default/e3',
        n: 'done north/default/n1',
      });
    });
  });

  it('should count keys readied in one synchronous run as one instant, however far the clock moved during it', () => {
    const scheduler = new DriftingScheduler();
    const input = new Subject<ReconcileInput<ConfigMap>>();
    const labels: string[] = [];
    input.pipe(reconcile(takes(10, undefined, scheduler), { concurrency: 1, scheduler })).subscribe((o) => labels.push(outcomeLabel(o)));
    // One replay, a millisecond per key: nothing else runs in between.
    for (const [cluster, name] of [['east', 'e1'], ['east', 'e2'], ['east', 'e3'], ['west', 'w1'], ['west', 'w2']] as const) {
      input.next(ev.applied(cluster, `default/${name}`));
      scheduler.skew += 1;
    }
    // Keys readied once the scheduler has run in between are a later instant, served after the burst.
    scheduler.schedule(() => {
      input.next(ev.applied('east', 'default/e4'));
      input.next(ev.applied('north', 'default/n1'));
    }, 15);
    scheduler.flush();
    expect(labels).toEqual([
      'done east/default/e1',
      'done west/default/w1',
      'done east/default/e2',
      'done west/default/w2',
      'done east/default/e3',
      'done east/default/e4',
      'done north/default/n1',
    ]);
  });

  it('should give lent workers back: a cluster over its cap takes no worker while another cluster has a key waiting', () => {
    const rec = recorder<ConfigMap>(takes(10));
    testScheduler().run(({ hot, expectObservable }) => {
      // East borrows a third worker at 0; west's three keys at 8 find one idle. At 10, east's three
      // end: east (oldest head) takes its two, west its second; at 18 west's third, as east, over its
      // cap, takes no worker while west waits.
      const input = hot<ReconcileInput<ConfigMap>>('(abcdef) (xyz)', {
        a: ev.applied('east', 'default/e1'),
        b: ev.applied('east', 'default/e2'),
        c: ev.applied('east', 'default/e3'),
        d: ev.applied('east', 'default/e4'),
        e: ev.applied('east', 'default/e5'),
        f: ev.applied('east', 'default/e6'),
        x: ev.applied('west', 'default/w1'),
        y: ev.applied('west', 'default/w2'),
        z: ev.applied('west', 'default/w3'),
      });
      expectObservable(input.pipe(reconcile(rec.reconciler, { concurrency: 4, perClusterConcurrency: 2 }), toLabels()), '^ 60ms !');
    });
    const starts = (cluster: string) => rec.calls.filter((c) => c.key.cluster === cluster).map((c) => c.startedAt);
    expect(starts('east')).toEqual([0, 0, 0, 10, 10, 20]);
    expect(starts('west')).toEqual([8, 10, 18]);
  });

  it('should serve keys across clusters in the order they became ready: a wave that reaches the clusters one after another', () => {
    testScheduler().run(({ hot, expectObservable }) => {
      // east's three keys become ready at 0, west's at 2: first come, first served (round-robin
      // lanes would have run west's first key second, leaving east's last key waiting longest).
      const input = hot<ReconcileInput<ConfigMap>>('(abc) (def)', {
        a: ev.applied('east', 'default/e1'),
        b: ev.applied('east', 'default/e2'),
        c: ev.applied('east', 'default/e3'),
        d: ev.applied('west', 'default/w1'),
        e: ev.applied('west', 'default/w2'),
        f: ev.applied('west', 'default/w3'),
      });
      const out = input.pipe(reconcile(takes(10), { concurrency: 1 }), toLabels());
      expectObservable(out).toBe('10ms a 9ms b 9ms c 9ms d 9ms e 9ms f', {
        a: 'done east/default/e1',
        b: 'done east/default/e2',
        c: 'done east/default/e3',
        d: 'done west/default/w1',
        e: 'done west/default/w2',
        f: 'done west/default/w3',
      });
    });
  });

  it('should give a quiet cluster the next free worker while a noisy cluster with an older backlog is at its cap', () => {
    const rec = recorder<ConfigMap>(takes(10));
    testScheduler().run(({ hot, expectObservable }) => {
      // Four workers, at most two for one cluster (a hard cap): the noisy backlog is older, but at its
      // cap it sits out, and the quiet key starts on a free worker the moment it arrives.
      const input = hot<ReconcileInput<ConfigMap>>('(abcdef) 3ms q', {
        a: ev.applied('noisy', 'default/n1'),
        b: ev.applied('noisy', 'default/n2'),
        c: ev.applied('noisy', 'default/n3'),
        d: ev.applied('noisy', 'default/n4'),
        e: ev.applied('noisy', 'default/n5'),
        f: ev.applied('noisy', 'default/n6'),
        q: ev.applied('quiet', 'default/q1'),
      });
      expectObservable(input.pipe(reconcile(rec.reconciler, { concurrency: 4, perClusterConcurrency: 2, lendIdleWorkers: false }), toLabels()), '^ 40ms !');
    });
    const starts = (cluster: string) => rec.calls.filter((c) => c.key.cluster === cluster).map((c) => c.startedAt);
    expect(starts('quiet')).toEqual([11]); // the group takes 8 frames, then 3ms: it arrives at 11
    expect(starts('noisy')).toEqual([0, 0, 10, 10, 20, 20]);
  });
});
