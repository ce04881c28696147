// One kcp installation that could not be checked at start (its kcp unreachable, a read timed out)
// must not stop the others: its clusters stay out of the fleet, reported as waiting, until its
// preflight passes, retried with a capped backoff; then its provider runs as if it had passed at
// start. A configuration the installation's kcp refuses (a ConfigError) is reported as an error and
// retried at the cap, since an admin may fix the export while the agent runs.
import type { Observable, SchedulerLike } from 'rxjs';
import { asyncScheduler, concatMap, defer, EMPTY, expand, from, of, switchMap, timer } from 'rxjs';
import { ConfigError } from 'rxfleet';
import type { FleetEvent, Provider } from 'rxfleet/streams';
import { reported } from 'rxfleet/streams';
import { exportCluster } from './clusters.js';
import { installationCluster } from './installations.js';

/**
 * An installation's preflight: `passed` at start or not, and how to run it again.
 *
 * @example
 * ```ts
 * const eu: InstallationCheck = { passed: false, check: () => preflightOf(eu) };
 * ```
 */
export interface InstallationCheck {
  /** Whether its preflight passed at start (then its provider runs at once). */
  readonly passed: boolean;
  /** Runs its preflight again: resolves when it passes, rejects with why not. */
  readonly check: () => Promise<void>;
}

/** What {@link gatedInstallation} takes besides the installation. */
export interface InstallationGateOptions {
  /** The first retry's delay (ms). Default 1,000; doubled per failure up to `maxDelayMs`. */
  readonly initialDelayMs?: number;
  /** The longest delay between two checks (ms). Default 60,000. */
  readonly maxDelayMs?: number;
  /** The clock of the retries. Default `asyncScheduler`. */
  readonly scheduler?: SchedulerLike;
}

/**
 * An installation's provider, held back until its preflight passes: meanwhile a `waiting` report
 * (or an `error` report, for a configuration its kcp refuses) for its provider workspace, once per
 * attempt, naming the installation and the cause, so `/readyz` and the logs say why it is missing.
 *
 * @example
 * ```ts
 * const eu = gatedInstallation('eu', { passed: false, check }, () => installationProvider(eu));
 * ```
 * @param name - the installation's name.
 * @param gate - whether it passed at start, and its check.
 * @param provider - its provider, made once the check passes.
 * @param options - the retry schedule.
 * @returns the provider.
 */
export function gatedInstallation(name: string, gate: InstallationCheck, provider: () => Provider, options: InstallationGateOptions = {}): Provider {
  if (gate.passed) return defer(provider);
  const scheduler = options.scheduler ?? asyncScheduler;
  const first = options.initialDelayMs ?? 1_000;
  const cap = options.maxDelayMs ?? 60_000;
  const cluster = installationCluster(name, exportCluster);
  const reportOf = (t: Try): FleetEvent => {
    const refused = t.err instanceof ConfigError;
    const cause = t.err instanceof Error ? t.err.message : String(t.err);
    const reason = `installation "${name}": its preflight ${refused ? 'found problems' : 'could not read its kcp'} (${cause}); checked again in ${Math.round(t.delayMs / 1000)} s, its clusters stay out of the fleet until it passes`;
    return refused ? reported({ type: 'error', provider: 'sync-agent', reason, at: scheduler.now() }) : reported({ type: 'waiting', provider: 'sync-agent', cluster, reason, at: scheduler.now() });
  };
  return defer(() => {
    let failures = 0;
    const once = (): Observable<Try> =>
      from(
        gate.check().then(
          (): Try => ({ ok: true, err: undefined, delayMs: 0 }),
          (err: unknown): Try => ({ ok: false, err, delayMs: err instanceof ConfigError ? cap : Math.min(cap, first * 2 ** failures++) }),
        ),
      );
    // One check at a time, each failure's delay before the next (expand keeps no chain per retry);
    // the first that passes hands over to the provider.
    return defer(once).pipe(
      expand((t) => (t.ok ? EMPTY : timer(t.delayMs, scheduler).pipe(switchMap(once)))),
      concatMap((t) => (t.ok ? provider() : of(reportOf(t)))),
    );
  });
}

// One check's outcome, and the delay before the next when it failed.
interface Try {
  readonly ok: boolean;
  readonly err: unknown;
  readonly delayMs: number;
}
