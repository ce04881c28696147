// Each other kcp installation checked on its own: the same preflight as the default installation's,
// against its provider workspace (its APIExport above all), through the connection a round of
// checks makes for it with its own credentials (preflight-round.ts). At the agent's start (both
// forms) the installations are checked in the start's round, beside the default installation: the
// service cluster is read once for all of them. A kcp that cannot be read is told from a
// configuration it refuses; the check of one that could not be read runs again later in a round of
// its own.
import { ConfigError } from 'rxfleet';
import type { SyncAgentOptions } from './agent.js';
import type { InstallationCheck } from './installation-gate.js';
import type { PreflightRound } from './preflight-round.js';
import { preflightRound } from './preflight-round.js';
import type { PreflightClients } from './preflight.js';

/**
 * The start's check of each other installation, in the start's `round`: a configuration one refuses
 * stops the start (a {@link ConfigError} naming it); one whose kcp cannot be read is returned as not
 * passed, with its check, so it stays out of the fleet until that passes (`gatedInstallation`) and
 * the others start. Each later check is a round of its own, through `clients` (default: clients made
 * for it).
 *
 * @example
 * ```ts
 * const round = preflightRound(options);
 * try {
 *   const plans = await preflight(options.config, round.clients);
 *   const checks = await installationChecks(options, round);
 *   const provider = syncAgentProvider(options, plans.map((p: PublishedPlan) => p.kcp), checks);
 * } finally {
 *   round.close();
 * }
 * ```
 * @param options - the agent's options.
 * @param round - the start's round.
 * @param clients - the agent's own clients, for the later checks (open as long as they may run).
 * @returns each installation's check, by name.
 * @throws ConfigError (as a rejection) when an installation's kcp refuses the configuration.
 */
export async function installationChecks(options: SyncAgentOptions, round: PreflightRound, clients?: PreflightClients): Promise<ReadonlyMap<string, InstallationCheck>> {
  const checks = new Map<string, InstallationCheck>();
  const inRound = (r: PreflightRound, name: string): Promise<unknown> => r.checks.find((c) => c.name === name)?.check(options.config) ?? Promise.resolve();
  for (const i of options.config.installations ?? []) {
    const check = async (): Promise<void> => {
      const again = preflightRound(options, clients);
      try {
        await inRound(again, i.name);
      } finally {
        again.close();
      }
    };
    try {
      await inRound(round, i.name);
      checks.set(i.name, { passed: true, check });
    } catch (err) {
      if (err instanceof ConfigError) throw err;
      checks.set(i.name, { passed: false, check });
    }
  }
  return checks;
}
