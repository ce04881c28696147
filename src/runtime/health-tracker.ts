// The writer side of a run's health, with per-change work that does not grow with the fleet: a
// watch's new snapshot recomputes only its cluster's ClusterHealth and moves the counts `ready` is
// read from; the full report (O(clusters)) is built only when read (report(), /readyz) and then
// cached until the next change; `changes` is coalesced so a subscriber costs at most one report
// per `coalesceMs`, not one per watch event. At 2,000 clusters rebuilding everything per change was
// the top CPU consumer of a start-up (issue 14).
import type { Subscriber, Subscription } from 'rxjs';
import { asyncScheduler, Observable } from 'rxjs';
import type { ClusterName } from '../core/cluster.js';
import type { WatchHealth } from '../streams/watch-health.js';
import type { ReplicaState } from './ha/replicas.js';
import type { ClusterHealth, HealthReport, HealthTracker, HealthTrackerOptions, RunPhase } from './health.js';
import { watchFailing } from '../streams/watch-failing.js';
import { failingReason } from './health.js';
import { providerIssues } from './provider-issues.js';

/**
 * One cluster's health from the latest snapshots of its watches: O(watches of that cluster).
 *
 * @example
 * ```ts
 * clusterHealth(clusterName('east'), ['configmaps'], new Map()); // { cluster: 'east', state: 'syncing', watches: [] }
 * ```
 * @param cluster - the cluster.
 * @param expected - the ids of the watches it will report.
 * @param latest - the latest snapshot of each watch that reported.
 * @param unservedResourceHint - the cluster's `Cluster.unservedResourceHint`, for a watch answered 404.
 * @param denied - why its requests are being refused (401/403) and retried, while they are.
 * @returns its health.
 */
export function clusterHealth(cluster: ClusterName, expected: readonly string[], latest: ReadonlyMap<string, WatchHealth>, unservedResourceHint?: string, denied?: string): ClusterHealth {
  const watches = expected.flatMap((id) => {
    const h = latest.get(id);
    return h === undefined ? [] : [h];
  });
  // A degraded watch first. Then any watch failing since its last good list or line: between
  // retries it is briefly `connected` (a request open, no headers yet), which proves nothing.
  const failing = watches.find((h) => h.degraded === true) ?? watches.find(watchFailing);
  if (failing !== undefined) return Object.freeze({ cluster, state: 'unhealthy', reason: failingReason(failing, unservedResourceHint), watches });
  // Then a controller's requests the server keeps refusing: its keys wait a slow backoff.
  if (denied !== undefined) return Object.freeze({ cluster, state: 'unhealthy', reason: denied, watches });
  const synced = watches.length === expected.length && watches.every((h) => h.synced);
  return Object.freeze({ cluster, state: synced ? 'synced' : 'syncing', watches });
}

interface Entry {
  expected: readonly string[];
  readonly latest: Map<string, WatchHealth>;
  readonly unservedResourceHint: string | undefined;
  /** Why each controller's requests are refused here (401/403), while they are. */
  readonly denied: Map<string, string>;
  health: ClusterHealth;
}

const health = (cluster: ClusterName, e: Omit<Entry, 'health'>): ClusterHealth => clusterHealth(cluster, e.expected, e.latest, e.unservedResourceHint, e.denied.values().next().value);

type Counts = Record<ClusterHealth['state'], number>;

/**
 * Makes a {@link HealthTracker}.
 *
 * @example
 * ```ts
 * const t = healthTracker({ minClusters: 1, awaitFirstPass: true });
 * t.changes.subscribe((r: HealthReport) => console.log(r.ready));
 * ```
 * @param options - what readiness asks of the fleet, and how `changes` is coalesced.
 * @returns the tracker, in phase `starting`.
 */
export function healthTracker(options: HealthTrackerOptions = {}): HealthTracker {
  const minClusters = options.minClusters ?? 0;
  const scheduler = options.scheduler ?? asyncScheduler;
  const coalesceMs = options.coalesceMs ?? 100;
  let phase: RunPhase = 'starting';
  let alive = true;
  let replica: ReplicaState | undefined;
  let firstPassDone = options.awaitFirstPass !== true;
  let discovered = 0;
  const entries = new Map<ClusterName, Entry>();
  const counts: Counts = { syncing: 0, synced: 0, unhealthy: 0 };
  const issues = providerIssues();

  const required = [...new Set(options.requiredClusters ?? [])];
  // A required cluster not synced here, in words: engaged and syncing or unhealthy (with why), or
  // missing (a replica under leader election or sharding runs only its share: missing is not its business).
  const requiredProblem = (): string | undefined => {
    for (const cluster of required) {
      const h = entries.get(cluster)?.health;
      if (h === undefined && replica === undefined) return `required cluster ${cluster} is not engaged`;
      if (h?.state === 'unhealthy') return `required cluster ${cluster} is unhealthy: ${h.reason ?? 'no reason given'}`;
      if (h?.state === 'syncing') return `required cluster ${cluster} is still syncing`;
    }
    return undefined;
  };

  const notReady = (): string | undefined => {
    if (!alive) return 'the pipeline failed';
    if (phase !== 'running') return `the run is ${phase}`;
    if (!firstPassDone) return 'the provider has not finished its first discovery pass';
    if (discovered < minClusters) return `the provider discovered ${discovered} cluster(s), fewer than minClusters (${minClusters})`;
    const missing = requiredProblem();
    if (missing !== undefined) return missing;
    // Engaged by the provider but not yet handed to the keeper (the fleet hands engagements out in
    // time-boxed slices): not synced, so not ready. A standby or a shard member runs only a share of
    // what was found; a leader runs it all.
    const runsAll = replica === undefined || replica.type === 'leading';
    if (runsAll && entries.size < discovered) return `${discovered - entries.size} engaged cluster(s) not watched yet`;
    if (counts.syncing > 0) return `${counts.syncing} cluster(s) still syncing`;
    const needed = Math.min(minClusters, entries.size);
    if (counts.synced < needed) return `${counts.synced} cluster(s) synced here, fewer than ${needed} (the others are unhealthy)`;
    return undefined;
  };

  let version = 0;
  let built: { readonly version: number; readonly report: HealthReport } | undefined;
  const report = (): HealthReport => {
    if (built?.version === version) return built.report;
    const why = notReady();
    const r: HealthReport = Object.freeze({
      phase,
      alive,
      ready: why === undefined,
      clusters: [...entries.values()].map((e) => e.health),
      providers: issues.list(),
      discovery: Object.freeze({ firstPassDone, clusters: discovered, minClusters }),
      ...(why === undefined ? {} : { notReady: why }),
      ...(replica === undefined ? {} : { replica }),
    });
    built = { version, report: r };
    return r;
  };

  // Coalescing: the first change after a quiet window is emitted at once, later ones in the window
  // once at its end; nothing is scheduled while nobody listens.
  const listeners = new Set<Subscriber<HealthReport>>();
  let lastEmitAt = Number.NEGATIVE_INFINITY;
  let pending: Subscription | undefined;
  const emit = (): void => {
    pending?.unsubscribe();
    pending = undefined;
    lastEmitAt = scheduler.now();
    const r = report();
    for (const l of [...listeners]) l.next(r);
  };
  const changed = (urgent = false): void => {
    version += 1;
    if (listeners.size === 0) return;
    if (urgent) {
      emit();
      return;
    }
    if (pending !== undefined) return;
    const wait = lastEmitAt + coalesceMs - scheduler.now();
    if (wait <= 0) emit();
    else pending = scheduler.schedule(emit, wait);
  };
  const changes = new Observable<HealthReport>((subscriber) => {
    listeners.add(subscriber);
    subscriber.next(report());
    return () => {
      listeners.delete(subscriber);
      if (listeners.size === 0) {
        pending?.unsubscribe();
        pending = undefined;
      }
    };
  });

  const setHealth = (entry: Entry, next: ClusterHealth): void => {
    counts[entry.health.state] -= 1;
    counts[next.state] += 1;
    entry.health = next;
  };

  return {
    report,
    changes,
    phase(p) {
      phase = p;
      changed(true);
    },
    broken() {
      alive = false;
      changed(true);
    },
    engage(cluster, watches, unservedResourceHint) {
      const old = entries.get(cluster);
      if (old !== undefined) counts[old.health.state] -= 1;
      entries.delete(cluster); // a re-engaged cluster moves to the end, as a new engagement
      const parts = { expected: watches, latest: new Map<string, WatchHealth>(), unservedResourceHint, denied: new Map<string, string>() };
      const entry = { ...parts, health: health(cluster, parts) };
      entries.set(cluster, entry);
      counts[entry.health.state] += 1;
      changed();
    },
    expect(cluster, watches) {
      const entry = entries.get(cluster);
      if (entry === undefined) return;
      entry.expected = watches;
      for (const id of [...entry.latest.keys()]) if (!watches.includes(id)) entry.latest.delete(id);
      setHealth(entry, health(cluster, entry));
      changed();
    },
    disengage(cluster) {
      const old = entries.get(cluster);
      if (old === undefined) return;
      entries.delete(cluster);
      counts[old.health.state] -= 1;
      changed();
    },
    watchHealth(h) {
      const entry = entries.get(h.cluster);
      if (entry === undefined) return undefined; // a late report of a cluster already gone
      const before = entry.latest.get(h.resource);
      entry.latest.set(h.resource, h);
      setHealth(entry, health(h.cluster, entry));
      changed();
      return before;
    },
    denied(cluster, source, reason) {
      const entry = entries.get(cluster);
      // Only a start or an end changes the report: the refusals between keep the first reason.
      if (entry === undefined || entry.denied.has(source) === (reason !== undefined)) return;
      if (reason === undefined) entry.denied.delete(source);
      else entry.denied.set(source, reason);
      setHealth(entry, health(cluster, entry));
      changed();
    },
    provider(r) {
      if (issues.apply(r)) changed();
    },
    replica(s) {
      replica = s;
      changed(true);
    },
    discovered(clusters) {
      if (clusters === discovered) return;
      discovered = clusters;
      changed();
    },
    firstPassDone() {
      if (firstPassDone) return;
      firstPassDone = true;
      changed(true);
    },
  };
}
