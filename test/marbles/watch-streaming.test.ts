// Streaming lists (sendInitialEvents) and when the watch gives them up for list-then-watch: a
// refusal, or the server breaking one before its end bookmark; never for a lost connection.
import { takeUntil, timer } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { ConfigMap } from '../../src/index.js';
import { configMaps } from '../../src/index.js';
import type { WatchSignalsOptions } from '../../src/streams/index.js';
import { createStore, reflect, signalEvents, watchSignals } from '../../src/streams/index.js';
import { cm, east, err, line, page, record, scripted, testScheduler } from './watch-fixtures.js';

const streaming: WatchSignalsOptions = { cluster: east, resource: configMaps, streamingList: true, random: () => 1 };
// What kcp v0.28.1's APIExport virtual workspace sends part-way through a streaming list.
const kindMissing = JSON.stringify({ type: 'ERROR', object: { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 500, reason: 'InternalError', message: "Object 'Kind' is missing in '{}'" } });

describe('streaming lists', () => {
  it('falls back to list-then-watch for good when the server ends a streaming list with an ERROR 500, and the store holds exactly the list', () => {
    const ts = testScheduler();
    ts.run(({ cold }) => {
      const broken = cold('-ab', { a: line('ADDED', cm('stale', '5')), b: kindMissing });
      const s = scripted([cold('(a|)', { a: page('10', [cm('a', '7'), cm('b', '8')]) }), cold('(a|)', { a: page('20', [cm('a', '7')]) })], [broken, cold('--#', undefined, err('Gone', { code: 410 })), cold('-')]);
      const store = createStore<ConfigMap>();
      watchSignals(s.source, { ...streaming, scheduler: ts })
        .pipe(signalEvents(), reflect(store, east), takeUntil(timer(10_000, ts)))
        .subscribe();
      ts.flush();
      // The first list and the relist after the 410 are plain lists: streaming was given up once.
      expect(s.lists).toHaveLength(2);
      expect(s.watches.map((w) => w.sendInitialEvents === true)).toEqual([true, false, false]);
      expect(s.watches[1]).toMatchObject({ resourceVersion: '10' });
      // The object only the broken stream sent is gone; the relist after the 410 removed b.
      expect(store.list().map((o) => `${o.metadata.name}@${o.metadata.resourceVersion}`)).toEqual(['a@7']);
    });
  });

  it('keeps streaming after a 503 or a lost connection: those are not the answer to a streaming list', () => {
    const ts = testScheduler();
    ts.run(({ cold }) => {
      const unavailable = cold('#', undefined, err('Transient', { code: 503 }));
      const cut = cold('#', undefined, err('ClusterUnreachable'));
      const s = scripted([], [unavailable, cut, cold('-')]);
      record(ts, watchSignals(s.source, { ...streaming, scheduler: ts }), 10_000);
      ts.flush();
      expect(s.lists).toHaveLength(0);
      expect(s.watches.map((w) => w.sendInitialEvents === true)).toEqual([true, true, true]);
    });
  });
});
