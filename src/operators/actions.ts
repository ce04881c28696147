import { ConfigError } from '../core/config-error.js';
// What a reconciler answers, as data (kube-rs style): the work queue, not the reconciler, owns
// timing, so a reconciler only says "done", "look again in N ms", or "this failed (for good)".

/**
 * The result of one reconcile.
 *
 * - `done`: the object is as desired; run again only when something changes.
 * - `requeue`: the object is as desired for now; run again after `afterMs` ms (or sooner on a change).
 *   Counts as a success: it resets the backoff, and its delay replaces it.
 * - `error`: the reconcile failed. Retried with per-key exponential backoff unless `terminal`, or
 *   after `retryAfterMs` ms when given (e.g. a 429's Retry-After). A terminal error is never retried;
 *   the next change to the object runs it again.
 *
 * @example
 * ```ts
 * const a: Action = requeueAfter(30_000);
 * ```
 */
export type Action =
  | {
      /** The object is as desired: run again only when something changes. */
      readonly type: 'done';
    }
  | {
      /** The object is as desired for now: run again after `retryAfterMs` (a success: resets the backoff). */
      readonly type: 'requeue';
      /** Delay before the next run, in ms (≥ 0); a change to the object runs it sooner. */
      readonly retryAfterMs: number;
    }
  | {
      /** The reconcile failed: retried with backoff unless `terminal`. */
      readonly type: 'error';
      /** What went wrong (a KubeError, an Error…), passed on as the outcome's `error`. */
      readonly cause: unknown;
      /** True when retrying cannot help: never retried, only the next change runs the key again. */
      readonly terminal: boolean;
      /** Delay before the retry, in ms, replacing the backoff delay once (e.g. a 429's Retry-After); absent uses the backoff. */
      readonly retryAfterMs?: number;
    };

const doneAction: Action = Object.freeze({ type: 'done' });

/**
 * Success: nothing to do until the object (or a mapped request) changes.
 *
 * @example
 * ```ts
 * const reconciler: Reconciler<ConfigMap> = () => done();
 * ```
 * @returns the `done` action.
 */
export function done(): Action {
  return doneAction;
}

/**
 * Success, and look again after `ms` milliseconds (polling something outside the cluster, or
 * waiting for a rollout). A change before then runs the key earlier and cancels this requeue.
 *
 * @example
 * ```ts
 * const reconciler: Reconciler<Rollout> = (req) => (isReady(req.object) ? done() : requeueAfter(5_000));
 * ```
 * @param ms - delay in milliseconds (≥ 0).
 * @returns the `requeue` action.
 * @throws ConfigError when `ms` is negative or not finite.
 */
export function requeueAfter(ms: number): Action {
  if (!Number.isFinite(ms) || ms < 0) throw new ConfigError(`requeueAfter needs a finite delay ≥ 0, got ${ms}`);
  return Object.freeze({ type: 'requeue', retryAfterMs: ms });
}

/**
 * A failed reconcile, reported as a value. Retried with backoff unless `terminal`.
 *
 * @example
 * ```ts
 * const sync = (client: ClusterClient): Reconciler<ConfigMap> => async (req) => {
 *   if (req.object === undefined) return done();
 *   const r = await client.apply(configMaps, desiredCopy(req.object), { fieldManager: 'me' });
 *   // actionOf(r) decides as toAction() does; by hand: a bad spec will not get better by waiting.
 *   if (E.isLeft(r)) return error(r.left, { terminal: r.left.type === 'Invalid' });
 *   return done();
 * };
 * ```
 * @param cause - what went wrong (a KubeError, an Error...). Reported in the outcome.
 * @param options - `terminal` (never retry) and `retryAfterMs` (ms, replaces the backoff delay once).
 * @returns the `error` action.
 */
export function error(cause: unknown, options: { readonly terminal?: boolean; readonly retryAfterMs?: number } = {}): Action {
  const terminal = options.terminal ?? false;
  return Object.freeze(
    options.retryAfterMs === undefined
      ? { type: 'error', cause, terminal }
      : { type: 'error', cause, terminal, retryAfterMs: Math.max(0, options.retryAfterMs) },
  );
}

/**
 * A failure that retrying cannot fix (an invalid spec): reported once, never retried. Not for a
 * 401 or 403 from the server: RBAC and credentials get fixed at run time, and `error(cause)`
 * retries them on the queue's slow `authBackoff`.
 *
 * @example
 * ```ts
 * const reconciler: Reconciler<Rollout> = (req) => {
 *   if (req.object === undefined) return done();
 *   if (req.object.spec.image === '') return terminal(new Error('spec.image is required'));
 *   return deployRollout(req.object);
 * };
 * ```
 * @param cause - what went wrong.
 * @returns the terminal `error` action.
 */
export function terminal(cause: unknown): Action {
  return error(cause, { terminal: true });
}

/**
 * Whether a value is an {@link Action}, for reconcilers that return one directly.
 *
 * @example
 * ```ts
 * isAction(done()); // true
 * isAction(of(done())); // false: an ObservableInput of actions
 * ```
 * @param v - any value.
 * @returns true for the three action shapes.
 */
export function isAction(v: unknown): v is Action {
  if (typeof v !== 'object' || v === null || !('type' in v)) return false;
  const tag = v.type;
  return tag === 'done' || tag === 'requeue' || tag === 'error';
}
