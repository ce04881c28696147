// The health tracker's cost per change must not grow with the fleet (issue 14: rebuilding every
// cluster's health on every watch change was quadratic, the top CPU consumer at 2,000 clusters).
// Measured by work, not time: every read of a watch snapshot's fields is counted, so recomputing
// any other cluster's health shows up. Also: readiness counted incrementally, `changes`
// coalesced in virtual time, and a resource a cluster does not serve explained with its provider's
// hint (the runtime names no provider).
import { VirtualTimeScheduler } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { kubeError } from '../../src/client/index.js';
import type { ClusterName } from '../../src/index.js';
import { clusterName } from '../../src/index.js';
import { logTransition } from '../../src/runtime/cluster-keeper.js';
import { healthTracker } from '../../src/runtime/health-tracker.js';
import type { HealthReport } from '../../src/runtime/index.js';
import type { WatchHealth } from '../../src/streams/index.js';
import { capturedLogger } from './log-capture.js';

/** A watch snapshot whose field reads are counted in `reads.n`. */
function counted(reads: { n: number }, cluster: ClusterName, fields: Partial<WatchHealth> = {}): WatchHealth {
  const h: WatchHealth = { cluster, resource: 'configmaps', state: 'connected', synced: true, relists: 0, reconnects: 0, interruptions: 0, ...fields };
  return new Proxy(h, {
    get(target, key, receiver) {
      reads.n += 1;
      return Reflect.get(target, key, receiver) as unknown;
    },
  });
}

/** The reads one watch change costs in a fleet of `n` synced clusters, with a subscriber on `changes`. */
function readsPerChange(n: number): number {
  const reads = { n: 0 };
  const scheduler = new VirtualTimeScheduler();
  const t = healthTracker({ minClusters: 1, scheduler });
  const seen: HealthReport[] = [];
  const sub = t.changes.subscribe((r) => seen.push(r));
  t.phase('running');
  const names = Array.from({ length: n }, (_, i) => clusterName(`c${i}`));
  for (const c of names) {
    t.engage(c, ['configmaps']);
    t.watchHealth(counted(reads, c));
  }
  t.discovered(n);
  scheduler.flush();
  const c0 = names[0] ?? clusterName('c0');
  reads.n = 0;
  t.watchHealth(counted(reads, c0, { relists: 1 }));
  scheduler.flush();
  const cost = reads.n;
  sub.unsubscribe();
  return cost;
}

describe('healthTracker cost', () => {
  it('does the same work per watch change with 10 or 2,000 clusters', () => {
    const small = readsPerChange(10);
    const large = readsPerChange(2_000);
    expect(small).toBeGreaterThan(0); // the changed cluster's own health is recomputed
    expect(large).toBe(small);
  });

  it('keeps ready right through engage, unhealthy, recovery and disengage, from counts', () => {
    const east = clusterName('east');
    const west = clusterName('west');
    const reads = { n: 0 };
    const t = healthTracker({ minClusters: 1 });
    t.phase('running');
    t.discovered(2);
    t.engage(east, ['configmaps']);
    t.engage(west, ['configmaps']);
    expect(t.report()).toMatchObject({ ready: false, notReady: '2 cluster(s) still syncing' });
    t.watchHealth(counted(reads, east, { state: 'backingOff', synced: false, lastError: kubeError('NotFound', east, 'not found', { code: 404 }) }));
    t.watchHealth(counted(reads, west, { state: 'listing', synced: false }));
    expect(t.report().ready).toBe(false);
    t.watchHealth(counted(reads, west));
    expect(t.report().ready).toBe(true); // east unhealthy does not hold back, west synced meets minClusters
    t.disengage(west);
    t.discovered(1);
    expect(t.report()).toMatchObject({ ready: false, notReady: '0 cluster(s) synced here, fewer than 1 (the others are unhealthy)' });
    t.watchHealth(counted(reads, east));
    expect(t.report().ready).toBe(true);
    t.engage(east, ['configmaps']); // re-engaged: syncing again, counted once
    expect(t.report()).toMatchObject({ ready: false, clusters: [{ cluster: east, state: 'syncing' }] });
  });

  it('stays ready as a standby: the provider discovered enough clusters, and this replica runs none', () => {
    const t = healthTracker({ minClusters: 3, awaitFirstPass: true });
    t.phase('running');
    t.replica({ type: 'standby', identity: 'agent-1' });
    t.discovered(5);
    expect(t.report().ready).toBe(false);
    t.firstPassDone();
    expect(t.report()).toMatchObject({ ready: true, clusters: [], discovery: { firstPassDone: true, clusters: 5, minClusters: 3 } });
  });

  it('coalesces a burst of changes on `changes` into the first and the latest, and emits a phase change at once', () => {
    const scheduler = new VirtualTimeScheduler();
    const t = healthTracker({ scheduler, coalesceMs: 100 });
    const seen: HealthReport[] = [];
    t.changes.subscribe((r) => seen.push(r));
    expect(seen).toHaveLength(1); // the latest, at once
    t.phase('running');
    expect(seen.map((r) => r.phase)).toEqual(['starting', 'running']);
    const east = clusterName('east');
    t.engage(east, ['configmaps']);
    const reads = { n: 0 };
    for (let i = 0; i < 1_000; i++) t.watchHealth(counted(reads, east, { relists: i }));
    expect(seen).toHaveLength(2); // within the window of the phase change: held back
    scheduler.flush();
    expect(seen).toHaveLength(3);
    expect(seen[2]?.clusters[0]?.watches[0]?.relists).toBe(999);
    expect(t.report()).toBe(seen[2]); // built once, then cached until the next change
    t.phase('stopping');
    expect(seen.map((r) => r.phase)).toEqual(['starting', 'running', 'running', 'stopping']);
  });

  it('reports a cluster unhealthy while its watch retries without an answer, not only while it backs off', () => {
    const east = clusterName('east');
    const t = healthTracker({ minClusters: 1 });
    t.engage(east, ['configmaps']);
    const lastError = kubeError('Timeout', east, 'GET /api/v1/configmaps: no response headers within 10000 ms');
    const base: WatchHealth = { cluster: east, resource: 'configmaps', state: 'connected', synced: true, relists: 0, reconnects: 1, interruptions: 0 };
    // A request open, no headers yet, after a failure: still failing.
    t.watchHealth({ ...base, lastError, failingSinceAt: 1_000 });
    expect(t.report().clusters[0]?.state).toBe('unhealthy');
    expect(t.report().clusters[0]?.reason).toContain('no response headers');
    // A line from the server clears failingSince: healthy again, the last error kept for diagnosis.
    t.watchHealth({ ...base, lastError });
    expect(t.report().clusters[0]?.state).toBe('synced');
  });
});

describe('a resource a cluster does not serve', () => {
  const notFound = (c: ClusterName): WatchHealth => ({
    cluster: c,
    resource: 'widgets.example.com',
    state: 'backingOff',
    synced: false,
    relists: 0,
    reconnects: 0,
    interruptions: 0,
    failingSinceAt: 0,
    lastError: kubeError('NotFound', c, 'the server could not find the requested resource', { code: 404 }),
  });
  const hint = 'export it from APIExport widgets';

  it("is explained with the cluster's hint when its provider gives one, else with the default", () => {
    const [kcp, plain] = [clusterName('root:org:a'), clusterName('east')];
    const t = healthTracker();
    t.engage(kcp, ['widgets.example.com'], hint);
    t.engage(plain, ['widgets.example.com']);
    t.watchHealth(notFound(kcp));
    t.watchHealth(notFound(plain));
    expect(t.report().clusters.map((c) => c.reason)).toEqual([
      `resource widgets.example.com is not served by this cluster (list answered 404): ${hint}, or check the group, version and plural of the descriptor`,
      'resource widgets.example.com is not served by this cluster (list answered 404): install its CRD, or check the group, version and plural of the descriptor',
    ]);
    // Degraded: the same hint, after since when.
    t.watchHealth({ ...notFound(kcp), degraded: true });
    expect(t.report().clusters[0]?.reason).toMatch(/^degraded: the widgets.example.com watch has been failing since /);
    expect(t.report().clusters[0]?.reason).toContain(`; last error: resource widgets.example.com is not served by this cluster (list answered 404): ${hint}, or check`);
  });

  it("is logged with the cluster's hint", () => {
    const { log, lines } = capturedLogger();
    const h = notFound(clusterName('root:org:a'));
    logTransition(log, h, undefined, () => 0, hint);
    logTransition(log, h, undefined);
    expect(lines.map((l) => (JSON.parse(l) as { msg: string }).msg)).toEqual([
      `cluster unhealthy: resource widgets.example.com is not served by this cluster (list answered 404): ${hint}, or check the group, version and plural of the descriptor`,
      'cluster unhealthy: resource widgets.example.com is not served by this cluster (list answered 404): install its CRD, or check the group, version and plural of the descriptor',
    ]);
  });
});
