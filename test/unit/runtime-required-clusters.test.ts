// Readiness and the clusters a run cannot do without (issue 28 item 2): an unhealthy cluster
// normally never holds the others back, but one a controller names in `requiredClusters` does,
// and `notReady` names it and the cause; a standby judges only what it runs.
import { describe, expect, it } from 'vitest';
import { kubeError } from '../../src/client/index.js';
import { clusterName } from '../../src/index.js';
import { healthTracker } from '../../src/runtime/health-tracker.js';
import type { WatchHealth } from '../../src/streams/index.js';

const service = clusterName('service');
const workspace = clusterName('ws-a');
const synced = (cluster: typeof service, resource = 'secrets'): WatchHealth => ({
  cluster,
  resource,
  state: 'connected',
  synced: true,
  relists: 0,
  reconnects: 0,
  interruptions: 0,
});
const forbidden = (cluster: typeof service): WatchHealth => ({
  cluster,
  resource: 'secrets',
  state: 'backingOff',
  synced: false,
  relists: 0,
  reconnects: 1,
  interruptions: 0,
  lastError: kubeError('Forbidden', cluster, 'secrets is forbidden: User "system:serviceaccount:default:agent" cannot list resource "secrets"', { code: 403 }),
});

describe('healthTracker: required clusters', () => {
  it('holds readiness back while a required cluster is missing, syncing or unhealthy, naming it and the cause', () => {
    const t = healthTracker({
      minClusters: 1,
      requiredClusters: [service, service],
    });
    t.phase('running');
    t.discovered(2);
    t.engage(workspace, ['secrets']);
    t.watchHealth(synced(workspace));
    expect(t.report()).toMatchObject({
      ready: false,
      notReady: 'required cluster service is not engaged',
    });
    t.engage(service, ['secrets']);
    expect(t.report()).toMatchObject({
      ready: false,
      notReady: 'required cluster service is still syncing',
    });
    t.watchHealth(forbidden(service));
    const held = t.report();
    expect(held.ready).toBe(false);
    expect(held.notReady).toMatch(/^required cluster service is unhealthy: .*secrets is forbidden/);
    t.watchHealth(synced(service));
    expect(t.report()).toMatchObject({ ready: true });
    // The same unhealthy cluster, not required: the workspace alone makes the run ready.
    const free = healthTracker({ minClusters: 1 });
    free.phase('running');
    free.discovered(2);
    free.engage(workspace, ['secrets']);
    free.engage(service, ['secrets']);
    free.watchHealth(synced(workspace));
    free.watchHealth(forbidden(service));
    expect(free.report().ready).toBe(true);
  });

  it('holds back a single replica missing a required cluster, not a standby that runs none', () => {
    const single = healthTracker({
      minClusters: 1,
      requiredClusters: [service],
    });
    single.phase('running');
    single.discovered(2);
    expect(single.report()).toMatchObject({
      ready: false,
      notReady: 'required cluster service is not engaged',
    });
    const standby = healthTracker({
      minClusters: 1,
      requiredClusters: [service],
    });
    standby.phase('running');
    standby.discovered(2);
    standby.replica({ type: 'standby', identity: 'agent-1' });
    expect(standby.report()).toMatchObject({ ready: true });
  });
});
