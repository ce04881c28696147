// The contracts of the operators step: what flows into `reconcile` (events and plain enqueue
// requests), what a reconciler receives, and the outcomes it reports.
import type { Logger } from 'pino';
import type { ObservableInput } from 'rxjs';
import type { FleetView } from '../streams/cluster.js';
import type { ClusterName } from '../core/cluster.js';
import type { ObjectKey } from '../core/key.js';
import type { KubeObject } from '../core/object.js';
import type { ResourceDescriptor } from '../core/resource.js';
import type { KeyedEvent } from '../streams/events.js';
import type { Action } from './actions.js';

/**
 * "Look at this key": what mapping operators emit. Controllers enqueue requests, they do not
 * handle events; the key may be in any cluster, which is how cross-cluster flows are written.
 *
 * @example
 * ```ts
 * const r: EnqueueRequest<Rollout> = enqueue(objectKey(clusterName('hub'), 'default', 'web'), rollouts);
 * ```
 */
export interface EnqueueRequest<T extends KubeObject = KubeObject> {
  /** Tells an enqueue request apart from the keyed events `reconcile` also consumes. */
  readonly type: 'enqueue';
  /** The object to reconcile: its cluster, namespace and name (it need not exist). */
  readonly key: ObjectKey;
  /** The resource (group, version, kind) of the object to reconcile. */
  readonly resource: ResourceDescriptor<T>;
}

/**
 * What `reconcile` consumes: keyed events of the reconciled resource, and enqueue requests for it.
 *
 * @example
 * ```ts
 * const input: Observable<ReconcileInput<Rollout>> = merge(fleetWatch(fleet, rollouts), fleetWatch(fleet, pods).pipe(mapToOwner(rollouts)));
 * ```
 */
export type ReconcileInput<T extends KubeObject = KubeObject> = KeyedEvent<T> | EnqueueRequest<T>;

/**
 * Makes an {@link EnqueueRequest}.
 *
 * @example
 * ```ts
 * enqueue(objectKey(clusterName('hub'), 'default', 'web'), rollouts);
 * ```
 * @param key - the key to reconcile.
 * @param resource - its resource.
 * @returns the frozen request.
 */
export function enqueue<T extends KubeObject>(key: ObjectKey, resource: ResourceDescriptor<T>): EnqueueRequest<T> {
  return Object.freeze({ type: 'enqueue', key, resource });
}

/**
 * What a reconciler is asked to look at. `object` is read when the reconcile starts
 * (level-triggered): from `lookup` when the config gives one, else the object of the latest event
 * for the key, `undefined` after a delete (and for a plain enqueue of a key with no pending event).
 *
 * @example
 * ```ts
 * const fn: Reconciler<ConfigMap> = (req) => (req.object === undefined ? cleanup(req.key) : copyToFleet(req.object));
 * ```
 */
export interface ReconcileRequest<T extends KubeObject = KubeObject> {
  /** The fleet name of the key's cluster (the same as `key.cluster`). */
  readonly cluster: ClusterName;
  /** The object to reconcile: its cluster, namespace and name. */
  readonly key: ObjectKey;
  /** The resource (group, version, kind) of the object. */
  readonly resource: ResourceDescriptor<T>;
  /** Its latest known state when the reconcile starts; `undefined` after a delete, or when nothing is known of the key (a plain enqueue, a lookup miss). */
  readonly object: T | undefined;
}

/**
 * What a reconciler may use besides the request. `signal` aborts when the key's cluster leaves
 * the fleet or the pipeline is unsubscribed; pass it to anything cancellable.
 *
 * @example
 * ```ts
 * const fn: Reconciler<ConfigMap> = (req, ctx) => {
 *   ctx.logger.info({ attempt: ctx.attempt }, 'reconciling');
 *   return defer(() => fetch(url, { signal: ctx.signal })).pipe(map(() => done()));
 * };
 * ```
 */
export interface ReconcileContext {
  /** The fleet given in the config, to reach other clusters. */
  readonly fleet: FleetView | undefined;
  /** A child of the configured logger with `{ cluster, key }`. */
  readonly logger: Logger;
  /** Aborted when the key's cluster leaves the fleet (the run is then reported as `dropped`) or the pipeline is unsubscribed. */
  readonly signal: AbortSignal;
  /** 1 for the first try after a success, n for the n-th consecutive try after failures. */
  readonly attempt: number;
}

/**
 * The user's reconcile logic. It returns the resulting {@link Action} directly, or an
 * `ObservableInput` (Observable, Promise, array) of actions: the last one emitted counts, none
 * means `done()`. Throwing, rejecting or erroring is the same as returning `error(cause)`.
 *
 * @example
 * ```ts
 * const fn: Reconciler<ConfigMap> = (req) => defer(() => sinks.apply(req.object)).pipe(map(() => done()));
 * ```
 */
export type Reconciler<T extends KubeObject = KubeObject> = (
  request: ReconcileRequest<T>,
  context: ReconcileContext,
) => Action | ObservableInput<Action>;

/**
 * How a reconcile ended:
 * `done` and `requeue` (success), `error` (will be retried: see `retryIn`), `terminal` (will not),
 * `dropped` (its cluster left the fleet while it ran, so it was aborted; or, with `replicas`, a
 * write was refused because this replica lost its lease or no longer runs the cluster: ownership
 * moved, and the cluster's next owner reconciles the key. Not retried, not a failure).
 *
 * @example
 * ```ts
 * const failed = (o: Outcome) => o.result === 'error' || o.result === 'terminal';
 * ```
 */
export type OutcomeResult = 'done' | 'requeue' | 'error' | 'terminal' | 'dropped';

/**
 * One finished reconcile, for metrics, logs and tests. Times are scheduler time (ms).
 *
 * @example
 * ```ts
 * outcomes.subscribe((o: Outcome) => histogram.observe({ cluster: o.cluster, result: o.result }, o.durationMs / 1000));
 * ```
 */
export interface Outcome {
  /** The object reconciled: its cluster, namespace and name. */
  readonly key: ObjectKey;
  /** The fleet name of the key's cluster, for per-cluster metrics. */
  readonly cluster: ClusterName;
  /** How the reconcile ended: `done`, `requeue`, `error`, `terminal` or `dropped`. */
  readonly result: OutcomeResult;
  /** 1 for the first try after a success, n for the n-th consecutive try. */
  readonly attempt: number;
  /** When the reconcile started, as the scheduler's `now()` in ms. */
  readonly startedAt: number;
  /** How long the reconcile ran, in scheduler ms. */
  readonly durationMs: number;
  /** The cause, for `error` and `terminal`, and the `Fenced` error of a `dropped` whose write was refused. */
  readonly error: unknown;
  /**
   * Delay before the next attempt this outcome scheduled (backoff or requeue). `undefined` when
   * nothing was scheduled, including when the key changed while running and runs again at once.
   */
  readonly retryAfterMs: number | undefined;
}

/**
 * A snapshot of the work queue, for a depth gauge (controller-runtime's `workqueue_depth`).
 *
 * @example
 * ```ts
 * reconcile(fn, { onDepth: (d) => depthGauge.set(d.ready) });
 * ```
 */
export interface QueueDepth {
  /** Keys with any state held: ready, running, debouncing or waiting for a retry. */
  readonly keys: number;
  /** Keys ready to run and waiting for a free concurrency slot, their cluster's cap or gate, or the rate limit. */
  readonly ready: number;
  /** Reconciles running now (at most the configured `concurrency`). */
  readonly running: number;
  /** Keys waiting on a timer (debounce, backoff or requeue). */
  readonly waiting: number;
}

/**
 * A keyed event about one object: `applied` or `deleted` (not a cluster removal).
 *
 * @example
 * ```ts
 * const toKeys = (ev: ObjectEvent<Secret>) => [objectKey(hub, 'fleet', ev.key.name)];
 * ```
 */
export type ObjectEvent<T extends KubeObject = KubeObject> = Extract<
  KeyedEvent<T>,
  {
    /** The object applied (latest state) or deleted (last known state). */
    readonly object: T;
  }
>;
