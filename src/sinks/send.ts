// How every sink sends one request: find the cluster's client in the fleet at the moment the
// request runs (NotEngaged otherwise), wait for a rate-limit token, send, and honour 429
// Retry-After with bounded attempts. It never errors: failures come back as Left values.
import type { Observable, ObservableInput } from 'rxjs';
import { catchError, concatMap, defaultIfEmpty, defer, of, take, timer } from 'rxjs';
import type { ClusterName } from '../core/cluster.js';
import type { KubeError } from '../core/errors.js';
import { kubeError } from '../core/errors.js';
import type { Either } from '../internal/fp.js';
import { E } from '../internal/fp.js';
import { backoffDelay } from '../streams/backoff.js';
import type { SinkContext, WriteClient } from './context.js';

/**
 * The answer to one request, and how many times it was sent (429 retries included).
 *
 * @example
 * ```ts
 * const s: Sent<ConfigMap> = { result: E.right(cm), attempts: 1 };
 * ```
 */
export interface Sent<R> {
  readonly result: Either<KubeError, R>;
  readonly attempts: number;
}

/**
 * Sends one request to a cluster of the fleet, with rate limiting and Retry-After.
 *
 * @example
 * ```ts
 * send(ctx, cluster, 'read configmaps default/a', (c: WriteClient) => c.get(configMaps, 'a', { namespace: 'default' }));
 * ```
 * @param ctx - the sink context.
 * @param cluster - the target cluster.
 * @param what - the request in words, used when the cluster is not engaged.
 * @param call - the request, given the cluster's client.
 * @returns one {@link Sent}, then completes; never errors.
 */
export function send<R>(
  ctx: SinkContext,
  cluster: ClusterName,
  what: string,
  call: (client: WriteClient) => ObservableInput<Either<KubeError, R>>,
): Observable<Sent<R>> {
  const attempt = (n: number): Observable<Sent<R>> =>
    defer(() => {
      const target = ctx.clusters.get(cluster);
      if (target === undefined) {
        return of<Sent<R>>({ result: E.left(kubeError('NotEngaged', cluster, `cluster is not engaged in the fleet: cannot ${what}`)), attempts: n - 1 });
      }
      // Every write comes here: without a rate limit (the default) the request is sent at once,
      // with no gate to wait for, and the chain is as short as the retry logic allows.
      const request = defer(() => call(target.client)).pipe(take(1));
      const gate = ctx.limiter(cluster)?.take();
      return (gate === undefined ? request : gate.pipe(concatMap(() => request))).pipe(
        // Anything the client throws or rejects with is a broken client, but still only this write's failure.
        catchError((err: unknown) => of(E.left(kubeError('Unknown', cluster, `${what} failed: ${err instanceof Error ? err.message : String(err)}`)))),
        defaultIfEmpty(E.left(kubeError('Unknown', cluster, `${what}: the client answered nothing`))),
        concatMap((result) => {
          // A 429's Retry-After speaks for the whole cluster: the cluster's other requests wait as long.
          if (E.isLeft(result) && result.left.type === 'TooManyRequests' && result.left.retryAfterSeconds !== undefined) ctx.limiter(cluster)?.pause(Math.min(ctx.retryAfter.backoff.maxMs, result.left.retryAfterSeconds * 1000));
          if (E.isLeft(result) && result.left.type === 'TooManyRequests' && n < ctx.retryAfter.attempts) {
            const asked = result.left.retryAfterSeconds;
            const { backoff } = ctx.retryAfter;
            // The server's word wins, within the cap; without one, the context's backoff decides.
            const delay = asked === undefined ? backoffDelay(backoff, n - 1, ctx.random) : Math.min(backoff.maxMs, asked * 1000);
            return timer(delay, ctx.scheduler).pipe(concatMap(() => attempt(n + 1)));
          }
          return of({ result, attempts: n });
        }),
      );
    });
  return attempt(1);
}
