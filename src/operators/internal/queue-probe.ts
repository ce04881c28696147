// The work queue's answers to a metrics scrape and to a cluster gate, kept out of the engine's
// hot path: running work is summed only when asked, and a gate's answer is made safe to schedule.
import type { SchedulerLike } from 'rxjs';
import type { QueueProbe, RunningWork } from '../queue-observer.js';

/**
 * The longest a gated cluster waits before the queue asks its gate again, in ms: a gate answering
 * `Infinity` (or hours) must not park a cluster's lane for good.
 */
export const maxGateWaitMs = 60_000;

/**
 * A gate's answer as a delay the timer machine can hold: `0` for now (also for a negative or NaN
 * answer), else at most {@link maxGateWaitMs}.
 *
 * @example `gateDelay(Infinity) // 60000`
 * @param waitMs - what the gate answered.
 * @returns the delay, in ms.
 */
export function gateDelay(waitMs: number): number {
  return waitMs > 0 ? Math.min(waitMs, maxGateWaitMs) : 0;
}

/**
 * A probe over the set of running entries: one pass over at most `concurrency` entries per call.
 *
 * @example
 * ```ts
 * const probe = queueProbe(runningSet, scheduler, 10, 5);
 * probe.running().longestMs;
 * ```
 * @param running - the running entries; the engine adds at start and deletes at end.
 * @param scheduler - the queue's clock.
 * @param concurrency - the queue's concurrency.
 * @param perClusterConcurrency - its per-cluster cap.
 * @returns the probe.
 */
export function queueProbe(running: ReadonlySet<{ readonly startedAt: number }>, scheduler: SchedulerLike, concurrency: number, perClusterConcurrency: number): QueueProbe {
  return {
    concurrency,
    perClusterConcurrency,
    running(): RunningWork {
      const now = scheduler.now();
      let unfinishedMs = 0;
      let longestMs = 0;
      for (const e of running) {
        const ms = Math.max(0, now - e.startedAt);
        unfinishedMs += ms;
        if (ms > longestMs) longestMs = ms;
      }
      return { count: running.size, unfinishedMs, longestMs };
    },
  };
}
