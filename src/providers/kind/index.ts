// Local kind clusters, as multicluster-runtime's kind provider: polls `kind get clusters`, reads each
// cluster's kubeconfig with `kind get kubeconfig --name <name>`, keeps those whose name starts with a
// prefix, and re-engages a cluster whose kubeconfig changed (kind recreated it).
import type { Observable, SchedulerLike } from 'rxjs';
import { catchError, defer, exhaustMap, forkJoin, from, map, mergeMap, of, timeout } from 'rxjs';
import { ConfigError } from '../../core/config-error.js';
import type { ClusterName } from '../../core/cluster.js';
import { clusterName } from '../../core/cluster.js';
import type { Either } from '../../internal/fp.js';
import { E } from '../../internal/fp.js';
import type { Provider } from '../../streams/cluster.js';
import type { Candidate, Desired } from '../internal/candidates.js';
import { sha256, skipped } from '../internal/candidates.js';
import { engageCandidates } from '../internal/engage.js';
import { kubeconfigCandidate } from '../internal/kubeconfig.js';
import type { ContactOptions } from '../internal/options.js';
import { durationOption, engineConfig } from '../internal/options.js';
import { rescanTicks } from '../internal/poll.js';
import { reportProblems, reporting } from '../internal/report.js';
import type { KindRunner } from './command.js';
import { parseKindClusters, runKind } from './command.js';

export type { KindRunner } from './command.js';
export { parseKindClusters, runKind } from './command.js';
export type { ContactOptions, ProviderOptions, ProviderReport } from '../clusters/index.js';

/**
 * Options of {@link kind}.
 *
 * @example
 * ```ts
 * const opts: KindOptions = { prefix: 'fleet-', intervalMs: 5_000 };
 * ```
 */
export interface KindOptions extends ContactOptions {
  /** Only clusters whose name starts with this; default all. */
  readonly prefix?: string;
  /** Polling period; default 10 000. */
  readonly intervalMs?: number;
  /** The kind executable; default `kind` (from PATH). */
  readonly command?: string;
  /** How long one kind call may take; default 30 000. */
  readonly commandTimeoutMs?: number;
  /** Runs kind; default {@link runKind}. Injected by tests. */
  readonly run?: KindRunner;
}

function call(run: KindRunner, args: readonly string[], timeoutMs: number, scheduler: SchedulerLike): Observable<Either<string, string>> {
  return defer(() => from(run(args))).pipe(
    timeout({ first: timeoutMs, scheduler, with: () => of(E.left(`kind ${args.join(' ')} gave no answer within ${timeoutMs} ms`)) }),
    catchError((err: unknown) => of(E.left(err instanceof Error ? err.message : String(err)))),
  );
}

/**
 * One look at kind: the desired set, or why there is none (listing failed), so that a flaky `kind`
 * never disengages what is running. A cluster whose kubeconfig cannot be read is a skipped
 * candidate; its identity is `kind cluster <name>`.
 *
 * @example
 * ```ts
 * lookAtKind(runKind('kind', 30_000), 'fleet-', 30_000, asyncScheduler).subscribe((r) => console.log(E.isRight(r) ? [...r.right.keys()] : r.left));
 * ```
 * @param run - the kind runner.
 * @param prefix - name filter.
 * @param timeoutMs - per-call timeout.
 * @param scheduler - the clock of the timeouts.
 * @returns exactly one answer: the desired set, or why listing failed.
 */
export function lookAtKind(run: KindRunner, prefix: string, timeoutMs: number, scheduler: SchedulerLike): Observable<Either<string, Desired>> {
  return call(run, ['get', 'clusters'], timeoutMs, scheduler).pipe(
    mergeMap((listed): Observable<Either<string, Desired>> => {
      if (E.isLeft(listed)) return of(listed);
      const names = parseKindClusters(listed.right).filter((n) => n.startsWith(prefix));
      if (names.length === 0) return of(E.right(new Map<ClusterName, Candidate>()));
      return forkJoin(
        names.map((n) =>
          call(run, ['get', 'kubeconfig', '--name', n], timeoutMs, scheduler).pipe(
            map((r): Candidate => {
              const name = clusterName(n);
              const source = `kind cluster ${n}`;
              return E.isLeft(r) ? skipped(name, r.left) : kubeconfigCandidate(name, { yaml: r.right }, sha256(r.right), { identity: { provider: 'kind', source } });
            }),
          ),
        ),
      ).pipe(map((cs) => E.right(new Map(cs.map((c) => [c.name, c])))));
    }),
  );
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
 * import { kind } from 'rxfleet/providers/kind';
 * const fleet = createFleet(kind({ prefix: 'fleet-' }));
 * ```
 * @param options - prefix, period, command, timing and first contact.
 * @returns the provider.
 * @throws ConfigError when `command` is empty or a duration is not positive.
 */
export function kind(options: KindOptions = {}): Provider {
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
