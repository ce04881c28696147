/**
 * Local kind clusters, as multicluster-runtime's kind provider: polls `kind get clusters`, reads each
 * cluster's kubeconfig with `kind get kubeconfig --name <name>`, keeps those whose name starts with a
 * prefix, and re-engages a cluster whose kubeconfig changed (kind recreated it).
 *
 * @packageDocumentation
 * @module rxfleet/providers/kind
 */
// First: fails clearly on an unsupported Node before anything else loads.
import '../../internal/require-node.js';
import { exhaustMap, mergeMap } from 'rxjs';
import { ConfigError } from '../../core/config-error.js';
import { E } from '../../internal/fp.js';
import type { Provider } from '../../streams/cluster.js';
import type { ContactOptions } from '../../streams/provider-options.js';
import { engageCandidates } from '../internal/engage.js';
import { durationOption, engineConfig } from '../internal/options.js';
import { rescanTicks } from '../internal/poll.js';
import { reportProblems, reporting } from '../internal/report.js';
import type { KindRunner } from './command.js';
import { runKind } from './command.js';
import { lookAtKind } from './look.js';

export type { KindRunner } from './command.js';

/**
 * Options of {@link kindProvider}.
 *
 * @example
 * ```ts
 * const opts: KindProviderOptions = { prefix: 'fleet-', intervalMs: 5_000 };
 * ```
 */
export interface KindProviderOptions extends ContactOptions {
  /** Only clusters whose name starts with this; default all. */
  readonly prefix?: string;
  /** Polling period; default 10 000. */
  readonly intervalMs?: number;
  /** The kind executable; default `kind` (from PATH). */
  readonly command?: string;
  /** How long one kind call may take; default 30 000. */
  readonly commandTimeoutMs?: number;
  /** Runs kind with the given arguments; default: the `command` binary as a child process. Injected by tests. */
  readonly run?: KindRunner;
}

/**
 * A provider of local kind clusters, polled through the scheduler. A cluster that disappears from
 * `kind get clusters` is disengaged; one recreated under the same name (new kubeconfig) is
 * re-engaged with a new client. A poll still running when the next is due is not doubled. A
 * failing `kind get clusters` changes nothing and is reported as an `error` once while it keeps
 * failing with the same message.
 *
 * @example
 * ```ts
 * import { kindProvider } from 'rxfleet/providers/kind';
 * const fleet = createFleet(kindProvider({ prefix: 'fleet-' }));
 * ```
 * @param options - prefix, period, command, timing and first contact.
 * @returns the provider.
 * @throws ConfigError when `command` is empty or a duration is not positive.
 */
export function kindProvider(options: KindProviderOptions = {}): Provider {
  const cfg = engineConfig('kind', options, 'no longer listed by kind', true);
  const intervalMs = durationOption('kind', 'intervalMs', options.intervalMs, 10_000);
  const timeoutMs = durationOption('kind', 'commandTimeoutMs', options.commandTimeoutMs, 30_000);
  if (options.command === '') throw new ConfigError('kind provider: `command` must not be empty; leave it out to run `kind` from PATH');
  const run = options.run ?? runKind(options.command ?? 'kind', timeoutMs);
  return reporting(cfg, (say) => {
    const problems = reportProblems(say);
    return rescanTicks(intervalMs, cfg.scheduler).pipe(
      exhaustMap(() => lookAtKind(run, options.prefix ?? '', timeoutMs, cfg.scheduler)),
      mergeMap((look) => {
        problems(E.isLeft(look) ? [{ type: 'error', reason: look.left }] : []);
        return E.isLeft(look) ? [] : [look.right];
      }),
      engageCandidates(cfg, say),
    );
  });
}
