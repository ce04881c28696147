// The tests' own waits (test/support/wait.ts): a wait ends on a condition or on its deadline,
// never after a length of time, and says what it waited for.
import { describe, expect, it } from 'vitest';
import { E } from '../../src/fp/index.js';
import { eventually, must, retrying } from '../support/wait.js';

/** A check answering `answers` in turn (the last one from then on), counting its calls. */
function scripted<T>(...answers: T[]): { check: () => T; calls: () => number } {
  let calls = 0;
  return {
    check: () => answers[Math.min(calls++, answers.length - 1)] as T,
    calls: () => calls,
  };
}

describe('eventually', () => {
  it('should resolve with the first answer that is neither undefined nor false', async () => {
    const s = scripted<string | undefined | false>(undefined, false, 'ready', 'later');
    await expect(eventually('ready', s.check, { intervalMs: 0 })).resolves.toBe('ready');
    expect(s.calls()).toBe(3);
  });

  it('should end at once with the error of a check that throws', async () => {
    let calls = 0;
    const check = (): undefined => {
      calls += 1;
      throw new Error('can no longer turn good');
    };
    await expect(eventually('never', check, { intervalMs: 0 })).rejects.toThrow('can no longer turn good');
    expect(calls).toBe(1);
  });

  it('should give up after its deadline, naming what it waited for and the context', async () => {
    const err = await eventually('the pod to be Running', () => undefined, { timeoutMs: 20, intervalMs: 5, context: () => 'phase: Pending' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toBe('timed out after 20 ms waiting for the pod to be Running\nphase: Pending');
    expect((err as Error).name).toBe('Error');
  });
});

describe('must', () => {
  it('should give the value of a Right, and throw the message of a Left with what failed', () => {
    expect(must(E.right(3))).toBe(3);
    expect(() => must(E.left({ message: 'not found' }), 'get settings')).toThrow(/^get settings: not found$/);
    expect(() => must(E.left({ message: 'not found' }))).toThrow(/^not found$/);
  });
});

describe('retrying', () => {
  const transient = E.left({ type: 'Transient', message: 'connection reset' });
  const conflict = E.left({ type: 'Conflict', message: 'the object has been modified' });

  it('should ask again after a transient failure, and resolve with the value', async () => {
    const s = scripted<E.Either<{ type: string; message: string }, string>>(transient, transient, E.right('created'));
    await expect(retrying('create', () => Promise.resolve(s.check()))).resolves.toBe('created');
    expect(s.calls()).toBe(3);
  });

  it('should fail at once on any other failure, unless told to retry it too', async () => {
    const once = scripted(conflict, E.right('updated'));
    await expect(retrying('update', () => Promise.resolve(once.check()))).rejects.toThrow(/^update: the object has been modified$/);
    expect(once.calls()).toBe(1);
    const again = scripted(conflict, E.right('updated'));
    await expect(retrying('update', () => Promise.resolve(again.check()), { alsoRetry: ['Conflict'] })).resolves.toBe('updated');
  });

  it('should give up after its deadline with the last transient answer', async () => {
    await expect(retrying('create', () => Promise.resolve(transient), { timeoutMs: 20 })).rejects.toThrow(/timed out after 20 ms waiting for create\nlast answer: Transient: connection reset/);
  });
});
