// Health of one watch as data: what a readiness probe, a metric or a log line reads, instead of
// a watch that fails silently (the JS client's informer stalls without telling anyone).
import type { ClusterName } from '../core/cluster.js';
import type { KubeError } from '../core/errors.js';
import type { KubeObject } from '../core/object.js';
import type { WatchEvent } from './events.js';

/**
 * Where a watch stands.
 *
 * - `listing`: the first list (or streaming list) is in progress.
 * - `relisting`: listing again after a 410 Gone.
 * - `connected`: the cache is synced and a watch request is open.
 * - `backingOff`: the last attempt failed; the next one is at `nextAttemptAt`.
 *
 * @example
 * ```ts
 * const ready = (h: WatchHealth) => h.state === 'connected';
 * ```
 */
export type WatchState = 'listing' | 'relisting' | 'connected' | 'backingOff';

/**
 * A snapshot of the health of one watch (one resource in one cluster). Times are the watch
 * scheduler's `now()` in milliseconds (wall-clock epoch ms with the default scheduler).
 *
 * @example
 * ```ts
 * const informer = createInformers().informer(cluster, configMaps);
 * informer.health.subscribe((h) => {
 *   if (h.state === 'backingOff') log.warn({ cluster: h.cluster, err: h.lastError?.message }, 'watch retrying');
 * });
 * ```
 */
export interface WatchHealth {
  /** The fleet name of the watched cluster. */
  readonly cluster: ClusterName;
  /** `resourceId` of the watched resource, e.g. `configmaps`. */
  readonly resource: string;
  /** Where the watch stands now: `listing`, `relisting`, `connected` or `backingOff`. */
  readonly state: WatchState;
  /** True once a full list has been delivered; stays true across reconnects and relists. */
  readonly synced: boolean;
  /** When the next attempt starts (only while `backingOff`). */
  readonly nextAttemptAt?: number;
  /** The last failure, kept after recovery so a flapping watch can be diagnosed. */
  readonly lastError?: KubeError;
  /**
   * When the current run of failures began: the first failure since the last successful list or
   * line from the server. Absent while the watch works.
   */
  readonly failingSinceAt?: number;
  /**
   * True once the watch has failed for `degradedAfterMs` (an option of `WatchStreamOptions`, default
   * 2 min) without a successful list or a line from the server; absent otherwise. The runtime
   * reports its cluster unhealthy while it is set, and logs it once.
   */
  readonly degraded?: boolean;
  /** When a line last arrived (events and bookmarks), refreshed at most every few seconds. */
  readonly lastEventAt?: number;
  /** Lists made after the first successful one (each follows a 410 Gone). */
  readonly relists: number;
  /**
   * Watch requests sent again after the first one of each listing: routine renewals (the server
   * ends every watch at its `timeoutSeconds`, every 5 to 10 minutes), recoveries and failed
   * attempts alike.
   */
  readonly reconnects: number;
  /**
   * Open watches (a streaming list's included) that ended other than by a routine renewal: closed
   * by the server or a proxy before the `timeoutSeconds` they asked for, cut, ended by an ERROR
   * event or an undecodable line, or restarted by the inactivity timeout. A watch is open once the
   * server answered 2xx. An attempt that never opened (no connection, TLS, no answer in time, an
   * answer other than 2xx) is not an interruption: it is a failure of the request, counted by the
   * transport (`rxfleet_requests_total{verb="watch"}` with its error tag or status class) and here
   * in `lastError`, `failingSinceAt` and `degraded`, so a cluster that stays unreachable counts none
   * however long it stays down. Ends counted elsewhere are not here either: a 410 Gone (in
   * `relists`) and a server refusing streaming lists (which switches to list-then-watch). A healthy
   * watch keeps 0 at any age.
   */
  readonly interruptions: number;
  /**
   * Set when this cluster's watch is a view of a watch shared by many clusters (a kcp endpoint's
   * wildcard watch, split by workspace): its failures are that one watch's, and the runtime logs
   * them once for the shared watch, not once per cluster.
   */
  readonly shared?: SharedWatch;
}

/**
 * The watch a cluster's view reads, shared with other clusters.
 *
 * @example
 * ```ts
 * const s: SharedWatch = { watch: clusterName('https://kcp/services/apiexport/x/e/clusters/*'), clusters: 10_000 };
 * ```
 */
export interface SharedWatch {
  /** The shared watch's own cluster name (a kcp endpoint's wildcard URL). */
  readonly watch: ClusterName;
  /** How many clusters read it now. */
  readonly clusters: number;
}

/**
 * What the watch state machine emits: the events of the contract in events.ts interleaved with
 * health snapshots, so both travel in one cold stream and share one subscription.
 *
 * @example
 * ```ts
 * watchSignals(source, config).subscribe((s) => (s.type === 'event' ? store(s.event) : report(s.health)));
 * ```
 */
export type WatchSignal<T extends KubeObject = KubeObject> =
  | {
      /** A watch event of the contract in events.ts. */
      readonly type: 'event';
      /** The event itself (`initStarted`, `initApply`, `initDone`, `applied` or `deleted`). */
      readonly event: WatchEvent<T>;
    }
  | {
      /** The watch's health changed. */
      readonly type: 'health';
      /** The new health snapshot. */
      readonly health: WatchHealth;
    };
