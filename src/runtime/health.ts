// Readiness as data: the latest WatchHealth of every watch of every engaged cluster, folded into
// one report that /readyz, the run handle and tests read. A controller is ready once the provider's
// first discovery pass is over, it discovered at least `minClusters`, and every engaged cluster's
// caches have synced or been reported unhealthy (a cluster that cannot serve the resource must not
// hold back the others). Per change the work is O(watches of that cluster): each cluster's health
// and the counts behind `ready` are kept up to date, the report is built only when read, and
// `changes` is coalesced (health-tracker-state.ts).
import type { ReplicaState } from './ha/replicas.js';
import type { Observable, SchedulerLike } from 'rxjs';
import type { ClusterName } from '../core/cluster.js';
import type { ProviderReport } from '../streams/provider-report.js';
import type { WatchHealth } from '../streams/watch-health.js';
import type { ProviderIssue } from './provider-issues.js';

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
 * - `unhealthy`: some watch has failed since its last successful list or line (backing off, or
 *   retrying and not yet answered), or is degraded (failing for its `degradedAfterMs`); or the
 *   server refuses a controller's requests there (401/403: RBAC, credentials, an admission policy)
 *   and their keys wait to be retried, until they get through. `reason` says why (the API
 *   server's message, or what to fix when the resource is not served there).
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
  /** What the provider discovered, against what readiness asks for. */
  readonly discovery: DiscoveryHealth;
  /** Why the run is not ready, in one sentence; absent when ready. */
  readonly notReady?: string;
  /** This replica's part under leader election or sharding (standby, leading, its share, fenced); absent for a single replica. */
  readonly replica?: ReplicaState;
}

/**
 * The provider's side of readiness: whether its first discovery pass is over, how many clusters it
 * discovered (before leader election or sharding picks this replica's share) and how many are
 * needed.
 *
 * @example
 * ```ts
 * const d: DiscoveryHealth = handle.health.report().discovery; // { firstPassDone: true, clusters: 3, minClusters: 1 }
 * ```
 */
export interface DiscoveryHealth {
  /** The provider said `discovered`, or the first-pass timeout passed. */
  readonly firstPassDone: boolean;
  /** Clusters the provider has engaged now, every replica's share included. */
  readonly clusters: number;
  /** Clusters needed (discovered, and engaged and synced here up to what this replica runs). */
  readonly minClusters: number;
}

/**
 * The health of a run as it changes. `report()` is the latest; `changes` replays it then follows,
 * coalesced: at most one report per `coalesceMs` while clusters' watches change (the latest state
 * is always emitted), phase changes at once.
 *
 * @example
 * ```ts
 * await firstValueFrom(handle.health.changes.pipe(filter((r: HealthReport) => r.ready)));
 * ```
 */
export interface HealthView {
  /** The latest report. */
  report(): HealthReport;
  /** The latest report, then its changes (coalesced, see above). */
  readonly changes: Observable<HealthReport>;
}

/**
 * The writer side of {@link HealthView}, used by `run`.
 *
 * @example
 * ```ts
 * const t = healthTracker();
 * t.engage(clusterName('east'), ['configmaps']);
 * t.watchHealth({ cluster: clusterName('east'), resource: 'configmaps', state: 'connected', synced: true, relists: 0, reconnects: 0, interruptions: 0 });
 * t.phase('running');
 * t.report().ready; // true
 * ```
 */
export interface HealthTracker extends HealthView {
  /** Moves the run to another phase. */
  phase(p: RunPhase): void;
  /** Marks the pipeline as failed: /healthz answers 503 from now on. */
  broken(): void;
  /**
   * A cluster joined, with the ids (`resourceId`s) of the watches it will report, and its
   * `Cluster.unservedResourceHint` (what to do when one of them answers 404).
   */
  engage(cluster: ClusterName, watches: readonly string[], unservedResourceHint?: string): void;
  /**
   * The watches an engaged cluster reports changed (a controller joined or left the run): a watch
   * no longer expected is forgotten, a new one holds the cluster `syncing` until it syncs. An unknown
   * cluster is ignored.
   */
  expect(cluster: ClusterName, watches: readonly string[]): void;
  /** A cluster left: its health is forgotten. */
  disengage(cluster: ClusterName): void;
  /** Records a watch's health; returns the previous snapshot of that watch. */
  watchHealth(h: WatchHealth): WatchHealth | undefined;
  /**
   * Whether the server refuses (401/403) requests of `source` (a controller) in `cluster`, whose
   * keys wait the queue's slow `authBackoff`: the cluster is `unhealthy` with `reason` until called
   * with `undefined` (its refused keys got through, went, or left) or it leaves. Only a start or an
   * end changes the report; an unknown cluster is ignored.
   */
  denied(cluster: ClusterName, source: string, reason: string | undefined): void;
  /** Records a provider report (a problem, or its end). */
  provider(r: ProviderReport): void;
  /** Records this replica's state under leader election or sharding (a standby stays alive and ready). */
  replica(s: ReplicaState): void;
  /** How many clusters the provider has engaged now, before any ownership filter. */
  discovered(clusters: number): void;
  /** The provider's first discovery pass is over (its `discovered` report, or the first-pass timeout). */
  firstPassDone(): void;
}

/**
 * Options of {@link healthTracker}. The defaults keep a bare tracker's old meaning (an empty fleet
 * is ready); `run` asks for the first discovery pass and at least one cluster.
 *
 * @example
 * ```ts
 * const t = healthTracker({ minClusters: 1, awaitFirstPass: true, scheduler: asyncScheduler });
 * ```
 */
export interface HealthTrackerOptions {
  /** Clusters the provider must have discovered, and this replica synced up to what it runs. Default 0. */
  readonly minClusters?: number;
  /** Not ready until {@link HealthTracker.firstPassDone}. Default false. */
  readonly awaitFirstPass?: boolean;
  /** Drives the coalescing of `changes`. Default `asyncScheduler`. */
  readonly scheduler?: SchedulerLike;
  /** At most one report per this many ms on `changes` while watches change. Default 100. */
  readonly coalesceMs?: number;
  /**
   * Clusters readiness cannot do without (see `ControllerSpec.requiredClusters`): not ready while
   * one of them is syncing, unhealthy (forbidden, unreachable) or, outside leader election and
   * sharding, not engaged. Default none.
   */
  readonly requiredClusters?: readonly ClusterName[];
}

/**
 * The message for a watch whose list was answered 404: the resource is not served by that cluster.
 * What to do comes from the cluster's provider (`Cluster.unservedResourceHint`), so this
 * message names no provider.
 *
 * @example
 * ```ts
 * unservedMessage('rollouts.demo.rxfleet.dev'); // '... is not served by this cluster (list answered 404): install its CRD, or check ...'
 * unservedMessage('widgets.example.com', 'export it from APIExport widgets'); // '...: export it from APIExport widgets, or check ...'
 * ```
 * @param resource - the resource id.
 * @param hint - the cluster's `Cluster.unservedResourceHint`; default `install its CRD`.
 * @returns what to fix, in one sentence.
 */
export function unservedMessage(resource: string, hint = 'install its CRD'): string {
  return `resource ${resource} is not served by this cluster (list answered 404): ${hint}, or check the group, version and plural of the descriptor`;
}

/**
 * Why a failing watch makes its cluster unhealthy, in one sentence: what to fix when the resource
 * is not served, else the last error; a degraded watch says since when it has been failing.
 *
 * @example
 * ```ts
 * failingReason(h); // 'degraded: the configmaps watch has been failing since 2026-11-23T12:00:00.000Z ...'
 * failingReason(h, cluster.unservedResourceHint); // a 404 before the first list: the provider's hint
 * ```
 * @param h - a watch that is backing off or degraded.
 * @param unservedResourceHint - the cluster's `Cluster.unservedResourceHint`, for a resource it does not serve.
 * @returns the reason.
 */
export function failingReason(h: WatchHealth, unservedResourceHint?: string): string {
  const err = h.lastError;
  const why = err?.type === 'NotFound' && !h.synced ? unservedMessage(h.resource, unservedResourceHint) : (err?.message ?? 'watch backing off');
  if (h.degraded !== true) return why;
  // Health times are epoch milliseconds with the default scheduler: an operator reads a date.
  const since = h.failingSinceAt === undefined ? '' : ` since ${new Date(h.failingSinceAt).toISOString()}`;
  return `degraded: the ${h.resource} watch has been failing${since} without a successful list or event; last error: ${why}`;
}
