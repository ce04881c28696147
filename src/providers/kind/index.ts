// Local kind clusters, as multicluster-runtime's kind provider: polls `kind get clusters`, reads each
// cluster's kubeconfig with `kind get kubeconfig --name <name>`, keeps those whose name starts with a
// prefix, and re-engages a cluster whose kubeconfig changed (kind recreated it).
import type { Observable } from 'rxjs';
import { asyncScheduler, defer, EMPTY, exhaustMap, forkJoin, from, map, mergeMap, of, timeout, catchError } from 'rxjs';
import type { Provider } from '../../client/cluster.js';
import type { ClusterName } from '../../core/cluster.js';
import { clusterName } from '../../core/cluster.js';
import type { Either } from '../../internal/fp.js';
import { E } from '../../internal/fp.js';
import type { Candidate, Desired } from '../internal/candidates.js';
import { sha256, skipped } from '../internal/candidates.js';
import { engageCandidates } from '../internal/engage.js';
import type { EngageConfig } from '../internal/engage.js';
import { kubeconfigCandidate } from '../internal/kubeconfig.js';
import type { ContactOptions } from '../internal/options.js';
import { engineConfig } from '../internal/options.js';
import { rescanTicks } from '../internal/poll.js';
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
 * const opts: KindOptions = { prefix: 'fleet-', interval: 5_000 };
 * ```
 */
export interface KindOptions extends ContactOptions {
  /** Only clusters whose name starts with this; default all. */
  readonly prefix?: string;
  /** Polling period (ms); default 10 000. */
  readonly interval?: number;
  /** The kind executable; default `kind` (from PATH). */
  readonly command?: string;
  /** How long one kind call may take (ms); default 30 000. */
  readonly commandTimeout?: number;
  /** Runs kind; default {@link runKind}. Injected by tests. */
  readonly run?: KindRunner;
}

function call(run: KindRunner, args: readonly string[], cfg: EngageConfig, ms: number): Observable<Either<string, string>> {
  return defer(() => from(run(args))).pipe(
    timeout({ first: ms, scheduler: cfg.scheduler, with: () => of(E.left(`kind ${args.join(' ')} gave no answer within ${ms} ms`)) }),
    catchError((err: unknown) => of(E.left(err instanceof Error ? err.message : String(err)))),
  );
}

/**
 * One look at kind: the desired set, or nothing (reported) when listing fails, so that a flaky
 * `kind` never disengages what is running.
 *
 * @example
 * ```ts
 * lookAtKind(runKind('kind', 30_000), 'fleet-', cfg, 30_000).subscribe((desired) => console.log([...desired.keys()]));
 * ```
 * @param run - the kind runner.
 * @param prefix - name filter.
 * @param cfg - reporting and scheduler.
 * @param ms - per-call timeout.
 * @returns at most one desired set.
 */
export function lookAtKind(run: KindRunner, prefix: string, cfg: EngageConfig, ms: number): Observable<Desired> {
  return call(run, ['get', 'clusters'], cfg, ms).pipe(
    mergeMap((listed) => {
      if (E.isLeft(listed)) {
        cfg.say({ type: 'error', reason: listed.left });
        return EMPTY;
      }
      const names = parseKindClusters(listed.right).filter((n) => n.startsWith(prefix));
      if (names.length === 0) return of(new Map<ClusterName, Candidate>());
      return forkJoin(
        names.map((n) =>
          call(run, ['get', 'kubeconfig', '--name', n], cfg, ms).pipe(
            map((r): Candidate => {
              const name = clusterName(n);
              return E.isLeft(r) ? skipped(name, r.left) : kubeconfigCandidate(name, { yaml: r.right }, sha256(r.right));
            }),
          ),
        ),
      ).pipe(map((cs): Desired => new Map(cs.map((c) => [c.name, c]))));
    }),
  );
}

/**
 * A provider of local kind clusters, polled through the scheduler. A cluster that disappears from
 * `kind get clusters` is disengaged; one recreated under the same name (new kubeconfig) is
 * re-engaged with a new client. A poll still running when the next is due is not doubled.
 *
 * @example
 * ```ts
 * import { kind } from 'rxfleet/providers/kind';
 * const fleet = createFleet(kind({ prefix: 'fleet-' }));
 * ```
 * @param options - prefix, period, command, timing and reporting.
 * @returns the provider.
 */
export function kind(options: KindOptions = {}): Provider {
  const cfg = engineConfig('kind', options, 'no longer listed by kind', true);
  const ms = options.commandTimeout ?? 30_000;
  const run = options.run ?? runKind(options.command ?? 'kind', ms);
  return defer(() =>
    rescanTicks(options.interval ?? 10_000, options.scheduler ?? asyncScheduler).pipe(
      exhaustMap(() => lookAtKind(run, options.prefix ?? '', cfg, ms)),
      engageCandidates(cfg),
    ),
  );
}
