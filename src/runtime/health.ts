// Readiness as data: the latest WatchHealth of every watch of every engaged cluster, folded into
// one report that /readyz, the run handle and tests read. A controller is ready once every engaged
// cluster's caches have synced or been reported unhealthy (a cluster that cannot serve the
// resource must not hold back the others).
import { BehaviorSubject } from 'rxjs';
import type { ReplicaState } from './ha/replicas.js';
import type { Observable } from 'rxjs';
import type { ClusterName } from '../core/cluster.js';
import type { ProviderReport } from '../streams/provider-report.js';
import type { WatchHealth } from '../streams/watch-health.js';
import type { ProviderIssue } from './provider-issues.js';
import { providerIssues } from './provider-issues.js';

/**
 * Where a run stands: `starting` (before the provider is subscribed), `running`, `stopping`
 * (draining in-flight reconciles), `stopped`.
 *
 * @example
 * ```ts
 * const phase: RunPhase = handle.health.report().phase;
 * ```
 */
export type RunPhase = 'starting' | 'running' | 'stopping' | 'stopped';

/**
 * One engaged cluster's health.
 *
 * - `syncing`: some watch has not delivered its first full list yet.
 * - `synced`: every watch is synced and none is failing.
 * - `unhealthy`: some watch is backing off after a failure, or is degraded (failing for its
 *   `degradedAfterMs` without a successful list or event, even between retries); `reason` says
 *   why (the API server's message, or what to fix when the resource is not served there).
 *
 * @example
 * ```ts
 * const bad = report.clusters.filter((c: ClusterHealth) => c.state === 'unhealthy');
 * ```
 */
export interface ClusterHealth {
  /** The cluster's name in the fleet. */
  readonly cluster: ClusterName;
  /** See above: syncing, synced or unhealthy. */
  readonly state: 'syncing' | 'synced' | 'unhealthy';
  /** Why it is unhealthy, and what to fix when rxfleet knows. */
  readonly reason?: string;
  /** The latest health of each watch of this cluster (absent until its watch reports). */
  readonly watches: readonly WatchHealth[];
}

/**
 * A snapshot of a run's health.
 *
 * @example
 * ```ts
 * const r: HealthReport = handle.health.report();
 * if (!r.ready) console.log(r.clusters.filter((c) => c.state !== 'synced'));
 * ```
 */
export interface HealthReport {
  /** Where the run stands. */
  readonly phase: RunPhase;
  /** False only when the pipeline broke (liveness: `/healthz`). */
  readonly alive: boolean;
  /** Running, and every engaged cluster synced or reported unhealthy (`/readyz`). */
  readonly ready: boolean;
  /** Every engaged cluster, in engagement order. */
  readonly clusters: readonly ClusterHealth[];
  /** Current discovery problems reported by the provider (skipped candidates, failing sources). */
  readonly providers: readonly ProviderIssue[];
  /** This replica's part under leader election or sharding (standby, leading, its share, fenced); absent for a single replica. */
  readonly replica?: ReplicaState;
}

/**
 * The health of a run as it changes. `report()` is the latest; `changes` replays it then follows.
 *
 * @example
 * ```ts
 * await firstValueFrom(handle.health.changes.pipe(filter((r: HealthReport) => r.ready)));
 * ```
 */
export interface HealthView {
  /** The latest report. */
  report(): HealthReport;
  /** The latest report, then every change. */
  readonly changes: Observable<HealthReport>;
}

/**
 * The writer side of {@link HealthView}, used by `run`.
 *
 * @example
 * ```ts
 * const t = healthTracker();
 * t.engage(clusterName('east'), ['configmaps']);
 * t.watchHealth({ cluster: clusterName('east'), resource: 'configmaps', state: 'connected', synced: true, relists: 0, reconnects: 0 });
 * t.phase('running');
 * t.report().ready; // true
 * ```
 */
export interface HealthTracker extends HealthView {
  /** Moves the run to another phase. */
  phase(p: RunPhase): void;
  /** Marks the pipeline as failed: /healthz answers 503 from now on. */
  broken(): void;
  /** A cluster joined, with the ids (`resourceId`s) of the watches it will report. */
  engage(cluster: ClusterName, watches: readonly string[]): void;
  /** A cluster left: its health is forgotten. */
  disengage(cluster: ClusterName): void;
  /** Records a watch's health; returns the previous snapshot of that watch. */
  watchHealth(h: WatchHealth): WatchHealth | undefined;
  /** Records a provider report (a problem, or its end). */
  provider(r: ProviderReport): void;
  /** Records this replica's state under leader election or sharding (a standby stays alive and ready). */
  replica(s: ReplicaState): void;
}

/**
 * The message for a watch whose list was answered 404: the resource is not served by that cluster.
 *
 * @example
 * ```ts
 * unservedMessage('rollouts.demo.rxfleet.dev'); // '... is not served by this cluster: install its CRD ...'
 * ```
 * @param resource - the resource id.
 * @returns what to fix, in one sentence.
 */
export function unservedMessage(resource: string): string {
  return `resource ${resource} is not served by this cluster (list answered 404): install its CRD (or bind its APIExport in kcp), or check the group, version and plural of the descriptor`;
}

/**
 * Why a failing watch makes its cluster unhealthy, in one sentence: what to fix when the resource
 * is not served, else the last error; a degraded watch says since when it has been failing.
 *
 * @example
 * ```ts
 * failingReason(h); // 'degraded: the configmaps watch has been failing since 2026-11-23T12:00:00.000Z ...'
 * ```
 * @param h - a watch that is backing off or degraded.
 * @returns the reason.
 */
export function failingReason(h: WatchHealth): string {
  const err = h.lastError;
  const why = err?.type === 'NotFound' && !h.synced ? unservedMessage(h.resource) : (err?.message ?? 'watch backing off');
  if (h.degraded !== true) return why;
  // Health times are epoch milliseconds with the default scheduler: an operator reads a date.
  const since = h.failingSince === undefined ? '' : ` since ${new Date(h.failingSince).toISOString()}`;
  return `degraded: the ${h.resource} watch has been failing${since} without a successful list or event; last error: ${why}`;
}

function clusterHealth(cluster: ClusterName, expected: readonly string[], latest: ReadonlyMap<string, WatchHealth>): ClusterHealth {
  const watches = expected.flatMap((id) => {
    const h = latest.get(id);
    return h === undefined ? [] : [h];
  });
  // A degraded watch first: it stays unhealthy between retries, when its state is briefly `connected`.
  const failing = watches.find((h) => h.degraded === true) ?? watches.find((h) => h.state === 'backingOff');
  if (failing !== undefined) return { cluster, state: 'unhealthy', reason: failingReason(failing), watches };
  const synced = watches.length === expected.length && watches.every((h) => h.synced);
  return { cluster, state: synced ? 'synced' : 'syncing', watches };
}

/**
 * Makes a {@link HealthTracker}.
 *
 * @example
 * ```ts
 * const t = healthTracker();
 * t.changes.subscribe((r: HealthReport) => console.log(r.ready));
 * ```
 * @returns the tracker, in phase `starting`.
 */
export function healthTracker(): HealthTracker {
  let phase: RunPhase = 'starting';
  let alive = true;
  const expected = new Map<ClusterName, readonly string[]>();
  const latest = new Map<ClusterName, Map<string, WatchHealth>>();
  const issues = providerIssues();
  let replica: ReplicaState | undefined;
  const build = (): HealthReport => {
    const clusters = [...expected].map(([c, ids]) => clusterHealth(c, ids, latest.get(c) ?? new Map()));
    const ready = alive && phase === 'running' && clusters.every((c) => c.state !== 'syncing');
    return Object.freeze({ phase, alive, ready, clusters, providers: issues.list(), ...(replica === undefined ? {} : { replica }) });
  };
  const subject = new BehaviorSubject<HealthReport>(build());
  const publish = (): void => {
    subject.next(build());
  };
  return {
    report: () => subject.value,
    changes: subject.asObservable(),
    phase(p) {
      phase = p;
      publish();
    },
    broken() {
      alive = false;
      publish();
    },
    engage(cluster, watches) {
      expected.set(cluster, watches);
      latest.set(cluster, new Map());
      publish();
    },
    disengage(cluster) {
      expected.delete(cluster);
      latest.delete(cluster);
      publish();
    },
    watchHealth(h) {
      const perCluster = latest.get(h.cluster);
      if (perCluster === undefined) return undefined; // a late report of a cluster already gone
      const before = perCluster.get(h.resource);
      perCluster.set(h.resource, h);
      publish();
      return before;
    },
    provider(r) {
      if (issues.apply(r)) publish();
    },
    replica(s) {
      replica = s;
      publish();
    },
  };
}
