// Dependent writes in virtual time: the next write is made only after the ones before it all
// succeeded; a failure passes on, ends the chain, and nothing more is sent.
import { defer } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { ConfigMap, KubeError } from '../../src/index.js';
import { clusterName, objectKey } from '../../src/index.js';
import type { WriteOutcome } from '../../src/sinks/index.js';
import { thenWrite, writeFailed, written } from '../../src/sinks/index.js';
import { testScheduler } from '../support/marbles.js';

const key = (name: string) => objectKey(clusterName('east'), 'default', name);
const ok = (name: string): WriteOutcome<ConfigMap> => written('apply', key(name), { changed: true, object: { metadata: { name } }, attempts: 1 });
const failed = (name: string): WriteOutcome<ConfigMap> => writeFailed('apply', key(name), { type: 'Transient', cluster: clusterName('east'), message: 'injected 500' } satisfies KubeError, 1);

describe('thenWrite', () => {
  it('makes the next write when the one before succeeded, after it completed', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const first = cold('--a|', { a: ok('settings') });
      const second = cold('-b|', { b: ok('status') });
      expectObservable(first.pipe(thenWrite(() => second))).toBe('--a-b|', { a: ok('settings'), b: ok('status') });
      expectSubscriptions(second.subscriptions).toBe('---^-!');
    });
  });

  it('passes a failure on and never makes the next write (nothing is sent)', () => {
    let made = 0;
    testScheduler().run(({ cold, expectObservable }) => {
      const next = defer(() => {
        made += 1;
        return cold('-b|', { b: ok('status') });
      });
      expectObservable(cold('--f|', { f: failed('settings') }).pipe(thenWrite(() => next))).toBe('--f|', { f: failed('settings') });
    });
    // After the run: the virtual time has passed, and the next write was never even made.
    expect(made).toBe(0);
  });

  it('stops a longer chain at its first failure, whichever link it is', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const a = cold('a|', { a: ok('namespace') });
      const b = cold('f|', { f: failed('settings') });
      const c = cold('c|', { c: ok('status') });
      expectObservable(a.pipe(thenWrite(() => b), thenWrite(() => c))).toBe('af|', { a: ok('namespace'), f: failed('settings') });
      expectSubscriptions(c.subscriptions).toBe([]);
    });
  });

  it('reads every outcome of a source with several (an …Each operator): one failure among them stops the chain', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const many = cold('ab|', { a: ok('one'), b: failed('two') });
      const next = cold('c|', { c: ok('status') });
      expectObservable(many.pipe(thenWrite(() => next))).toBe('ab|', { a: ok('one'), b: failed('two') });
      expectSubscriptions(next.subscriptions).toBe([]);
    });
  });
});
