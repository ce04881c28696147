// The worked example of docs/testing.md. The region below is copied into the guide (with the
// published import paths), and the last test fails when the two drift apart.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
// #region guide
import type { Observable } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import type { ConfigMap, ReconcileInput } from '../../src/index.js';
import { configMaps, error } from '../../src/index.js';
import type { Outcome } from '../../src/operators/index.js';
import { generationChanged, reconcile } from '../../src/operators/index.js';
import { keyedEvents, recorder, scripted, toLabels } from '../../src/testing/index.js';

// The pipeline under test: reconcile ConfigMaps when their generation changes. The first
// attempt of each key fails (say, a conflict); the retry takes 10 ms and succeeds.
function pipeline(events: Observable<ReconcileInput<ConfigMap>>, fn = flaky()): Observable<Outcome> {
  return events.pipe(generationChanged(), reconcile(fn, { concurrency: 2, backoff: { initialMs: 20 } }));
}
function flaky() {
  return scripted<ConfigMap>((_req, ctx) => (ctx.attempt === 1 ? { frames: 0, action: error('conflict') } : { frames: 10 }));
}

const ev = keyedEvents(configMaps);

describe('my ConfigMap controller', () => {
  it('retries a failed reconcile after the backoff and ignores status-only updates', () => {
    new TestScheduler((actual, expected) => {
      expect(actual).toEqual(expected);
    }).run(({ hot, expectObservable }) => {
      const events = hot<ReconcileInput<ConfigMap>>('a 4ms s', {
        a: ev.applied('east', 'default/web', { metadata: { generation: 1 } }),
        s: ev.applied('east', 'default/web', { metadata: { generation: 1, resourceVersion: '7' } }),
      });
      // 0: attempt 1 fails, retry in 20. 20: attempt 2 starts, done at 30. `s` is filtered out.
      expectObservable(pipeline(events).pipe(toLabels())).toBe('e 29ms d', {
        e: 'error east/default/web +20',
        d: 'done east/default/web #2',
      });
    });
  });

  it('drops the work of a cluster that leaves the fleet', () => {
    const rec = recorder(flaky());
    new TestScheduler((actual, expected) => {
      expect(actual).toEqual(expected);
    }).run(({ hot, expectObservable }) => {
      const events = hot<ReconcileInput<ConfigMap>>('a 24ms x', {
        a: ev.applied('east', 'default/web', { metadata: { generation: 1 } }),
        x: ev.removed('east'),
      });
      // The retry started at 20 is aborted at 25 and reported as dropped, never retried.
      expectObservable(pipeline(events, rec.reconciler).pipe(toLabels())).toBe('e 24ms x', {
        e: 'error east/default/web +20',
        x: 'dropped east/default/web #2',
      });
    });
    expect(rec.calls.map((c) => [c.startedAt, c.signal.aborted])).toEqual([
      [0, false],
      [20, true],
    ]);
  });
});
// #endregion guide

describe('the testing guide', () => {
  it('should show the code of this file, verbatim', () => {
    const region = (text: string) => /\/\/ #region guide\n([\s\S]*?)\/\/ #endregion guide/.exec(text)?.[1];
    // The guide imports the published entry points where this file imports the sources.
    const test = region(readFileSync(new URL(import.meta.url), 'utf8'))
      ?.replaceAll("'../../src/index.js'", "'rxfleet'")
      .replaceAll("'../../src/operators/index.js'", "'rxfleet/operators'")
      .replaceAll("'../../src/testing/index.js'", "'rxfleet/testing'");
    const guide = readFileSync(new URL('../../docs/testing.md', import.meta.url), 'utf8');
    const block = /```ts\n\/\/ test\/marbles\/testing-guide\.test\.ts\n([\s\S]*?)```/.exec(guide)?.[1];
    expect(test).toBeDefined();
    expect(block).toBe(test);
  });
});
