// The options every discovering provider shares (scheduler, first contact), how they become the
// engine's configuration, and the checks that turn impossible values into a ConfigError at once.
import { asyncScheduler } from 'rxjs';
import { ConfigError } from '../../core/config-error.js';
import type { ContactOptions } from '../../streams/provider-options.js';
import type { EngageConfig } from './engage.js';
import { contactProbe } from './engage.js';

/**
 * A duration option, checked: `fallback` when absent, else a finite number above zero (or at
 * least zero with `allowZero`); anything else can never work and throws.
 *
 * @example
 * ```ts
 * const every = durationOption('kind', 'intervalMs', options.intervalMs, 10_000);
 * ```
 * @param provider - the provider's name, for the message.
 * @param option - the option's name, for the message.
 * @param value - what the caller passed.
 * @param fallback - the default.
 * @param allowZero - whether 0 is valid (a debounce may be 0; a period may not).
 * @returns the duration in ms.
 * @throws ConfigError when the value is negative, zero (unless allowed), NaN or infinite.
 */
export function durationOption(provider: string, option: string, value: number | undefined, fallback: number, allowZero = false): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value < 0 || (value === 0 && !allowZero)) {
    throw new ConfigError(`${provider} provider: \`${option}\` must be a ${allowZero ? 'non-negative' : 'positive'} number of milliseconds, got ${String(value)}`);
  }
  return value;
}

/**
 * Resolves {@link ContactOptions} into the engine's configuration, checking them.
 *
 * @example
 * ```ts
 * const cfg = engineConfig('file', options, 'no longer in any kubeconfig file', true);
 * ```
 * @param provider - the provider's name in reports.
 * @param options - what the caller passed.
 * @param removedReason - the disengage reason when a candidate disappears.
 * @param probeByDefault - whether `probe` defaults to `true`.
 * @returns the configuration (also the report scope of `reporting`).
 * @throws ConfigError when a duration can never work.
 */
export function engineConfig(provider: string, options: ContactOptions, removedReason: string, probeByDefault: boolean): EngageConfig {
  const probeTimeoutMs = durationOption(provider, 'probeTimeoutMs', options.probeTimeoutMs, 10_000);
  const wanted = options.probe ?? probeByDefault;
  return {
    provider,
    scheduler: options.scheduler ?? asyncScheduler,
    probe: wanted === false ? undefined : wanted === true ? contactProbe(probeTimeoutMs) : wanted,
    probeTimeoutMs,
    retryIntervalMs: durationOption(provider, 'retryIntervalMs', options.retryIntervalMs, 30_000),
    removedReason,
    ...(options.client === undefined ? {} : { client: options.client }),
  };
}
