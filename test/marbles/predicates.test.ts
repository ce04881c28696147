import { describe, it } from 'vitest';
import type { ConfigMap, ReconcileInput } from '../../src/index.js';
import { configMaps } from '../../src/index.js';
import { annotationsChanged, generationChanged, labelsChanged, predicate, resourceVersionChanged } from '../../src/operators/index.js';
import { keyedEvents } from '../../src/testing/index.js';
import { testScheduler } from '../support/marbles.js';

const ev = keyedEvents(configMaps);

describe('predicates', () => {
  it('generationChanged should drop status-only updates and pass spec changes, per key', () => {
    testScheduler().run(({ hot, expectObservable }) => {
      const values = {
        a: ev.applied('east', 'default/a', { metadata: { generation: 1 } }),
        s: ev.applied('east', 'default/a', { metadata: { generation: 1, resourceVersion: '2' } }),
        w: ev.applied('west', 'default/a', { metadata: { generation: 1 } }),
        b: ev.applied('east', 'default/a', { metadata: { generation: 2 } }),
      };
      const input = hot<ReconcileInput<ConfigMap>>('a s w s b', values);
      expectObservable(input.pipe(generationChanged())).toBe('a - w - b', values);
    });
  });

  it('should forget a key on delete, so its next event passes again', () => {
    testScheduler().run(({ hot, expectObservable }) => {
      const values = {
        a: ev.applied('east', 'default/a', { metadata: { resourceVersion: '1' } }),
        d: ev.deleted('east', 'default/a', { metadata: { resourceVersion: '1' } }),
      };
      const input = hot<ReconcileInput<ConfigMap>>('a a d a', values);
      expectObservable(input.pipe(resourceVersionChanged())).toBe('a - d a', values);
    });
  });

  it('should forget a removed cluster and always pass removals and enqueue requests', () => {
    testScheduler().run(({ hot, expectObservable }) => {
      const values = {
        a: ev.applied('east', 'default/a', { metadata: { labels: { x: '1' } } }),
        w: ev.applied('west', 'default/a', { metadata: { labels: { x: '1' } } }),
        x: ev.removed('east'),
        q: ev.enqueue('east', 'default/a'),
      };
      const input = hot<ReconcileInput<ConfigMap>>('a w a w x a w q q', values);
      expectObservable(input.pipe(labelsChanged())).toBe('a w - - x a - q q', values);
    });
  });

  it('labelsChanged and annotationsChanged should compare entries, not identity', () => {
    testScheduler().run(({ hot, expectObservable }) => {
      const values = {
        a: ev.applied('east', 'a', { metadata: { labels: { x: '1' }, annotations: { n: '1' } } }),
        b: ev.applied('east', 'a', { metadata: { labels: { x: '1' }, annotations: { n: '2' } } }),
        c: ev.applied('east', 'a', { metadata: { labels: { x: '2' }, annotations: { n: '2' } } }),
        d: ev.applied('east', 'a', { metadata: { annotations: { n: '2' } } }),
      };
      const input = hot<ReconcileInput<ConfigMap>>('a b c d', values);
      expectObservable(input.pipe(labelsChanged())).toBe('a - c d', values);
      expectObservable(input.pipe(annotationsChanged())).toBe('a b - -', values);
    });
  });

  it('predicate should use the given selection and equality', () => {
    testScheduler().run(({ hot, expectObservable }) => {
      const values = {
        a: ev.applied('east', 'default/a', { data: { image: 'v1', other: '1' } }),
        b: ev.applied('east', 'default/a', { data: { image: 'V1', other: '2' } }),
        c: ev.applied('east', 'default/a', { data: { image: 'v2', other: '2' } }),
      };
      const image = (cm: ConfigMap) => cm.data?.image ?? '';
      const input = hot<ReconcileInput<ConfigMap>>('a b c', values);
      expectObservable(input.pipe(predicate(image, (x, y) => x.toLowerCase() === y.toLowerCase()))).toBe('a - c', values);
    });
  });
});
