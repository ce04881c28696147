// The two operators on every line of a watch: emitEach (map-to-many without inner subscriptions)
// and inactivityTimeout (one timer per quiet window), each against what the rxjs operator it
// replaces does, in virtual time.
import { asyncScheduler, concatMap, take, tap, throwError, timeout } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { emitEach } from '../../src/streams/emit-each.js';
import { inactivityTimeout } from '../../src/streams/inactivity-timeout.js';
import { testScheduler } from '../support/marbles.js';

const twice = (v: string): readonly string[] => (v === 'x' ? [] : [v, v.toUpperCase()]);

describe('emitEach', () => {
  it('emits every value of each array in order, in the frame of its source value, like concatMap', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const values = { a: 'a', A: 'A', b: 'b', B: 'B' };
      const source = 'a 9ms x 9ms b 9ms |';
      expectObservable(cold(source).pipe(emitEach(twice))).toBe('(aA) 16ms (bB) 6ms |', values);
      expectObservable(cold(source).pipe(concatMap(twice))).toBe('(aA) 16ms (bB) 6ms |', values);
    });
  });

  it('errors with what project throws or passes to fail, and unsubscribes from the source', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const thrown = cold('a-b-c|');
      expectObservable(
        thrown.pipe(
          emitEach((v: string) => {
            if (v === 'b') throw new Error('bad b');
            return [v];
          }),
        ),
      ).toBe('a-#', { a: 'a' }, new Error('bad b'));
      expectSubscriptions(thrown.subscriptions).toBe('^-!');
      const failed = cold('a-b-c|');
      expectObservable(
        failed.pipe(
          emitEach((v: string, fail) => {
            if (v !== 'b') return [v];
            fail({ type: 'Decode' });
            return ['never emitted'];
          }),
        ),
      ).toBe('a-#', { a: 'a' }, { type: 'Decode' });
      expectSubscriptions(failed.subscriptions).toBe('^-!');
    });
  });

  it('ignores a fail called outside project (here by a downstream tap): later values still go through', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      let kept: ((e: unknown) => void) | undefined;
      const out = cold('a-b-c|').pipe(
        emitEach((v: string, fail) => {
          kept = fail;
          return [v];
        }),
        tap((v) => {
          if (v === 'b') kept?.({ type: 'Decode' });
        }),
      );
      expectObservable(out).toBe('a-b-c|', { a: 'a', b: 'b', c: 'c' });
    });
  });

  it('stops in the middle of an array when downstream unsubscribes', () => {
    testScheduler().run(({ cold, expectObservable, flush }) => {
      const seen: number[] = [];
      const out = cold('a|').pipe(
        emitEach(() => [1, 2, 3, 4]),
        tap((n) => seen.push(n)),
        take(2),
      );
      expectObservable(out).toBe('(xy|)', { x: 1, y: 2 });
      flush();
      expect(seen).toEqual([1, 2]);
    });
  });
});

describe('inactivityTimeout', () => {
  const error = (): Error => new Error('quiet');

  it('errors exactly when the source has been quiet for the window, like timeout({ each })', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const mine = cold('a 3ms b 9ms c');
      expectObservable(mine.pipe(inactivityTimeout(5, asyncScheduler, error))).toBe('a 3ms b 4ms #', { a: 'a', b: 'b' }, new Error('quiet'));
      expectSubscriptions(mine.subscriptions).toBe('^ 8ms !');
    });
  });

  it('matches rxjs timeout frame for frame on a stream that goes quiet twice', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const marbles = 'a 2ms b 2ms c 2ms d 20ms e';
      const theirs = cold(marbles).pipe(timeout({ each: 5, with: () => throwError(error) }));
      const ours = cold(marbles).pipe(inactivityTimeout(5, asyncScheduler, error));
      const expected = 'a 2ms b 2ms c 2ms d 4ms #';
      expectObservable(theirs).toBe(expected, { a: 'a', b: 'b', c: 'c', d: 'd' }, new Error('quiet'));
      expectObservable(ours).toBe(expected, { a: 'a', b: 'b', c: 'c', d: 'd' }, new Error('quiet'));
    });
  });

  it('passes completion and errors through and cancels its timer', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold('a 2ms |').pipe(inactivityTimeout(5, asyncScheduler, error))).toBe('a 2ms |', { a: 'a' });
      expectObservable(cold('a 2ms #').pipe(inactivityTimeout(5, asyncScheduler, error))).toBe('a 2ms #', { a: 'a' });
      // Counted from the subscription when nothing ever comes.
      expectObservable(cold('-').pipe(inactivityTimeout(5, asyncScheduler, error))).toBe('5ms #', undefined, new Error('quiet'));
    });
  });
});
