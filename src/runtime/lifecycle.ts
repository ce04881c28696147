// How a run stops: a stop request ends the queue's input, running reconciles get until the
// deadline, then everything the run owns is released in reverse order and `done` resolves once.
// Signals are one more way to ask: the first stops gracefully, the second at once.
import type { Logger } from 'pino';
import type { SchedulerLike, Subscription } from 'rxjs';
import { Subject, timer } from 'rxjs';
import type { StopReason } from './errors.js';
import { exitCodes } from './errors.js';
import type { HealthTracker } from './health.js';
import type { RunResult } from './run-types.js';
import type { SignalTarget } from './signals.js';
import { onStopSignals } from './signals.js';

/**
 * How long a graceful stop waits for running reconciles when `RunOptions.shutdownDeadlineMs` is
 * not given. A Pod's `terminationGracePeriodSeconds` must exceed it with room for releasing the
 * Lease and the watches (the scaffold's and deploy/ha's say 45 s; test/unit/grace-period.test.ts).
 *
 * @example
 * ```ts
 * const life = lifecycle({ ...parts, deadlineMs: options.shutdownDeadlineMs ?? defaultShutdownDeadlineMs });
 * ```
 */
export const defaultShutdownDeadlineMs = 30_000;

/** What a {@link lifecycle} needs from the run. @example `{ log, health, scheduler, deadlineMs: 30_000, release: () => server.close() }` */
export interface LifecycleParts {
  readonly logger: Logger;
  readonly health: HealthTracker;
  readonly scheduler: SchedulerLike;
  /** The default shutdown deadline (ms). */
  readonly deadlineMs: number;
  /** Runs last, after every owned subscription is released (closing the probe server). */
  readonly release: () => Promise<void>;
}

/**
 * A run's stop machinery.
 *
 * @example
 * ```ts
 * const life = lifecycle(parts);
 * life.own(pipeline.subscribe({ complete: () => life.finish('clean', 'done') }));
 * await life.stop();
 * ```
 */
export interface Lifecycle {
  /** Emits once when a stop is requested: the queue's input ends there. */
  readonly stopRequested: Subject<void>;
  /** Resolves when the run has ended and everything is released. Never rejects. */
  readonly done: Promise<RunResult>;
  /** Whether the run has ended. */
  ended(): boolean;
  /** Releases `sub` when the run ends (in reverse order of ownership). */
  own(sub: Subscription): void;
  /** How many reconciles run now (for the stop log and the deadline's count). */
  running(n: number): void;
  /** Ends the run with a reason (once; later calls do nothing). */
  finish(reason: StopReason, message: string, aborted?: number): void;
  /** Asks for a graceful stop; `deadlineMs` 0 stops at once. */
  stop(options?: { readonly deadlineMs?: number }): Promise<RunResult>;
  /** Stops on the target's SIGTERM/SIGINT (twice: at once); the handlers are removed when the run ends. */
  listen(target: SignalTarget): void;
}

/**
 * Makes the stop machinery of one run.
 *
 * @example
 * ```ts
 * const life = lifecycle({ log, health, scheduler: asyncScheduler, deadlineMs: 30_000, release: async () => undefined });
 * life.listen(process);
 * ```
 * @param parts - logger, health, scheduler, default deadline, final release.
 * @returns the lifecycle.
 */
export function lifecycle(parts: LifecycleParts): Lifecycle {
  const { logger, health, scheduler } = parts;
  const stopRequested = new Subject<void>();
  const subs: Subscription[] = [];
  let running = 0;
  let finished = false;
  let stopping = false;
  let uninstall: () => void = () => undefined;
  let resolveDone: (r: RunResult) => void = () => undefined;
  const done = new Promise<RunResult>((resolve) => {
    resolveDone = resolve;
  });

  const finish = (reason: StopReason, message: string, aborted = 0): void => {
    if (finished) return;
    finished = true;
    health.phase('stopped');
    for (const s of subs.splice(0).reverse()) s.unsubscribe();
    uninstall();
    const result: RunResult = Object.freeze({ reason, code: exitCodes[reason], message, aborted });
    logger[reason === 'clean' ? 'info' : 'error']({ reason, code: result.code, aborted }, `stopped: ${message}`);
    void parts.release().then(() => {
      resolveDone(result);
    });
  };
  const stop = (opts: { readonly deadlineMs?: number } = {}): Promise<RunResult> => {
    const limit = opts.deadlineMs ?? parts.deadlineMs;
    if (!stopping) {
      stopping = true;
      health.phase('stopping');
      logger.info({ running, deadlineMs: limit }, 'stopping: no new work; waiting for running reconciles');
      stopRequested.next();
    }
    if (!finished) {
      const cut = (): void => {
        finish('deadline', `the shutdown deadline (${limit} ms) cut ${running} running reconcile(s); they were aborted`, running);
      };
      if (limit <= 0) cut();
      else subs.push(timer(limit, scheduler).subscribe(cut));
    }
    return done;
  };
  return {
    stopRequested,
    done,
    ended: () => finished,
    own: (sub) => {
      if (finished) sub.unsubscribe();
      else subs.push(sub);
    },
    running: (n) => {
      running = n;
    },
    finish,
    stop,
    listen(target) {
      if (finished) return;
      uninstall = onStopSignals(
        target,
        (signal) => {
          logger.info({ signal }, 'signal received: stopping gracefully (send it again to stop at once)');
          void stop();
        },
        (signal) => {
          logger.warn({ signal }, 'second signal: stopping at once');
          void stop({ deadlineMs: 0 });
        },
      );
    },
  };
}
