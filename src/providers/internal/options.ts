// The options every discovering provider shares (reporting, scheduler, first contact), and how they
// become the engine's configuration.
import { asyncScheduler } from 'rxjs';
import type { EngageConfig, Probe } from './engage.js';
import { contactProbe } from './engage.js';
import type { ProviderOptions } from './report.js';
import { reporter } from './report.js';

/**
 * Reporting, timing and first-contact options of a discovering provider.
 *
 * @example
 * ```ts
 * const opts: ContactOptions = { probe: true, probeTimeout: 5_000, retryInterval: 10_000, report: console.log };
 * ```
 */
export interface ContactOptions extends ProviderOptions {
  /**
   * First contact before engaging: `true` sends `GET /version` (any answer but 401 counts),
   * `false` engages at once, or pass your own {@link Probe}. A cluster that does not answer is
   * reported as `waiting` and retried; it never delays the others.
   */
  readonly probe?: boolean | Probe;
  /** How long one probe may take (ms, default 10 000). */
  readonly probeTimeout?: number;
  /** How long to wait before probing a silent cluster again (ms, default 30 000). */
  readonly retryInterval?: number;
}

/**
 * Resolves {@link ContactOptions} into the engine's configuration.
 *
 * @example
 * ```ts
 * const cfg = engineConfig('file', options, 'no longer in any kubeconfig file', true);
 * ```
 * @param provider - the provider's name in reports.
 * @param options - what the caller passed.
 * @param removedReason - the disengage reason when a candidate disappears.
 * @param probeByDefault - whether `probe` defaults to `true`.
 * @returns the configuration.
 */
export function engineConfig(provider: string, options: ContactOptions, removedReason: string, probeByDefault: boolean): EngageConfig {
  const probeTimeout = options.probeTimeout ?? 10_000;
  const wanted = options.probe ?? probeByDefault;
  return {
    say: reporter(provider, options),
    scheduler: options.scheduler ?? asyncScheduler,
    probe: wanted === false ? undefined : wanted === true ? contactProbe(probeTimeout) : wanted,
    probeTimeout,
    retryInterval: options.retryInterval ?? 30_000,
    removedReason,
  };
}
