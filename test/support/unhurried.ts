// A scheduler for tests that deliver sliced work (src/streams/slices.ts) and then assert on it in
// the same turn: asyncScheduler's turns with a clock that stands still, so a turn's time budget
// never runs out and only its count limits it. With the real clock, a loaded machine made a turn
// pass its 10 ms budget and put the rest in a later turn, and the test failed.
import type { SchedulerLike } from 'rxjs';
import { asyncScheduler } from 'rxjs';

/**
 * asyncScheduler with a clock that reads 0.
 *
 * @example
 * ```ts
 * splitCache({ events, health, scopeOf, scheduler: unhurried });
 * ```
 */
export const unhurried: SchedulerLike = {
  now: () => 0,
  schedule: asyncScheduler.schedule.bind(asyncScheduler),
};
