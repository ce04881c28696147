// How a run ends, as data: the exit codes a process manager reads, and the reasons a run ends.
// (ConfigError, "this configuration can never work", lives in core: every layer throws it.)

/**
 * Why a run ended, and the process exit code each reason maps to.
 *
 * - `clean` (0): stopped on request and every in-flight reconcile finished.
 * - `deadline` (1): stopped on request, but the shutdown deadline cut reconciles that were still
 *   running (they were aborted and will run again on the next start: reconcilers are idempotent).
 * - `config` (2): the configuration can never work (see {@link ConfigError}); nothing ran.
 * - `failed` (3): the pipeline broke (a provider or input errored, which rxfleet code never does
 *   on its own: errors are values).
 *
 * @example
 * ```ts
 * const reason: StopReason = 'deadline';
 * console.log(exitCodes[reason]); // 1
 * ```
 */
export type StopReason = 'clean' | 'deadline' | 'config' | 'failed';

/**
 * The exit code of each {@link StopReason}.
 *
 * @example
 * ```ts
 * process.exitCode = exitCodes.clean; // 0
 * ```
 */
export const exitCodes: Readonly<Record<StopReason, number>> = Object.freeze({ clean: 0, deadline: 1, config: 2, failed: 3 });
