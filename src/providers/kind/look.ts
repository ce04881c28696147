// One look at kind: `kind get clusters`, then each matching cluster's kubeconfig, every call cut at
// its timeout, so a hung `kind` never stalls the provider.
import type { Observable, SchedulerLike } from 'rxjs';
import { catchError, defer, forkJoin, from, map, mergeMap, of, timeout } from 'rxjs';
import type { ClusterName } from '../../core/cluster.js';
import { clusterName } from '../../core/cluster.js';
import type { Either } from '../../internal/fp.js';
import { E } from '../../internal/fp.js';
import type { Candidate, Desired } from '../internal/candidates.js';
import { sha256, skipped } from '../internal/candidates.js';
import { kubeconfigCandidate } from '../internal/kubeconfig.js';
import type { KindRunner } from './command.js';
import { parseKindClusters } from './command.js';

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
 * lookAtKind(runKind('kind', 30_000), 'fleet-', 30_000, asyncScheduler).subscribe((r: Either<string, Desired>) => console.log(isRight(r) ? [...r.right.keys()] : r.left));
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
              return E.isLeft(r) ? skipped(name, r.left) : kubeconfigCandidate(name, { yaml: r.right }, sha256(r.right), { identity: { provider: 'kind', from: source } });
            }),
          ),
        ),
      ).pipe(map((cs) => E.right(new Map(cs.map((c) => [c.name, c])))));
    }),
  );
}
