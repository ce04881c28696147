// Reconcilers that run in virtual time, and a recorder of what a reconciler was asked to do.
import type { SchedulerLike } from 'rxjs';
import { asyncScheduler, defer, map, of, tap, timer } from 'rxjs';
import type { ObjectKey } from '../core/key.js';
import type { KubeObject } from '../core/object.js';
import type { Action } from '../operators/actions.js';
import { done } from '../operators/actions.js';
import type { ReconcileContext, ReconcileRequest, Reconciler } from '../operators/types.js';

/**
 * One scripted reconcile: how many frames (ms) it takes and what it answers (default `done()`).
 *
 * @example
 * ```ts
 * const step: Step = { frames: 10, action: requeueAfter(100) };
 * ```
 */
export interface Step {
  /** How long the run takes, in frames (ms) of scheduler time; 0 or less answers synchronously. */
  readonly frames: number;
  /** What the run answers when it ends; default `done()`. */
  readonly action?: Action;
}

/**
 * A reconciler whose every run takes `frames` of scheduler time and then answers `action`. Zero
 * frames answers synchronously.
 *
 * @example
 * ```ts
 * events.pipe(reconcile(takes(10)));                 // each run lasts 10 frames, then done()
 * events.pipe(reconcile(takes(0, error('boom'))));    // fails at once, every time
 * ```
 * @param frames - duration of each run.
 * @param action - the answer; default `done()`.
 * @param scheduler - default `asyncScheduler` (virtual inside `TestScheduler.run`).
 * @returns the reconciler.
 */
export function takes<T extends KubeObject = KubeObject>(frames: number, action: Action = done(), scheduler: SchedulerLike = asyncScheduler): Reconciler<T> {
  return scripted(() => ({ frames, action }), scheduler);
}

/**
 * A reconciler whose runs are decided per request: by key, attempt, object, or a counter the test
 * keeps.
 *
 * @example
 * ```ts
 * // Fails twice, then succeeds: attempt is 1, 2, 3 across consecutive failures.
 * const flaky = scripted((_req, ctx) => (ctx.attempt < 3 ? { frames: 5, action: error('boom') } : { frames: 5 }));
 * ```
 * @param script - the step for a request.
 * @param scheduler - default `asyncScheduler`.
 * @returns the reconciler.
 */
export function scripted<T extends KubeObject = KubeObject>(
  script: (request: ReconcileRequest<T>, context: ReconcileContext) => Step,
  scheduler: SchedulerLike = asyncScheduler,
): Reconciler<T> {
  return (request, context) => {
    const step = script(request, context);
    const action = step.action ?? done();
    return step.frames <= 0 ? of(action) : timer(step.frames, scheduler).pipe(map(() => action));
  };
}

/**
 * One run seen by a {@link recorder}: start and end in scheduler time (`end` is `undefined` while
 * running or when the run was cut short), the attempt, and the object it was given.
 *
 * @example
 * ```ts
 * const rec = recorder(takes(10));
 * // ...after one reconcile of `a` at frame 0:
 * expect(rec.calls.map((c) => [c.key.name, c.startedAt, c.endedAt])).toEqual([['a', 0, 10]]);
 * ```
 */
export interface RecordedRun<T extends KubeObject = KubeObject> {
  /** The key the run reconciled. */
  readonly key: ObjectKey;
  /** The object the run was given; `undefined` after a delete or for a key with nothing known. */
  readonly object: T | undefined;
  /** The run's `context.attempt`: 1 after a success, n for the n-th consecutive try after failures. */
  readonly attempt: number;
  /** When the run started, in scheduler time (ms). */
  readonly startedAt: number;
  /** When the run completed or errored, in scheduler time (ms); `undefined` while running or when cut short. */
  endedAt: number | undefined;
  /** The run's `context.signal`: `aborted` tells whether the queue aborted it (cluster removed, unsubscribed). */
  readonly signal: AbortSignal;
}

/**
 * Records every run of a reconciler, and the largest number of runs of one key seen in flight at
 * once (which `reconcile` promises is 1).
 *
 * @example
 * ```ts
 * const rec = recorder(takes(10));
 * events.pipe(reconcile(rec.reconciler));
 * // ...after flush:
 * expect(rec.calls).toHaveLength(2);
 * expect(rec.maxInFlightPerKey()).toBe(1);
 * ```
 * @param inner - the reconciler to wrap.
 * @param scheduler - the clock for start and end; default `asyncScheduler`.
 * @returns the wrapped reconciler and what it saw.
 */
export function recorder<T extends KubeObject = KubeObject>(
  inner: Reconciler<T>,
  scheduler: SchedulerLike = asyncScheduler,
): {
  /** The wrapped reconciler to hand to `reconcile`: it runs `inner` and records each run. */
  readonly reconciler: Reconciler<T>;
  /** Every run so far, in start order (updated live as runs end). */
  readonly calls: readonly RecordedRun<T>[];
  /** The most runs of one key that were in flight at once (1 when the queue never overlapped a key). */
  maxInFlightPerKey(): number;
} {
  const calls: RecordedRun<T>[] = [];
  const inFlight = new Map<string, number>();
  let max = 0;
  const reconciler: Reconciler<T> = (request, context) =>
    defer(() => {
      const run: RecordedRun<T> = { key: request.key, object: request.object, attempt: context.attempt, startedAt: scheduler.now(), endedAt: undefined, signal: context.signal };
      calls.push(run);
      const id = `${request.key.cluster}/${request.key.namespace}/${request.key.name}`;
      const n = (inFlight.get(id) ?? 0) + 1;
      inFlight.set(id, n);
      max = Math.max(max, n);
      let settled = false;
      // Settle on complete or error (before the queue hears of it and may start the next run),
      // or on unsubscribe when the run was cut short.
      const settle = (completed: boolean) => {
        if (settled) return;
        settled = true;
        inFlight.set(id, (inFlight.get(id) ?? 1) - 1);
        if (completed) run.endedAt = scheduler.now();
      };
      const out = inner(request, context);
      const actions = typeof out === 'object' && 'type' in out ? of(out) : defer(() => out);
      return actions.pipe(
        tap({
          complete: () => {
            settle(true);
          },
          error: () => {
            settle(true);
          },
          finalize: () => {
            settle(false);
          },
        }),
      );
    });
  return { reconciler, calls, maxInFlightPerKey: () => max };
}
