// What `run` takes and gives: options, the handle of a running controller, and how a run ended.
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { Observable, SchedulerLike } from 'rxjs';
import type { Outcome } from '../operators/types.js';
import type { KubeObject } from '../core/object.js';
import type { Controller } from './controller.js';
import type { Fleet } from '../streams/fleet.js';
import type { ClusterRateLimitOption } from './cluster-rate-limit.js';
import type { Replicas, ReplicaView } from './ha/replicas.js';
import type { StopReason } from './errors.js';
import type { HealthView } from './health.js';
import type { ProbeServerOptions } from './http.js';
import type { ControllerMetrics, ControllerMetricsOptions } from './metrics.js';
import type { SignalTarget } from './signals.js';

/**
 * What a run asks of its fleet at start and for readiness.
 *
 * @example
 * ```ts
 * const fleet: DiscoveryOptions = { minClusters: 3, firstPassTimeoutMs: 60_000 };
 * const sandbox: DiscoveryOptions = { allowEmpty: true }; // an empty fleet is fine, and ready
 * ```
 */
export interface DiscoveryOptions {
  /**
   * Readiness needs at least this many clusters discovered by the provider (before leader
   * election or sharding picks this replica's share), and synced here up to the number this
   * replica runs (a standby runs none and stays ready). Default 1, or 0 with `allowEmpty`.
   */
  readonly minClusters?: number;
  /**
   * Run on even when the provider's first discovery pass found no cluster and reported problems
   * (a missing kubeconfig path, an unreadable file, a failing source). Default false: such a start
   * ends the run with reason `config` (exit code 2) and a message naming the provider, the source
   * and the cause.
   */
  readonly allowEmpty?: boolean;
  /**
   * How long the provider's first discovery pass may take (from its `discovered` report). Past it
   * the pass is judged as it stands (a provider that never says `discovered` is then taken as done,
   * with a warning). Default 30 000 ms.
   */
  readonly firstPassTimeoutMs?: number;
}

/**
 * Options of {@link run}.
 *
 * @example
 * ```ts
 * const opts: RunOptions = { http: { port: 8081 }, shutdownDeadlineMs: 10_000, logger: pino() };
 * ```
 */
export interface RunOptions {
  /**
   * Names a run of several controllers: its log lines, probe errors and the `controller` label of
   * the fleet's series (watches, engaged clusters, provider reports, process). Default: the
   * controllers' names joined by `+` (one controller: its name).
   */
  readonly name?: string;
  /** The root logger (default: JSON to stderr, level from `LOG_LEVEL`). */
  readonly logger?: Logger;
  /** The probe and metrics server, or `false` for none. Default `{ host: '127.0.0.1', port: 0 }`. */
  readonly http?: ProbeServerOptions | false;
  /** Stop gracefully on SIGTERM/SIGINT (a second signal stops at once). Default `true` (`process`). */
  readonly signals?: boolean | SignalTarget;
  /** How long a graceful stop waits for in-flight reconciles before aborting them. Default 30 000 ms. */
  readonly shutdownDeadlineMs?: number;
  /** Drives the queue's timers, the watches and the deadline. Default `asyncScheduler`. */
  readonly scheduler?: SchedulerLike;
  /** Register the metrics here instead of on a fresh registry (to serve several controllers). */
  readonly registry?: Registry;
  /** Cardinality of the metrics, e.g. `{ perClusterHistograms: true }` (default: none per cluster). */
  readonly metrics?: ControllerMetricsOptions;
  /**
   * More registries /metrics serves, merged family by family with the run's: the series of requests
   * the program sends outside its controllers (`requestMetrics` in rxfleet/runtime), which outlive
   * one run. Their series must differ from the run's by their `controller` label. Default none.
   */
  readonly metricsFrom?: readonly Registry[];
  /** Called with every finished reconcile from the very first (before `run` resolves). Must not throw. */
  readonly onOutcome?: (outcome: Outcome) => void;
  /**
   * Run as one of several replicas: leader election (one runs every cluster) or sharding (each
   * runs its share), on Leases in a namespace of a home cluster. Absent: this process runs
   * everything, unguarded.
   */
  readonly replicas?: Replicas;
  /** What the fleet must be at start and for readiness (see {@link DiscoveryOptions}). */
  readonly discovery?: DiscoveryOptions;
  /**
   * A client-side rate limit per engaged cluster (QPS and burst, like client-go's `rest.Config`),
   * or a function choosing each cluster's (`undefined`: unlimited). Off by default. Each cluster
   * gets its own token bucket, taken by every request of its client: the sinks' reads and writes,
   * a reconciler's own calls through `ctx.fleet`, and the list and watch requests of its watches.
   * A 429 with `Retry-After` pauses that cluster's bucket (at most `maxPauseMs`, default 30 s); a
   * request that cannot get a token within its timeout (`maxWaitMs`, default 60 s) fails with
   * `Timeout`, unsent. The work queue starts no key of a cluster whose bucket is empty, so a
   * throttled cluster's keys wait in its own lane and never hold workers other clusters need.
   * Waits are counted in `rxfleet_client_throttled_requests_total{cluster,result}` and
   * `rxfleet_client_throttled_seconds_total{cluster}`, pauses in
   * `rxfleet_client_rate_limit_pauses_total{cluster}`. Replaces the controller's deprecated
   * `sinks.rateLimit` (giving both is a ConfigError).
   *
   * @example
   * ```ts
   * await run(web, { clusterRateLimit: { qps: 5, burst: 10 } }); // every cluster
   * await run(web, { clusterRateLimit: (c: Cluster) => (c.labels?.['size'] === 'small' ? { qps: 2, burst: 4 } : undefined) });
   * ```
   */
  readonly clusterRateLimit?: ClusterRateLimitOption;
}

/**
 * How a run ended.
 *
 * @example
 * ```ts
 * const r: RunResult = await handle.done;
 * process.exitCode = r.code;
 * ```
 */
export interface RunResult {
  /** Why the run ended. */
  readonly reason: StopReason;
  /** The process exit code for `reason` (see `exitCodes` in rxfleet/runtime). */
  readonly code: number;
  /** What happened, in one sentence (also logged). */
  readonly message: string;
  /** Reconciles aborted by the deadline (0 unless `reason` is `deadline`). */
  readonly aborted: number;
}

/**
 * A running controller.
 *
 * @example
 * ```ts
 * const handle = await run(c);
 * console.log(`probes on ${handle.url ?? 'nowhere'}`);
 * const result = await handle.stop();
 * ```
 */
export interface RunHandle {
  /** The controller's name (several controllers: the run's name, see `RunOptions.name`). */
  readonly name: string;
  /** `http://127.0.0.1:<port>` of the probe server, when there is one. */
  readonly url: string | undefined;
  /** Readiness and per-cluster health, as served on /readyz. */
  readonly health: HealthView;
  /** The metrics, as served on /metrics (several controllers: the fleet's series; /metrics adds each controller's). */
  readonly metrics: ControllerMetrics;
  /** Every finished reconcile from now on (hot: see `RunOptions.onOutcome` for all of them). Completes at the end. */
  readonly outcomes: Observable<Outcome>;
  /** The live fleet (under leader election or sharding: the clusters this replica runs). */
  readonly fleet: Fleet;
  /** This replica's identity and state, when `RunOptions.replicas` is set. */
  readonly replica?: ReplicaView;
  /**
   * Starts more controllers in this run while it runs, beside the others: they share its fleet,
   * watches, health, probe server and Lease. Each must name the run's provider and watch settings,
   * one of its field managers and only clusters its readiness already requires, and a name no
   * running controller has. Their watches count for readiness from now on (a cluster is `syncing`
   * until they sync). The provider's reports so far are not replayed to them (`fleet.reports` is
   * hot): an input that waits for the first discovery pass reads `health` instead. Does nothing
   * once a stop was requested.
   *
   * @example
   * ```ts
   * handle.add([syncController(plan, { provider })]);
   * ```
   * @throws ConfigError naming what keeps one from joining (then none is added).
   */
  add(controllers: readonly Controller<KubeObject>[]): void;
  /**
   * Stops the named controllers of this run and leaves the others running: their input ends, their
   * running and ready keys finish (retries are dropped; after the run's shutdown deadline what still
   * runs is aborted), then their watches are released and their series leave /metrics. Names not
   * running are ignored.
   *
   * @example
   * ```ts
   * await handle.remove(['databases']);
   * handle.add([syncController(changedPlan, { provider })]);
   * ```
   * @returns once they drained.
   */
  remove(names: readonly string[]): Promise<void>;
  /** Stops taking new work, lets running reconciles finish within the deadline, then tears down. */
  stop(options?: { readonly deadlineMs?: number }): Promise<RunResult>;
  /** Resolves when the run has ended and everything is released. Never rejects. */
  readonly done: Promise<RunResult>;
}
