// The write gate of a replica: it refuses, as `Fenced`, a write when the lease is not fresh or the
// cluster is not run here, and a hand-over can wait until the writes still on the wire to clusters
// given away have answered (bounded).
import { describe, expect, it } from 'vitest';
import type { ClusterName } from '../../src/index.js';
import { clusterName } from '../../src/index.js';
import { writeFence } from '../../src/runtime/ha/fence.js';
import { testScheduler } from '../support/marbles.js';

const east = clusterName('east');
const west = clusterName('west');

describe('writeFence', () => {
  it('should refuse a write while the lease is not valid or the cluster is not run here, naming the replica', () => {
    let valid = true;
    const running = new Set<ClusterName>([east]);
    const fence = writeFence({ leaseValid: () => valid, runs: (c) => running.has(c), identity: 'web-0-a1b2c3' });
    expect(fence.check(east)).toBeUndefined();
    expect(fence.check(west)?.type).toBe('Fenced');
    expect(fence.check(west)?.message).toContain('does not run this cluster');
    valid = false;
    const refused = fence.check(east);
    expect(refused?.type).toBe('Fenced');
    expect(refused?.cluster).toBe(east);
    expect(refused?.message).toContain('web-0-a1b2c3');
    expect(refused?.message).toContain('renew deadline');
  });

  it('should settle once the writes in flight to clusters given away have answered', () => {
    const running = new Set<ClusterName>([east, west]);
    const fence = writeFence({ leaseValid: () => true, runs: (c) => running.has(c), identity: 'r' });
    testScheduler().run(({ cold, expectObservable }) => {
      cold('-----a').subscribe(fence.enter(west)); // answers at frame 5
      cold('---------------a').subscribe(fence.enter(east)); // still running: does not hold the hand-over
      running.delete(west);
      expectObservable(fence.settled(100)).toBe('-----(t|)', { t: true });
    });
    expect(fence.inFlight()).toEqual(new Map());
  });

  it('should count a tracked write until its promise settles, whether it succeeds or fails', async () => {
    const fence = writeFence({ leaseValid: () => true, runs: () => true, identity: 'r' });
    let finish: (ok: boolean) => void = () => undefined;
    const write = fence.track(
      east,
      () =>
        new Promise<string>((resolve, reject) => {
          finish = (ok) => {
            if (ok) resolve('done');
            else reject(new Error('cut'));
          };
        }),
    );
    expect(fence.inFlight().get(east)).toBe(1);
    finish(false);
    await expect(write).rejects.toThrow('cut');
    expect(fence.inFlight().has(east)).toBe(false);
  });

  it('should settle at once with nothing in flight, and give up after the bound with false', () => {
    const running = new Set<ClusterName>([east]);
    const fence = writeFence({ leaseValid: () => true, runs: (c) => running.has(c), identity: 'r' });
    testScheduler().run(({ expectObservable }) => {
      expectObservable(fence.settled(100)).toBe('(t|)', { t: true });
    });
    testScheduler().run(({ expectObservable }) => {
      fence.enter(east); // never answers
      running.clear();
      expectObservable(fence.settled(10)).toBe('10ms (f|)', { f: false });
    });
  });
});
