// The start of a run judged by its provider's first discovery pass: a misconfigured provider (a
// kubeconfig path that does not exist, a file that cannot be read, a Secret watch RBAC forbids)
// finds no cluster and reports why; without this the run answered /readyz 200 with zero clusters
// and exited 0. The count is taken from the provider's own events, before leader election or
// sharding narrows them, so a standby (which runs nothing) is judged like the leader.
import type { MonoTypeOperatorFunction, Observable, SchedulerLike } from 'rxjs';
import { asyncScheduler, defer, filter, map, of, take, tap, timeout } from 'rxjs';
import type { ClusterName } from '../core/cluster.js';
import { ConfigError } from '../core/config-error.js';
import type { FleetEvent } from '../streams/cluster.js';
import type { ProviderReport } from '../streams/provider-report.js';
import type { HealthReport } from './health.js';
import type { DiscoveryOptions } from './run-types.js';

/**
 * {@link DiscoveryOptions} with defaults applied and checked.
 *
 * @example
 * ```ts
 * fleetSettings({ allowEmpty: true }); // { minClusters: 0, allowEmpty: true, firstPassTimeoutMs: 30_000 }
 * ```
 * @param o - the user's options.
 * @returns the settings.
 * @throws ConfigError when `minClusters` is not a whole number ≥ 0 or the timeout is not positive.
 */
export function fleetSettings(o: DiscoveryOptions = {}): Required<DiscoveryOptions> {
  const allowEmpty = o.allowEmpty ?? false;
  const minClusters = o.minClusters ?? (allowEmpty ? 0 : 1);
  const firstPassTimeoutMs = o.firstPassTimeoutMs ?? 30_000;
  if (!Number.isInteger(minClusters) || minClusters < 0) throw new ConfigError(`run: discovery.minClusters must be a whole number ≥ 0, got ${minClusters}`);
  if (!Number.isFinite(firstPassTimeoutMs) || firstPassTimeoutMs <= 0) throw new ConfigError(`run: discovery.firstPassTimeoutMs must be a positive number of ms, got ${firstPassTimeoutMs}`);
  return { minClusters, allowEmpty, firstPassTimeoutMs };
}

/**
 * Counts the clusters a provider has engaged, from its own events, passing them on unchanged.
 *
 * @example
 * ```ts
 * createFleet(provider.pipe(countClusters((n: number) => health.discovered(n))));
 * ```
 * @param count - called with the new count on each engage or disengage that changes it.
 * @returns the operator.
 */
export function countClusters(count: (clusters: number) => void): MonoTypeOperatorFunction<FleetEvent> {
  return (events) =>
    defer(() => {
      const names = new Set<ClusterName>();
      return events.pipe(
        tap((ev) => {
          const before = names.size;
          if (ev.type === 'engaged') names.add(ev.cluster.name);
          else if (ev.type === 'disengaged') names.delete(ev.cluster);
          if (names.size !== before) count(names.size);
        }),
      );
    });
}

/**
 * How the first discovery pass ended: the provider said `discovered`, or the timeout passed first.
 *
 * @example
 * ```ts
 * const end: FirstPass = { type: 'timedOut', afterMs: 30_000 };
 * ```
 */
export type FirstPass =
  | {
      /** The provider said its first pass is over. */
      readonly type: 'discovered';
      /** Its `discovered` report: how many clusters it engaged of how many candidates. */
      readonly report: Extract<
        ProviderReport,
        {
          /** The report of a first pass that ended. */
          type: 'discovered';
        }
      >;
    }
  | {
      /** The provider did not say so in time: the fleet is judged as it stands. */
      readonly type: 'timedOut';
      /** The time-out that ran out, in ms. */
      readonly afterMs: number;
    };

/**
 * The end of the provider's first discovery pass, once: its first `discovered` report, or a
 * timeout. Subscribe before the provider is subscribed (reports are hot). One report ends it
 * whatever the provider: `multiProvider` says `discovered` once, when every provider it merges
 * has, so its first pass is that of all of them. `run` judges a fleet by it; `rxfleet get` lists
 * the clusters found when it ends.
 *
 * @example
 * ```ts
 * import { createFleet } from 'rxfleet/streams';
 * import { firstPass } from 'rxfleet/runtime';
 *
 * const fleet = createFleet(provider);
 * firstPass(fleet.reports, 30_000).subscribe((end: FirstPass) => console.log(end.type, fleet.clusters().length));
 * fleet.engagements.subscribe(); // starts the provider
 * ```
 * @param reports - the fleet's reports.
 * @param timeoutMs - how long the pass may take.
 * @param scheduler - the timer's scheduler; default `asyncScheduler`.
 * @returns one value, then completes.
 */
export function firstPass(reports: Observable<ProviderReport>, timeoutMs: number, scheduler: SchedulerLike = asyncScheduler): Observable<FirstPass> {
  return reports.pipe(
    filter((r): r is Extract<ProviderReport, { type: 'discovered' }> => r.type === 'discovered'),
    take(1),
    map((report): FirstPass => ({ type: 'discovered', report })),
    timeout({ first: timeoutMs, scheduler, with: () => of<FirstPass>({ type: 'timedOut', afterMs: timeoutMs }) }),
  );
}

/**
 * Why a run must not go on after its first discovery pass, or `undefined`: no cluster discovered
 * while the provider reports problems, unless an empty fleet is allowed. The message names each
 * provider, the source (path, Secret, management watch) and the cause, and says how to proceed.
 *
 * @example
 * ```ts
 * emptyFleetFailure(health.report(), end, false);
 * // 'provider file found no cluster in its first discovery pass: skipped /etc/fleet (kubeconfig path /etc/fleet does not exist). Fix …'
 * ```
 * @param r - the health report when the pass ended.
 * @param end - how it ended.
 * @param allowEmpty - `DiscoveryOptions.allowEmpty`.
 * @returns the message, or undefined when the run may go on.
 */
export function emptyFleetFailure(r: HealthReport, end: FirstPass, allowEmpty: boolean): string | undefined {
  if (allowEmpty || r.discovery.clusters > 0 || r.providers.length === 0) return undefined;
  const when = end.type === 'discovered' ? 'in its first discovery pass' : `within ${end.afterMs} ms (discovery.firstPassTimeoutMs)`;
  const byProvider = new Map<string, string[]>();
  for (const p of r.providers) byProvider.set(p.provider, [...(byProvider.get(p.provider) ?? []), `${p.type} ${p.subject} (${p.reason})`]);
  const found = [...byProvider].map(([provider, problems]) => `provider ${provider} found no cluster ${when}: ${problems.join('; ')}`);
  return `${found.join('. ')}. Fix the provider's configuration, or set RunOptions.discovery.allowEmpty to run with an empty fleet`;
}
