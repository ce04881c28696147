// The shared settings of every sink: where clients come from (the fleet), the controller's field
// manager, the scheduler that drives all waiting, and the retry and rate-limit policies.
import type { ObservableInput, SchedulerLike } from 'rxjs';
import { asyncScheduler } from 'rxjs';
import type { DeleteOptions, GetOptions, ListOptions, PatchOptions, ApplyOptions, WriteOptions } from '../client/client.js';
import type { ClusterName } from '../core/cluster.js';
import type { KubeError, Status } from '../core/errors.js';
import type { ApplyConfiguration, KubeObject, ObjectList } from '../core/object.js';
import type { ResourceDescriptor } from '../core/resource.js';
import type { Either } from '../internal/fp.js';
import { ConfigError } from '../core/config-error.js';
import type { Backoff } from '../streams/backoff.js';
import { checkBackoff } from '../streams/backoff.js';
import type { RateLimit, TokenBucket } from '../core/token-bucket.js';
import { checkRateLimit, tokenBucket } from '../core/token-bucket.js';
import type { SinkCache } from './apply-cache.js';
import type { WriteVerb } from '../core/verb.js';

/**
 * The calls sinks make, each returning any `ObservableInput` of an Either. A `ClusterClient` is a
 * `WriteClient` (its Promises are ObservableInputs); tests pass fakes returning cold observables,
 * so retry spacing and rate limits run in virtual time.
 *
 * @example
 * ```ts
 * const fake: WriteClient = { ...unused, get: () => cold('-a|', { a: E.right(cm) }) };
 * ```
 */
export interface WriteClient {
  /** One object by name. */
  get<T extends KubeObject>(r: ResourceDescriptor<T>, name: string, opts?: GetOptions): ObservableInput<Either<KubeError, T>>;
  /** Every page of a list, as one list. */
  listAll<T extends KubeObject>(r: ResourceDescriptor<T>, opts?: ListOptions): ObservableInput<Either<KubeError, ObjectList<T>>>;
  /** Creates an object. */
  create<T extends KubeObject>(r: ResourceDescriptor<T>, obj: T, opts?: WriteOptions): ObservableInput<Either<KubeError, T>>;
  /** Replaces an object (PUT, with its resourceVersion as precondition). */
  update<T extends KubeObject>(r: ResourceDescriptor<T>, obj: T, opts?: WriteOptions): ObservableInput<Either<KubeError, T>>;
  /** Server-side apply with the given field manager. */
  apply<T extends KubeObject>(r: ResourceDescriptor<T>, obj: ApplyConfiguration<T>, opts: ApplyOptions): ObservableInput<Either<KubeError, T>>;
  /** Patches an object (status too, with `subresource`). */
  patch<T extends KubeObject>(r: ResourceDescriptor<T>, name: string, patch: unknown, opts: PatchOptions): ObservableInput<Either<KubeError, T>>;
  /** Deletes an object (preconditions and propagation in `opts`). */
  delete<T extends KubeObject>(r: ResourceDescriptor<T>, name: string, opts?: DeleteOptions): ObservableInput<Either<KubeError, T | Status>>;
}

/**
 * One cluster as sinks see it. Every `Cluster` of the fleet is one.
 *
 * @example
 * ```ts
 * const c: SinkCluster = fleet.get(clusterName('east'))!;
 * ```
 */
export interface SinkCluster {
  /** The cluster's fleet name, as writes name it. */
  readonly name: ClusterName;
  /** The client the sinks send this cluster's requests with. */
  readonly client: WriteClient;
}

/**
 * Where sinks find clusters. A `FleetView` is a `SinkClusters`; it is read at the moment a write
 * runs, so a write queued for a cluster that has since left the fleet fails with `NotEngaged`.
 *
 * @example
 * ```ts
 * const ctx = sinkContext({ clusters: fleetView, fieldManager: 'rollouts.demo.rxfleet.dev' });
 * ```
 */
export interface SinkClusters {
  /** The engaged cluster of that name, or `undefined` (a write there is refused as not engaged). */
  get(name: ClusterName): SinkCluster | undefined;
  /** The engaged clusters, in engagement order. */
  clusters(): readonly SinkCluster[];
}

/**
 * How a sink retries one kind of failure: how many attempts in all, and the backoff between them
 * (laid over the defaults of that failure). Used for 409 Conflict (`conflictRetry`) and for 429
 * Too Many Requests (`retryAfter`).
 *
 * @example
 * ```ts
 * const storm: RetryOptions = { attempts: 20 }; // conflictRetry: 20 attempts, the default spacing
 * const polite: RetryOptions = { attempts: 5, backoff: { maxMs: 10_000 } }; // retryAfter: wait at most 10 s
 * ```
 */
export interface RetryOptions {
  /** Total attempts of one write, the first included (1 turns retrying off). */
  readonly attempts?: number;
  /** The wait between attempts. */
  readonly backoff?: Partial<Backoff>;
}

/**
 * A {@link RetryOptions} with its defaults applied.
 *
 * @example
 * ```ts
 * ctx.conflictRetry; // { attempts: 5, backoff: { initialMs: 10, factor: 1, maxMs: 10, jitter: 0.1 } }
 * ```
 */
export interface RetryPolicy {
  /** Total attempts of one write, the first included (1: no retry). */
  readonly attempts: number;
  /** The wait between attempts, with every default filled in. */
  readonly backoff: Backoff;
}

// client-go's retry.DefaultRetry: 5 attempts, 10 ms apart, 10% jitter (taken below 10 ms here, so
// maxMs stays a true bound; client-go adds it above).
const conflictDefaults: Backoff = { initialMs: 10, factor: 1, maxMs: 10, jitter: 0.1 };
// The server's Retry-After is used as is, capped at maxMs; without one, the wait is initialMs.
const retryAfterDefaults: Backoff = { initialMs: 1000, factor: 1, maxMs: 30_000, jitter: 0 };

/**
 * How a controller's sinks retry and pace their writes (`ControllerSpec.sinks`, testing's
 * `runController({ sinks })`); {@link SinkContextOptions} adds what the run wires in.
 *
 * @example
 * ```ts
 * const sinks: SinkOptions = { conflictRetry: { attempts: 10 }, retryAfter: { backoff: { maxMs: 60_000 } } };
 * ```
 */
export interface SinkOptions {
  /**
   * How `update` and the finalizer sinks retry a 409 Conflict: re-read, re-apply, write again.
   * Default client-go's `retry.DefaultRetry`: 5 attempts, 10 ms apart with 10% jitter.
   */
  readonly conflictRetry?: RetryOptions;
  /**
   * How every sink honours 429 Too Many Requests: wait the server's Retry-After (capped at
   * `backoff.maxMs`, default 30 s; `backoff.initialMs`, default 1 s, when it sent none), then send
   * again. Default 4 attempts.
   */
  readonly retryAfter?: RetryOptions;
  /**
   * Client-side token bucket per cluster, taken by every request a sink sends (reads included); a
   * 429's `Retry-After` pauses it (capped like `retryAfter`). Off unless given, as in
   * controller-runtime.
   *
   * @deprecated Limit the cluster's client instead, so that watches and a reconciler's own calls
   * share the bucket: `RunOptions.clusterRateLimit` under `run` (which reads a controller's
   * `sinks.rateLimit` as that, and never builds this second bucket), or `rateLimitedClient` from
   * `rxfleet/client`.
   */
  readonly rateLimit?: RateLimit;
  /** Random source for jitter, in [0, 1). Default `Math.random`; tests pin it. */
  readonly random?: () => number;
}

/**
 * Options of {@link sinkContext}: the {@link SinkOptions} and the clusters, field manager and scheduler.
 *
 * @example
 * ```ts
 * const config: SinkContextOptions = { clusters: fleet, fieldManager: 'rollouts.demo.rxfleet.dev', rateLimit: { qps: 20, burst: 40 } };
 * ```
 */
export interface SinkContextOptions extends SinkOptions {
  /** Where the sinks find each cluster's client, read at every write (a `FleetView` will do). */
  readonly clusters: SinkClusters;
  /** The controller's one stable field manager (1–128 characters): server-side apply tracks ownership by it. */
  readonly fieldManager: string;
  /** Drives every wait (retry spacing, Retry-After, rate limits). Default `asyncScheduler`. */
  readonly scheduler?: SchedulerLike;
  /**
   * Where `apply` finds the object it applies to, to send nothing when that object proves the apply
   * would change nothing (see `SinkCache`). The runtime gives one over the controller's watches.
   */
  readonly cache?: SinkCache;
  /** Told of each write left unsent because the cache proved it needless (the runtime counts them). */
  readonly onUnsent?: (cluster: ClusterName, verb: WriteVerb) => void;
}

/**
 * The resolved settings every sink takes as its first argument. Build one per controller with
 * {@link sinkContext} and share it: it holds the per-cluster rate limiters.
 *
 * @example
 * ```ts
 * const ctx = sinkContext({ clusters: fleet, fieldManager: 'rollouts.demo.rxfleet.dev' });
 * apply(ctx, { cluster, resource: configMaps, object: desired }).subscribe(console.log);
 * ```
 */
export interface SinkContext {
  /** Where the sinks find each cluster's client, read at every write. */
  readonly clusters: SinkClusters;
  /** The controller's field manager, sent with every create, update, patch and apply. */
  readonly fieldManager: string;
  /** Drives every wait (retry spacing, Retry-After, rate limits): the config's, else `asyncScheduler`. */
  readonly scheduler: SchedulerLike;
  /** How a 409 Conflict is retried (default 5 attempts, 10 ms apart with 10% jitter). */
  readonly conflictRetry: RetryPolicy;
  /** How a 429 Too Many Requests is retried (default 4 attempts, Retry-After capped at 30 s, 1 s without one). */
  readonly retryAfter: RetryPolicy;
  /** Uniform random numbers in [0, 1) for retry jitter (`Math.random` unless the config gave one). */
  readonly random: () => number;
  /** The rate limiter of a cluster, or `undefined` when rate limiting is off. */
  limiter(cluster: ClusterName): TokenBucket | undefined;
  /** Where `apply` looks for the object before sending, when the config gave a cache. */
  readonly cache?: SinkCache | undefined;
  /** Told of each write left unsent because the cache proved it needless. */
  readonly onUnsent?: ((cluster: ClusterName, verb: WriteVerb) => void) | undefined;
}

function retryPolicy(what: string, config: RetryOptions | undefined, attempts: number, backoff: Backoff): RetryPolicy {
  const n = config?.attempts ?? attempts;
  if (!Number.isInteger(n) || n < 1) throw new ConfigError(`sinkContext: ${what}.attempts must be a positive integer, got ${n}`);
  return Object.freeze({ attempts: n, backoff: checkBackoff({ ...backoff, ...config?.backoff }, `sinkContext: ${what}.backoff`) });
}

/**
 * Resolves a {@link SinkContextOptions}: fills in defaults and checks the values that would otherwise fail
 * only at the first write.
 *
 * @example
 * ```ts
 * import { sinkContext } from 'rxfleet/sinks';
 * const ctx = sinkContext({ clusters: fleet, fieldManager: 'rollouts.demo.rxfleet.dev', conflictRetry: { attempts: 10 } });
 * ```
 * @param config - fleet, field manager, scheduler and policies.
 * @returns the context to pass to every sink.
 * @throws ConfigError when the field manager is empty or longer than 128 characters, or a policy is out of range.
 */
export function sinkContext(config: SinkContextOptions): SinkContext {
  const fm = config.fieldManager;
  if (fm.length === 0 || fm.length > 128) throw new ConfigError(`sinkContext: fieldManager must be 1–128 characters, got ${JSON.stringify(fm)}`);
  const scheduler = config.scheduler ?? asyncScheduler;
  const conflictRetry = retryPolicy('conflictRetry', config.conflictRetry, 5, conflictDefaults);
  const retryAfter = retryPolicy('retryAfter', config.retryAfter, 4, retryAfterDefaults);
  // eslint-disable-next-line @typescript-eslint/no-deprecated -- still honoured where sinkContext is used on its own
  const rate = config.rateLimit === undefined ? undefined : checkRateLimit(config.rateLimit, 'sinkContext: rateLimit');
  const buckets = new Map<ClusterName, TokenBucket>();
  return Object.freeze({
    clusters: config.clusters,
    fieldManager: fm,
    scheduler,
    conflictRetry,
    retryAfter,
    random: config.random ?? Math.random,
    ...(config.cache === undefined ? {} : { cache: config.cache }),
    ...(config.onUnsent === undefined ? {} : { onUnsent: config.onUnsent }),
    limiter(cluster: ClusterName): TokenBucket | undefined {
      if (rate === undefined) return undefined;
      let b = buckets.get(cluster);
      if (b === undefined) {
        // Keep memory bounded under cluster churn: forget buckets of clusters no longer engaged.
        if (buckets.size >= 2 * config.clusters.clusters().length + 16) {
          for (const name of buckets.keys()) if (config.clusters.get(name) === undefined) buckets.delete(name);
        }
        b = tokenBucket(rate, scheduler);
        buckets.set(cluster, b);
      }
      return b;
    },
  });
}
