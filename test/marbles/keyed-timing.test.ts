import { describe, it } from 'vitest';
import type { ConfigMap, ReconcileInput } from '../../src/index.js';
import { configMaps } from '../../src/index.js';
import { debounceByKey, throttleByKey } from '../../src/operators/index.js';
import { keyedEvents } from '../../src/testing/index.js';
import { testScheduler } from '../support/marbles.js';

const ev = keyedEvents(configMaps);
const values = {
  a: ev.applied('east', 'default/a', { data: { v: '1' } }),
  b: ev.applied('east', 'default/a', { data: { v: '2' } }),
  c: ev.applied('east', 'default/a', { data: { v: '3' } }),
  w: ev.applied('west', 'default/a'),
  x: ev.removed('east'),
};

describe('debounceByKey', () => {
  it('should emit the latest value per key after a quiet period', () => {
    testScheduler().run(({ hot, expectObservable }) => {
      const input = hot<ReconcileInput<ConfigMap>>('a b w', values);
      expectObservable(input.pipe(debounceByKey({ waitMs: 5 }))).toBe('------b w', values);
    });
  });

  it('should emit no later than the max wait for a key that never goes quiet', () => {
    testScheduler().run(({ hot, expectObservable }) => {
      const input = hot<ReconcileInput<ConfigMap>>('a--b--c--a--b--c--a--b--c-', values);
      expectObservable(input.pipe(debounceByKey({ waitMs: 5, maxWaitMs: 10 }))).toBe('10ms a 11ms b 6ms c', values);
    });
  });

  it('should drop open windows of a removed cluster and pass the removal', () => {
    testScheduler().run(({ hot, expectObservable, expectSubscriptions }) => {
      const input = hot<ReconcileInput<ConfigMap>>('a w x', values);
      expectObservable(input.pipe(debounceByKey({ waitMs: 5 })), '^ 20ms !').toBe('--x---w', values);
      expectSubscriptions(input.subscriptions).toBe('^ 20ms !');
    });
  });

  it('should flush open windows on completion', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold<ReconcileInput<ConfigMap>>('a w|', values).pipe(debounceByKey({ waitMs: 50 }))).toBe('--(aw|)', values);
    });
  });
});

describe('throttleByKey', () => {
  it('should pass the first value at once and the latest of each window at its end', () => {
    testScheduler().run(({ hot, expectObservable }) => {
      const input = hot<ReconcileInput<ConfigMap>>('a b c w 5ms a', values);
      expectObservable(input.pipe(throttleByKey(5))).toBe('a--w-c----a', values);
    });
  });

  it('should drop pending values of a removed cluster', () => {
    testScheduler().run(({ hot, expectObservable }) => {
      const input = hot<ReconcileInput<ConfigMap>>('a b x', values);
      expectObservable(input.pipe(throttleByKey(5)), '^ 20ms !').toBe('a-x', values);
    });
  });
});
