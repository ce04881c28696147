// Readiness counts every cluster the provider engaged, not only those the keeper has taken: the
// fleet hands engagements out in time-boxed slices, so under load a cluster can be counted as
// discovered a turn before its watches exist. Until then it is not synced, so the run is not ready.
import { describe, expect, it } from 'vitest';
import { clusterName } from '../../src/index.js';
import { healthTracker } from '../../src/runtime/health-tracker.js';
import type { WatchHealth } from '../../src/streams/index.js';

const synced = (cluster: string): WatchHealth => ({ cluster: clusterName(cluster), resource: 'configmaps', state: 'connected', synced: true, relists: 0, reconnects: 0, interruptions: 0 });

describe('healthTracker: clusters engaged but not yet watched', () => {
  it('is not ready while a discovered cluster has not reached the keeper, and is once it has synced', () => {
    const t = healthTracker({ minClusters: 1 });
    t.phase('running');
    t.discovered(2);
    t.engage(clusterName('east'), ['configmaps']);
    t.watchHealth(synced('east'));
    expect(t.report()).toMatchObject({ ready: false, notReady: '1 engaged cluster(s) not watched yet' });
    t.engage(clusterName('west'), ['configmaps']);
    expect(t.report()).toMatchObject({ ready: false, notReady: '1 cluster(s) still syncing' });
    t.watchHealth(synced('west'));
    expect(t.report()).toMatchObject({ ready: true });
  });

  it('holds a leader to every cluster found, and judges a shard member by the share it runs', () => {
    const leader = healthTracker({ minClusters: 1 });
    leader.replica({ type: 'leading', identity: 'agent-1' });
    leader.phase('running');
    leader.discovered(2);
    leader.engage(clusterName('east'), ['configmaps']);
    leader.watchHealth(synced('east'));
    expect(leader.report()).toMatchObject({ ready: false, notReady: '1 engaged cluster(s) not watched yet' });
    const member = healthTracker({ minClusters: 1 });
    member.replica({ type: 'sharing', identity: 'agent-2', view: 'v1', members: ['agent-1', 'agent-2'], owned: 1, confirmed: true });
    member.phase('running');
    member.discovered(2);
    member.engage(clusterName('west'), ['configmaps']);
    member.watchHealth(synced('west'));
    expect(member.report()).toMatchObject({ ready: true });
  });
});
