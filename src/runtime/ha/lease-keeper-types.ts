// The contract of the Lease keeper (lease-keeper.ts builds it): its states, what it offers the
// fence and the sharding barrier, and its options.
import type { Observable, SchedulerLike } from 'rxjs';
import type { ClusterClient } from '../../client/client.js';
import type { LeaseApi } from './lease-api.js';
import type { LeaseTiming } from './lease-timing.js';

/**
 * Where the keeper stands. `lost` always comes before a later `held`, and each `held` has a new epoch.
 *
 * @example
 * ```ts
 * const s: LeaseState = { type: 'lost', reason: 'leader Lease ops/ctl on cluster "hub": not renewed within the renew deadline of 10000 ms' };
 * ```
 */
export type LeaseState =
  | { readonly type: 'acquiring'; readonly holder?: string }
  | { readonly type: 'held'; readonly epoch: number }
  | { readonly type: 'lost'; readonly reason: string };

/**
 * One Lease held (or wanted) by this replica.
 *
 * @example
 * ```ts
 * const keeper = leaseKeeper({ api: leaseApi(home.client), namespace: 'ops', name: 'ctl', identity, timing: leaseTiming(), mode: 'leader' });
 * const sub = keeper.states.subscribe(log);
 * // ... on SIGTERM:
 * await keeper.release();
 * sub.unsubscribe();
 * ```
 */
export interface LeaseKeeper {
  /** Starts the loop on first subscribe and stops it when the last subscriber leaves; replays the latest state. Completes after `release()`. */
  readonly states: Observable<LeaseState>;
  /** True only while the loop runs, the Lease is held, and the last successful renew was sent less than renewDeadline ago. Synchronous; no side effects. */
  valid(): boolean;
  /** Merges annotations into what the next renew publishes, and asks for that renew now (sharding acknowledgements ride here). */
  annotate(annotations: Readonly<Record<string, string>>): void;
  /** Stops renewing and gives the Lease up by emptying its holder (if still ours), so others read it as free at once; a member then deletes it two retry periods later, once its peers have seen it released. Bounded; never rejects. */
  release(): Promise<void>;
}

/**
 * What {@link leaseKeeper} needs: the home cluster's `client` (production) or a narrow `api`
 * (tests, with a fake answering in virtual time).
 *
 * @example
 * ```ts
 * const opts: LeaseKeeperOptions = { client: home.client, namespace: 'ops', name: 'ctl-3f2a9c1d0e', identity: 'pod-a-1f2e3d', timing: leaseTiming(), mode: 'member' };
 * ```
 */
export type LeaseKeeperOptions = LeaseKeeperCommon & ({ readonly client: ClusterClient; readonly api?: never } | { readonly api: LeaseApi; readonly client?: never });

/** The options of {@link leaseKeeper} besides where its calls go. @example `{ namespace: 'ops', name: 'ctl', identity: 'pod-a-1f2e3d', timing: leaseTiming(), mode: 'leader' }` */
export interface LeaseKeeperCommon {
  /** Namespace of the Lease. */
  readonly namespace: string;
  /** Name of the Lease. */
  readonly name: string;
  /** Our holder identity, unique per process. */
  readonly identity: string;
  /** The durations (already validated by `leaseTiming`). */
  readonly timing: LeaseTiming;
  /** `leader`: a shared Lease replicas compete for; `member`: this replica's own membership Lease, deleted after its release. Named in the states' reasons. */
  readonly mode: 'leader' | 'member';
  /** Labels written on the Lease (sharding's `rxfleet.io/replicas`). */
  readonly labels?: Readonly<Record<string, string>>;
  /** Annotations written from the first claim on (sharding's weight). */
  readonly annotations?: Readonly<Record<string, string>>;
  /** Monotonic milliseconds; default `performance.now`. Never the wall clock: it can jump. */
  readonly clock?: () => number;
  /** Wall-clock epoch milliseconds, only for the MicroTimes written; default `Date.now`. */
  readonly wallClock?: () => number;
  /** Where the loop's timers run; default `asyncScheduler` (a TestScheduler in tests). */
  readonly scheduler?: SchedulerLike;
  /** Timeout of each Lease request; default the retry period. */
  readonly requestTimeoutMs?: number;
  /** Told, after each successful write of the Lease, how long it took from sending to reading its answer (event-loop lag included), ms. */
  readonly onRenewed?: (sentToReadMs: number) => void;
}
