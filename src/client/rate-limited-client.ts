// One cluster's client-side rate limit, as a client: every request it sends (reads, writes, each
// page of a list, the opening request of each watch) first takes a token of the cluster's bucket,
// and a 429 with Retry-After pauses that bucket. Waiting is a scheduler's timer, bounded by the
// request's own timeout; nothing here blocks another cluster, whose client has a bucket of its own.
import type { Observable, SchedulerLike } from 'rxjs';
import { asyncScheduler, defer, firstValueFrom, map, switchMap, tap, throwError } from 'rxjs';
import type { ClusterName } from '../core/cluster.js';
import { ConfigError } from '../core/config-error.js';
import type { KubeError } from '../core/errors.js';
import { kubeError } from '../core/errors.js';
import type { ResourceDescriptor } from '../core/resource.js';
import { resourceId } from '../core/resource.js';
import type { Either } from '../internal/fp.js';
import { E } from '../internal/fp.js';
import type { RateLimit, TokenBucket } from '../core/token-bucket.js';
import { checkRateLimit, tokenBucket } from '../core/token-bucket.js';
import type { ClusterClient } from './client.js';
import { listAllPages } from './list-all.js';

/**
 * A cluster's client-side rate limit: QPS and burst (client-go's `rest.Config` QPS/Burst), how
 * long a server's 429 may pause it, and how long a request may wait for a token.
 *
 * @example
 * ```ts
 * const small: ClientRateLimit = { qps: 5, burst: 10 }; // client-go's defaults
 * const patient: ClientRateLimit = { qps: 2, burst: 4, maxPauseMs: 10_000, maxWaitMs: 120_000 };
 * ```
 */
export interface ClientRateLimit extends RateLimit {
  /**
   * Longest pause a 429 Too Many Requests with `Retry-After` puts on the cluster's bucket, in ms
   * (a gateway answering `Retry-After: 3600` must not stall a cluster for an hour). Default 30 000,
   * the sinks' cap on the same header.
   */
  readonly maxPauseMs?: number;
  /**
   * Longest a request waits for its token when it sets no `timeoutMs` of its own, in ms; past it the
   * request fails with a `Timeout` KubeError naming the cluster, without being sent. Default 60 000.
   */
  readonly maxWaitMs?: number;
}

/**
 * Where a rate-limited client reports its waits and pauses (the runtime counts them per cluster).
 *
 * @example
 * ```ts
 * const hooks: RateLimitHooks = { onThrottled: (c: ClusterName, waitedMs: number, granted: boolean) => console.log(c, waitedMs, granted) };
 * ```
 */
export interface RateLimitHooks {
  /** A request waited `waitedMs` for its token (`granted` false: it gave up and was not sent). Not called for requests that did not wait. */
  readonly onThrottled?: (cluster: ClusterName, waitedMs: number, granted: boolean) => void;
  /** A 429 with `Retry-After` paused the cluster's bucket for `pauseMs` (capped at `maxPauseMs`). */
  readonly onPaused?: (cluster: ClusterName, pauseMs: number) => void;
}

/**
 * Options of {@link rateLimitedClient}.
 *
 * @example
 * ```ts
 * const options: RateLimitedClientOptions = { scheduler: asyncScheduler, hooks: { onPaused: (c: ClusterName, ms: number) => console.warn(c, ms) } };
 * ```
 */
export interface RateLimitedClientOptions {
  /** Drives the bucket's clock and every wait. Default `asyncScheduler`. */
  readonly scheduler?: SchedulerLike;
  /** Reports waits and pauses. */
  readonly hooks?: RateLimitHooks;
}

/**
 * A client whose requests take tokens of its cluster's bucket.
 *
 * @example
 * ```ts
 * const limited: RateLimitedClient = rateLimitedClient(client, { qps: 5, burst: 10 });
 * limited.bucket.delayMs(); // 0 while a request may go at once
 * ```
 */
export interface RateLimitedClient extends ClusterClient {
  /** The cluster's bucket: `delayMs()` is how long the next request would wait. */
  readonly bucket: TokenBucket;
}

const DEFAULT_MAX_PAUSE_MS = 30_000;
const DEFAULT_MAX_WAIT_MS = 60_000;

/**
 * Checks a client rate limit where it is configured, so a bad one fails before anything runs.
 *
 * @example
 * ```ts
 * checkClientRateLimit({ qps: 5, burst: 10 }, 'run: clusterRateLimit');
 * ```
 * @param limit - QPS, burst and the optional bounds.
 * @param where - the option, for the message.
 * @returns the same limit.
 * @throws ConfigError when qps is not positive, burst is below 1, or a bound is not a positive number (maxPauseMs may be 0: 429s then pause nothing).
 */
export function checkClientRateLimit(limit: ClientRateLimit, where: string): ClientRateLimit {
  checkRateLimit(limit, where);
  const pause = limit.maxPauseMs;
  if (pause !== undefined && !(Number.isFinite(pause) && pause >= 0)) throw new ConfigError(`${where}.maxPauseMs must be a number of milliseconds ≥ 0, got ${pause}`);
  const wait = limit.maxWaitMs;
  if (wait !== undefined && !(Number.isFinite(wait) && wait > 0)) throw new ConfigError(`${where}.maxWaitMs must be a positive number of milliseconds, got ${wait}`);
  return limit;
}

function isTooManyRequests(e: unknown): e is KubeError {
  return typeof e === 'object' && e !== null && 'type' in e && e.type === 'TooManyRequests';
}

/**
 * Wraps a cluster's client with a client-side rate limit: one token bucket shared by all its
 * requests (reads, writes, raw calls, each page of `listAll`, and each request a watch opens; a
 * watch's stream itself takes nothing). A request waits for its token on the scheduler's timers,
 * in the order requests were made, at most its own `timeoutMs` (else `maxWaitMs`); a request that
 * cannot get one in time resolves (a watch errors) at once with a `Timeout` KubeError naming the
 * cluster, and is not sent. What a request waited is taken off its own `timeoutMs`. A response
 * 429 with `Retry-After` pauses the bucket for that long, capped at `maxPauseMs`: what queued up
 * meanwhile then leaves at the bucket's rate. Each client has its own bucket: a throttled cluster
 * never delays another. `run` applies one to every engaged cluster with `RunOptions.clusterRateLimit`.
 *
 * @example
 * ```ts
 * import { createClusterClient, rateLimitedClient } from 'rxfleet/client';
 * const east = createClusterClient(clusterName('east'), { file: 'east.kubeconfig' });
 * if (E.isRight(east)) {
 *   const client = rateLimitedClient(east.right, { qps: 5, burst: 10 });
 *   await Promise.all(names.map((name: string) => client.get(configMaps, name, { namespace: 'default' }))); // 10 at once, then 5 a second
 * }
 * ```
 * @param client - the cluster's client.
 * @param limit - QPS, burst, the 429 pause cap and the longest wait.
 * @param options - scheduler and hooks.
 * @returns the rate-limited client, with its bucket.
 * @throws ConfigError when the limit is out of range (see {@link checkClientRateLimit}).
 */
export function rateLimitedClient(client: ClusterClient, limit: ClientRateLimit, options: RateLimitedClientOptions = {}): RateLimitedClient {
  const { qps, burst } = checkClientRateLimit(limit, 'rateLimitedClient: limit');
  const maxPauseMs = limit.maxPauseMs ?? DEFAULT_MAX_PAUSE_MS;
  const maxWaitMs = limit.maxWaitMs ?? DEFAULT_MAX_WAIT_MS;
  const scheduler = options.scheduler ?? asyncScheduler;
  const hooks = options.hooks ?? {};
  const cluster = client.cluster;
  const bucket = tokenBucket({ qps, burst }, scheduler);

  // Emits the milliseconds waited, or a Timeout error value when no token came within the bound.
  const acquire = (what: string, timeoutMs: number | undefined): Observable<Either<KubeError, number>> =>
    defer(() => {
      const start = scheduler.now();
      const bound = timeoutMs ?? maxWaitMs;
      return bucket.takeWithin(bound).pipe(
        map((granted) => {
          const waited = scheduler.now() - start;
          if (waited > 0 || !granted) hooks.onThrottled?.(cluster, waited, granted);
          if (granted) return E.right(waited);
          const detail = `no client-side rate-limit token (${qps} qps, burst ${burst}) within ${bound} ms: the cluster is throttled${bucket.delayMs() > 0 ? `, next token in ${bucket.delayMs()} ms` : ''}; the request was not sent`;
          return E.left(kubeError('Timeout', cluster, detail, { request: what }));
        }),
      );
    });
  const noteError = (e: KubeError): void => {
    if (!isTooManyRequests(e) || e.retryAfterSeconds === undefined) return;
    const pauseMs = Math.min(maxPauseMs, e.retryAfterSeconds * 1000);
    if (pauseMs <= 0) return;
    bucket.pause(pauseMs);
    hooks.onPaused?.(cluster, pauseMs);
  };
  // One request: its token, then the call with what is left of its own timeout, then its 429s noted.
  const limited = async <R>(what: string, timeoutMs: number | undefined, call: (timeoutLeftMs: number | undefined) => Promise<Either<KubeError, R>>): Promise<Either<KubeError, R>> => {
    const token = await firstValueFrom(acquire(what, timeoutMs));
    if (E.isLeft(token)) return token;
    const res = await call(timeoutMs === undefined ? undefined : Math.max(1, timeoutMs - token.right));
    if (E.isLeft(res)) noteError(res.left);
    return res;
  };
  // The caller's options with the timeout left after the wait (only when the caller set one).
  const within = <O extends { readonly timeoutMs?: number }>(opts: O | undefined, left: number | undefined): O | undefined =>
    left === undefined || opts === undefined ? opts : { ...opts, timeoutMs: left };
  const id = (verb: string, r: ResourceDescriptor, name?: string): string => `${verb} ${resourceId(r)}${name === undefined ? '' : ` ${name}`}`;

  const wrapped: RateLimitedClient = {
    cluster,
    server: client.server,
    bucket,
    get: (r, name, opts) => limited(id('get', r, name), opts?.timeoutMs, (left) => client.get(r, name, within(opts, left))),
    list: (r, opts) => limited(id('list', r), undefined, () => client.list(r, opts)),
    listAll: (r, opts) => listAllPages((o) => wrapped.list(r, o), opts),
    watch: (r, opts) =>
      acquire(id('watch', r), undefined).pipe(
        switchMap((token) => (E.isLeft(token) ? throwError(() => token.left) : client.watch(r, opts))),
        tap({
          error: (e: unknown) => {
            if (isTooManyRequests(e)) noteError(e);
          },
        }),
      ),
    create: (r, obj, opts) => limited(id('create', r, obj.metadata.name), opts?.timeoutMs, (left) => client.create(r, obj, within(opts, left))),
    update: (r, obj, opts) => limited(id('update', r, obj.metadata.name), opts?.timeoutMs, (left) => client.update(r, obj, within(opts, left))),
    apply: (r, obj, opts) => limited(id('apply', r, obj.metadata.name), opts.timeoutMs, (left) => client.apply(r, obj, within(opts, left) ?? opts)),
    patch: (r, name, p, opts) => limited(id('patch', r, name), opts.timeoutMs, (left) => client.patch(r, name, p, within(opts, left) ?? opts)),
    delete: (r, name, opts) => limited(id('delete', r, name), opts?.timeoutMs, (left) => client.delete(r, name, within(opts, left))),
    raw: (req) => limited(`${req.method} ${req.path.split('?')[0] ?? ''}`, req.timeoutMs, (left) => client.raw(left === undefined ? req : { ...req, timeoutMs: left })),
    close: () => {
      client.close();
    },
  };
  return wrapped;
}
