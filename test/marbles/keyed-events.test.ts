// toKeyedEvents after reflect: a keyed event must never reach a reconciler before the store can
// serve its object, or a level-triggered reconciler would act on a missing or stale object.
import { from, map } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { ConfigMap } from '../../src/index.js';
import { configMaps } from '../../src/index.js';
import type { KeyedEvent, WatchEvent } from '../../src/streams/index.js';
import { createStore, reflect, toKeyedEvents } from '../../src/streams/index.js';
import { cm, east, listing } from './watch-fixtures.js';
import { testScheduler } from '../support/marbles.js';

const label = (ev: KeyedEvent<ConfigMap>): string =>
  ev.type === 'clusterRemoved' ? `removed ${ev.cluster}` : `${ev.type} ${ev.key.name}@${ev.object.metadata.resourceVersion ?? ''}`;

describe('keyed events from a reflected watch', () => {
  it('should hold a listing back until initDone and emit it there, latest object per key', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const values: Record<string, WatchEvent<ConfigMap>> = {
        s: { type: 'initStarted' },
        a: { type: 'initApply', object: cm('a', '1') },
        b: { type: 'initApply', object: cm('b', '2') },
        A: { type: 'initApply', object: cm('a', '3') },
        d: { type: 'initDone' },
        x: { type: 'applied', object: cm('x', '4') },
      };
      const events = cold('s a b A -- d 6ms x', values).pipe(toKeyedEvents(east, configMaps));
      expectObservable(events.pipe(map(label))).toBe('------ (ab) --- x', {
        a: 'applied a@3',
        b: 'applied b@2',
        x: 'applied x@4',
      });
    });
  });

  it('should let the store serve every keyed object at the moment it is emitted, on a first list and on a relist', () => {
    const store = createStore<ConfigMap>();
    const stream: WatchEvent<ConfigMap>[] = [
      ...listing(cm('a', '1'), cm('b', '2')),
      { type: 'applied', object: cm('c', '3') },
      // A relist after a gap: b changed, a vanished, d is new.
      ...listing(cm('b', '5'), cm('c', '3'), cm('d', '6')),
    ];
    const seen: string[] = [];
    from(stream)
      .pipe(reflect(store, east), toKeyedEvents(east, configMaps))
      .subscribe((ev) => {
        if (ev.type === 'clusterRemoved') return;
        const cached = store.get(ev.key);
        // Applied objects are readable as emitted; deleted ones are gone already.
        if (ev.type === 'applied') expect(cached).toBe(ev.object);
        else expect(cached).toBeUndefined();
        seen.push(label(ev));
      });
    expect(seen).toEqual(['applied a@1', 'applied b@2', 'applied c@3', 'deleted a@1', 'applied b@5', 'applied c@3', 'applied d@6']);
  });
});
