// The small pieces `run` is wired from: the probe server's start with a clear error, the
// reconciler seen through the controller's context, and one log line per outcome.
import type { Logger } from 'pino';
import { ConfigError } from '../core/config-error.js';
import { isFenced } from '../core/fenced.js';
import { formatKey } from '../core/key.js';
import type { KubeObject } from '../core/object.js';
import type { Outcome, ReconcileContext, ReconcileRequest } from '../operators/types.js';
import type { SinkContext } from '../sinks/context.js';
import type { FleetView } from '../streams/cluster.js';
import type { Controller } from './controller.js';
import type { HealthView } from './health.js';
import type { ProbeServer, ProbeServerOptions } from './http.js';
import { controllerContext } from './controller-context.js';
import { failingCluster } from './failing-cluster.js';
import { fenceReasons } from './ha/fence.js';
import { startProbeServer } from './http.js';
import type { LogLimiter } from './log-limiter.js';
import { createLogLimiter } from './log-limiter.js';
import type { MetricsSource } from './metrics-exposition.js';

/**
 * The message of any thrown value.
 *
 * @example
 * ```ts
 * describeCause(new Error('boom')); // 'boom'
 * ```
 * @param cause - what was thrown or carried.
 * @returns its message.
 */
export function describeCause(cause: unknown): string {
  if (typeof cause === 'object' && cause !== null && 'message' in cause && typeof cause.message === 'string') return cause.message;
  return String(cause);
}

/**
 * Starts the probe server unless disabled; a port that cannot be bound is a {@link ConfigError}.
 *
 * @example
 * ```ts
 * const server = await probeServer('hello', { port: 8081 }, health, metrics.registry);
 * ```
 * @param name - the controller's name (in the error).
 * @param http - the server options, or `false` for none.
 * @param health - what /healthz and /readyz serve.
 * @param metrics - what /metrics serves: the run's registry, or several merged.
 * @returns the server, or `undefined`.
 */
export async function probeServer(name: string, http: ProbeServerOptions | false | undefined, health: HealthView, metrics: MetricsSource): Promise<ProbeServer | undefined> {
  if (http === false) return undefined;
  const opts = http ?? {};
  return startProbeServer(health, metrics, opts).catch((err: unknown) => {
    throw new ConfigError(`controller "${name}": cannot serve probes on ${opts.host ?? '127.0.0.1'}:${opts.port ?? 0} (${describeCause(err)}); pass another \`http.port\` or \`http: false\``);
  });
}

/**
 * The controller's reconciler as the queue calls it: the engine's context plus the fleet and sinks.
 *
 * @example
 * ```ts
 * reconcile(controllerReconciler(c, fleet, sinks), { lookup });
 * ```
 * @param c - the controller.
 * @param fleet - the live fleet.
 * @param sinks - the controller's sinks.
 * @returns the queue's reconciler.
 */
export function controllerReconciler<T extends KubeObject>(c: Controller<T>, fleet: FleetView, sinks: SinkContext): (req: ReconcileRequest<T>, ctx: ReconcileContext) => ReturnType<Controller<T>['reconcile']> {
  return (req, ctx) => c.reconcile(req, controllerContext(ctx, fleet, sinks));
}

// The kind of a failure, for the rate limit's key: a KubeError's tag, else the Error's name.
function errorType(cause: unknown): string {
  if (typeof cause === 'object' && cause !== null && 'type' in cause && typeof cause.type === 'string') return cause.type;
  return cause instanceof Error ? cause.name : typeof cause;
}

// What a fenced write says happened, from the fence's reason.
function fencedWhy(cause: unknown): string {
  const reason = typeof cause === 'object' && cause !== null && 'reason' in cause ? cause.reason : undefined;
  return reason === fenceReasons.cluster ? 'this cluster moved to another replica' : 'this replica lost its lease';
}

// One limiter per controller logger, so `run` needs no extra wiring and controllers do not share counts.
const limiters = new WeakMap<Logger, LogLimiter>();

/**
 * Logs one finished reconcile: warn on error, error on terminal, debug otherwise. Identical
 * failures (same cluster, result, error type and message) are rate-limited: the first is logged,
 * then at most one line per 30 s, carrying `repeated`: how many were suppressed since the last line.
 * A reconcile dropped because its write was fenced (this replica lost its lease, or the cluster
 * moved to another replica) is no failure: one info line says so, at most one per 30 s for all
 * clusters together, since a lost lease refuses every cluster's writes at once.
 *
 * @example
 * ```ts
 * outcomes.subscribe((o: Outcome) => { logOutcome(log, o); });
 * ```
 * @param log - the controller's logger.
 * @param o - the outcome.
 * @param limiter - the rate limit for failures (default: one per logger, 30 s window, 1,000 keys).
 */
export function logOutcome(log: Logger, o: Outcome, limiter?: LogLimiter): void {
  // A success is a debug line: its fields are not even built unless debug is on (one per reconcile).
  if ((o.result === 'done' || o.result === 'requeue') && !log.isLevelEnabled('debug')) return;
  // A failure is logged against the cluster that failed (a fan-out's member), with the cluster
  // whose key was reconciled beside it when they differ.
  const fenced = o.result === 'dropped' && isFenced(o.error);
  const success = o.result !== 'error' && o.result !== 'terminal' && !fenced;
  // Every reconcile comes here: the line's fields (the key's string form among them) are built
  // only when the line is written, not for a debug line the level drops.
  if (success && !log.isLevelEnabled('debug')) return;
  const failed = failingCluster(o);
  const fields = { cluster: failed, ...(failed === o.cluster ? {} : { reconciledIn: o.cluster }), key: formatKey(o.key), result: o.result, attempt: o.attempt, durationMs: o.durationMs };
  if (success) {
    log.debug(fields, 'reconciled');
    return;
  }
  const reason = describeCause(o.error);
  let lim = limiter ?? limiters.get(log);
  if (lim === undefined) {
    lim = createLogLimiter();
    limiters.set(log, lim);
  }
  const why = fenced ? fencedWhy(o.error) : undefined;
  const d = lim.admit(JSON.stringify(why === undefined ? [failed, o.result, errorType(o.error), reason] : ['Fenced', why]));
  if (d.type === 'suppress') return;
  const repeated = d.repeated > 0 ? { repeated: d.repeated } : {};
  if (why !== undefined) log.info({ ...fields, reason, ...repeated }, `write refused: ${why}; the reconcile is dropped here (not retried, not a failure) and the cluster's next owner reconciles it`);
  else if (o.result === 'error') log.warn({ ...fields, retryAfterMs: o.retryAfterMs, reason, ...repeated }, 'reconcile failed');
  else log.error({ ...fields, reason, ...repeated }, 'reconcile failed for good (terminal)');
}
