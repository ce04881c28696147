// The knobs of a watch, with the defaults RELIABILITY.md asks for. Kept apart from the state
// machine so the informer registry and the fleet can pass them through without importing it.
import type { SchedulerLike } from 'rxjs';
import type { ClusterName } from '../core/cluster.js';
import type { ResourceDescriptor } from '../core/resource.js';
import type { Backoff } from './backoff.js';
import type { Selection } from './cluster.js';
import type { ListTurn } from './list-pacing.js';

/**
 * How one watch stream behaves (lists, timeouts, backoff), shared by {@link watchEvents},
 * {@link watchSignals}, the informers and every provider's management watch; what it selects
 * (`Selection`) and the scheduler it runs on are the options of each of those. Every field is
 * optional; the defaults meet RELIABILITY.md "Watches".
 *
 * @example
 * ```ts
 * const opts: WatchStreamOptions = { streamingList: false, inactivityTimeoutMs: 150_000 };
 * ```
 */
export interface WatchStreamOptions {
  /**
   * Use streaming lists (`sendInitialEvents=true`) where the server supports them; a refusal falls
   * back to list-then-watch for the rest of the watch's life. Default true: the server sends the
   * initial state as watch events, so no list response is ever held in memory whole.
   */
  readonly streamingList?: boolean;
  /**
   * First list with `resourceVersion=0` (served from the API server's watch cache: cheap, may be
   * slightly stale; the watch catches up). Relists after a 410 always read consistently. Default true.
   */
  readonly initialListFromCache?: boolean;
  /** Keep `metadata.managedFields` in delivered objects. Default false. */
  readonly keepManagedFields?: boolean;
  /**
   * Keep, of `metadata.managedFields`, the server-side apply entries (operation `Apply`) of these
   * field managers, and cut the rest: what lets `apply` prove from the cache that a write would
   * change nothing. `run` sets it to its controllers' field managers, and its informers ask a
   * provider's shared caches for the same (`CacheViewOptions.keepManagedFieldsOf`). Default none.
   */
  readonly keepManagedFieldsOf?: readonly string[];
  /** Page size of lists. Default 500. */
  readonly pageSize?: number;
  /**
   * A watch that receives no line (event or bookmark) for this long is presumed dead and restarted
   * from its last resourceVersion. Must exceed the server's bookmark interval (about 1 min).
   * Default 120 000 ms.
   */
  readonly inactivityTimeoutMs?: number;
  /** Range of the random `timeoutSeconds` asked of the server per watch request. Default 300–600 s. */
  readonly serverTimeoutSeconds?: {
    /** Shortest `timeoutSeconds` asked of the server, in seconds (default 300). */
    readonly min: number;
    /** Longest `timeoutSeconds` asked of the server, in seconds (default 600). */
    readonly max: number;
  };
  /**
   * The longest a watch waits for a server's `Retry-After` (429): a gateway answering
   * `Retry-After: 3600` must not stall a watch for an hour. The wait is the larger of the backoff
   * and the capped `Retry-After`; health shows it in `nextAttemptAt`. Default 30 000 ms, like the
   * sinks' cap.
   */
  readonly maxRetryAfterMs?: number;
  /**
   * A watch failing for this long without a successful list or a line from the server (an event
   * or a bookmark) is degraded: its health says `degraded: true` until it works again, and the
   * runtime reports its cluster unhealthy and logs it once. Default 120 000 ms.
   */
  readonly degradedAfterMs?: number;
  /** Reconnect backoff; what is given is laid over {@link defaultBackoff}. */
  readonly backoff?: Partial<Backoff>;
  /** Backoff after 401/403; what is given is laid over {@link defaultAuthBackoff}. */
  readonly authBackoff?: Partial<Backoff>;
  /** Uniform random numbers in [0, 1) for jitter. Default `Math.random`. */
  readonly random?: () => number;
}

/**
 * {@link WatchStreamOptions} plus what the state machine cannot infer from an injected source.
 *
 * @example
 * ```ts
 * const config: WatchSignalsOptions = { cluster: clusterName('east'), resource: configMaps, namespace: 'default' };
 * ```
 */
export interface WatchSignalsOptions extends WatchStreamOptions, Selection {
  /** The fleet name of the watched cluster, reported in health and errors. */
  readonly cluster: ClusterName;
  /** The resource watched; health names it by its `resourceId`. */
  readonly resource: ResourceDescriptor;
  /**
   * Waits for this watch's turn before each list (plain or streaming, relists included) and gives
   * it back when the list is over; until then the watch is `listing` and not synced. Informers and
   * shared watches pass their server's turn (`listsPerServer`); absent, lists are not paced.
   */
  readonly listTurn?: ListTurn;
  /** Drives every timer (backoff, inactivity) and every timestamp. Default `asyncScheduler`. */
  readonly scheduler?: SchedulerLike;
}

/**
 * The annotation of the BOOKMARK that ends the initial events of a streaming list.
 *
 * @example
 * ```ts
 * ev.object.metadata.annotations?.[initialEventsEndAnnotation] === 'true';
 * ```
 */
export const initialEventsEndAnnotation = 'k8s.io/initial-events-end';
