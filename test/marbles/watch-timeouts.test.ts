// A list the transport gave up on (no response headers in time) against a list the server answered
// 504 Timeout, in virtual time: the first is a failure to back off from, the second a cached
// resourceVersion the server cannot serve, listed again at once, consistently.
import { describe, expect, it } from 'vitest';
import { E } from '../../src/fp/index.js';
import type { ConfigMap, Either, KubeError, ObjectList } from '../../src/index.js';
import { configMaps } from '../../src/index.js';
import type { WatchSignalsOptions } from '../../src/streams/index.js';
import { watchSignals } from '../../src/streams/index.js';
import { east, err, page, record, scripted, testScheduler } from './watch-fixtures.js';

const base: WatchSignalsOptions = { cluster: east, resource: configMaps, streamingList: false, random: () => 1 };

describe('list timeouts', () => {
  it('should back off after a list that got no response headers, and retry the same cached list', () => {
    const ts = testScheduler();
    ts.run(({ cold }) => {
      // What the transport returns when no headers came back: a Timeout without an HTTP code.
      const noAnswer = err('Timeout');
      const s = scripted([cold<Either<KubeError, ObjectList<ConfigMap>>>('(a|)', { a: E.left(noAnswer) }), cold('(a|)', { a: page('10', []) })], []);
      const t = record(ts, watchSignals(s.source, { ...base, scheduler: ts }), 5_000);
      ts.flush();
      expect(t.health.find((h) => h.state === 'backingOff')).toMatchObject({ failingSinceAt: 0, nextAttemptAt: 800, lastError: { type: 'Timeout' } });
      // Retried after the backoff, still from the watch cache: the server never said it could not serve it.
      expect(s.lists.map((o) => o.resourceVersion)).toEqual(['0', '0']);
      expect(t.health.at(-1)).toMatchObject({ state: 'connected', synced: true });
    });
  });

  it('should list again at once, consistently, after a 504 Timeout to a cached list', () => {
    const ts = testScheduler();
    ts.run(({ cold }) => {
      const tooLarge = err('Timeout', { code: 504 });
      const s = scripted([cold<Either<KubeError, ObjectList<ConfigMap>>>('(a|)', { a: E.left(tooLarge) }), cold('(a|)', { a: page('10', []) })], []);
      const t = record(ts, watchSignals(s.source, { ...base, scheduler: ts }), 5_000);
      ts.flush();
      expect(s.lists.map((o) => o.resourceVersion)).toEqual(['0', '']);
      expect(t.health.some((h) => h.state === 'backingOff')).toBe(false);
    });
  });
});
