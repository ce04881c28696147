// The live agent's other kcp installations (`watchPublishedResources` with `installations`). Each
// time the PublishedResources are checked, every installation is checked on its own
// (preflight-round.ts); its APIExport gets only plans checked against its own kcp; and the
// entries of deleted PublishedResources leave every export, not only the default one. An
// installation whose kcp cannot be read (down, stopped, forbidden) keeps what its export had, minus
// what is no longer published, refuses nothing, and is checked again after a capped backoff: it
// never holds the others back, and once it can be read its export is brought to the set.
import type { RunOptions } from 'rxfleet';
import type { SyncAgentOptions } from './agent.js';
import { retireDeleted } from './export-retire.js';
import { defaultAgentName } from './labels.js';
import type { PublishedPlan } from './plan.js';
import type { PreflightRound } from './preflight-round.js';
import type { Accepted } from './published-live.js';

type Logger = NonNullable<RunOptions['logger']>;

/**
 * What the live agent keeps of its other installations between two checks of the PublishedResources.
 *
 * @example
 * ```ts
 * const others = liveInstallations(options, logger);
 * const next = await acceptPublished(config, objects, round.clients, round.checks);
 * handle.add(publishers(options, next.plans, provider, others.plansAfter(next)));
 * await others.retire(keep, next.unchecked, round);
 * ```
 */
export interface LiveInstallations {
  /**
   * The plans each installation's publisher gets after a check: all of them where it was checked;
   * where it was not, the plans it was last checked with, of the published resources still served.
   */
  plansAfter(accepted: Accepted): ReadonlyMap<string, readonly PublishedPlan[]>;
  /**
   * Removes the entries of published resources not in `keep` from each checked installation's
   * export, all at once, each through the connection of the `round` that checked it.
   */
  retire(keep: ReadonlySet<string>, unchecked: ReadonlyMap<string, string>, round: PreflightRound): Promise<void>;
  /** After a check: the delay before the next one when something was not checked (1 s, doubling to 60 s), else `undefined`. */
  recheckDelayMs(complete: boolean): number | undefined;
}

/**
 * The live agent's other installations.
 *
 * @example
 * ```ts
 * const others = liveInstallations({ ...options, client: counted }, logger);
 * ```
 * @param options - the agent's options (each installation's kubeconfig and APIExport are in its config).
 * @param logger - where a failed removal is said, naming the installation.
 * @returns their state.
 */
export function liveInstallations(options: SyncAgentOptions, logger: Logger): LiveInstallations {
  const installations = options.config.installations ?? [];
  const agentName = options.config.agentName ?? defaultAgentName;
  // By installation: the plans it was last checked with, by published resource.
  const last = new Map<string, ReadonlyMap<string, PublishedPlan>>();
  let failures = 0;
  return {
    plansAfter: (accepted) =>
      new Map(
        installations.map((i) => {
          if (!accepted.unchecked.has(i.name)) {
            last.set(i.name, new Map(accepted.plans.map((p) => [p.published.name, p])));
            return [i.name, accepted.plans] as const;
          }
          const was = last.get(i.name) ?? new Map<string, PublishedPlan>();
          return [i.name, accepted.plans.flatMap((p) => was.get(p.published.name) ?? [])] as const;
        }),
      ),
    retire: async (keep, unchecked, round) => {
      await Promise.all(
        installations
          .filter((i) => !unchecked.has(i.name))
          .map((i) =>
            Promise.resolve().then(() => retireDeleted(round.connection(i), { apiExport: i.apiExport ?? options.config.apiExport, agentName, keep, logger })).catch((err: unknown) => {
              logger.warn({ installation: i.name, cause: err instanceof Error ? err.message : String(err) }, 'cannot remove the APIExport entries of deleted PublishedResources in this installation; tried again at the next check');
            }),
          ),
      );
    },
    recheckDelayMs: (complete) => {
      if (complete) {
        failures = 0;
        return undefined;
      }
      return Math.min(60_000, 1_000 * 2 ** Math.min(failures++, 6));
    },
  };
}
