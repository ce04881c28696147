// The work queue's observer hooks in virtual time: what counts as an add and a retry, the ready →
// start latency, and the probe that metrics read when scraped.
import { describe, expect, it } from 'vitest';
import type { ClusterName, ConfigMap, ReconcileInput } from '../../src/index.js';
import { configMaps, error } from '../../src/index.js';
import type { QueueObserver, QueueProbe, RunningWork } from '../../src/operators/index.js';
import { reconcile } from '../../src/operators/index.js';
import { keyedEvents, scripted } from '../../src/testing/index.js';
import { testScheduler } from '../support/marbles.js';

const ev = keyedEvents(configMaps);

/** An observer that writes down every hook call with its frame. */
function journal(now: () => number): { readonly observer: QueueObserver; readonly calls: string[]; probe: () => QueueProbe | undefined } {
  const calls: string[] = [];
  let probe: QueueProbe | undefined;
  return {
    calls,
    probe: () => probe,
    observer: {
      added: (c: ClusterName) => calls.push(`${now()} added ${c}`),
      retried: (c: ClusterName) => calls.push(`${now()} retried ${c}`),
      started: (c: ClusterName, queuedMs: number) => calls.push(`${now()} started ${c} after ${queuedMs}`),
      attach: (p: QueueProbe) => {
        probe = p;
        calls.push(`${now()} attach`);
      },
      detach: (p: QueueProbe) => calls.push(`${now()} detach ${p === probe}`),
    },
  };
}

describe('reconcile observer hooks', () => {
  it('should report adds, retries and ready → start latency, collapse repeats, and probe running work', () => {
    const ts = testScheduler();
    const j = journal(() => ts.now());
    // Everything takes 10 frames, but `fails` fails at once on its first attempt.
    const fn = scripted<ConfigMap>((req, ctx) => (req.key.name === 'fails' && ctx.attempt === 1 ? { frames: 0, action: error('boom') } : { frames: 10 }));
    let probed: RunningWork | undefined;
    ts.run(({ hot, expectObservable }) => {
      // Frames: a and b at 0 (the group takes 4 frames), a again at 4 and 6, fails at 12.
      const input = hot<ReconcileInput<ConfigMap>>('(ab) a 1ms a 5ms f', {
        a: ev.applied('east', 'default/a'),
        b: ev.applied('east', 'default/b'),
        f: ev.applied('west', 'default/fails'),
      });
      const out = input.pipe(reconcile(fn, { concurrency: 1, backoff: { initialMs: 5 }, observer: j.observer }));
      expectObservable(out, '^ 60ms !');
      ts.schedule(() => (probed = j.probe()?.running()), 27);
    });
    expect(j.calls).toEqual([
      '0 attach',
      '0 added east',
      '0 started east after 0',
      '0 added east', // b, waiting for the one worker
      '4 added east', // a changed while running: it will run once more
      // (a's change at 6 collapses into that rerun: no add)
      '10 started east after 10', // b; a's rerun is queued now, already counted at 4
      '12 added west',
      // b ends: a's rerun has been ready since 10, before fails (12): the older key goes first.
      '20 started east after 10',
      '30 started west after 18',
      '30 retried west', // fails fails at once and is retried
      '35 added west', // its retry came due
      '35 started west after 0',
      '61 detach true',
    ]);
    // At 27, a's rerun had been running since 20.
    expect(probed).toEqual({ count: 1, unfinishedMs: 7, longestMs: 7 });
    expect(j.probe()).toMatchObject({ concurrency: 1, perClusterConcurrency: 1 });
  });

  it('should take the running work of a cluster that left out of the probe', () => {
    const ts = testScheduler();
    const j = journal(() => ts.now());
    const fn = scripted<ConfigMap>(() => ({ frames: 100 }));
    const seen: RunningWork[] = [];
    ts.run(({ hot, expectObservable }) => {
      const input = hot<ReconcileInput<ConfigMap>>('(ab) 5ms x', { a: ev.applied('gone', 'default/a'), b: ev.applied('stays', 'default/b'), x: ev.removed('gone') });
      expectObservable(input.pipe(reconcile(fn, { observer: j.observer })), '^ 20ms !');
      for (const at of [5, 15]) ts.schedule(() => seen.push(j.probe()?.running() ?? { count: -1, unfinishedMs: -1, longestMs: -1 }), at);
    });
    expect(seen).toEqual([
      { count: 2, unfinishedMs: 10, longestMs: 5 },
      { count: 1, unfinishedMs: 15, longestMs: 15 },
    ]);
  });
});
