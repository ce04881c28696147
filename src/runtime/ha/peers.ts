// Who else is sharding with us: the live membership Leases of a replica set, seen by polling.
// Liveness is the leader election's rule (lease-observation.ts), on our own monotonic clock: a
// Lease is live until leaseDuration after we last saw its resourceVersion CHANGE, never by reading
// its renewTime against our wall clock, and one that disappears stays its holder's until then (its
// holder may still be writing). Nothing extends liveness without evidence: a failed or hung LIST
// keeps the last observation, and its members still expire on time. Leases expired (by our
// observation) are deleted at the next LIST, with a resourceVersion precondition, so replica churn
// leaves nothing behind and a replica joining after a crash does not wait out the dead member's
// Lease (seen for the first time, it would count as fresh for a whole lease duration); Leases that
// disappeared are forgotten once expired, so memory follows the live set.
import type { Observable, ObservableInput, SchedulerLike } from 'rxjs';
import { asyncScheduler, catchError, concat, defaultIfEmpty, defer, distinctUntilChanged, exhaustMap, map, merge, mergeMap, of, switchMap, take, timeout, timer } from 'rxjs';
import type { ClusterClient } from '../../client/client.js';
import type { ClusterName } from '../../core/cluster.js';
import type { KubeError } from '../../core/errors.js';
import { fromTransport, kubeError } from '../../core/errors.js';
import type { KubeObject, ObjectMeta } from '../../core/object.js';
import type { ResourceDescriptor } from '../../core/resource.js';
import type { Either } from '../../internal/fp.js';
import { E } from '../../internal/fp.js';
import type { LeaseObservation } from './lease-observation.js';
import { heldNow, heldUntil, observeLease } from './lease-observation.js';
import { acknowledgedViewAnnotation, memberLabelSelector, memberLeaseName, weightAnnotation } from './shard-view.js';
import { ConfigError } from '../../core/config-error.js';

/** The part of a `coordination.k8s.io/v1` Lease this module reads. @example `{ metadata: { name: 'ctl-0a1b2c3d4e', resourceVersion: '42' }, spec: { holderIdentity: 'replica-a' } }` */
export interface PeerLease {
  /** Name, resourceVersion, annotations (weight, acknowledged view). */
  readonly metadata: ObjectMeta;
  /** The holder; empty or absent means released. */
  readonly spec?: { readonly holderIdentity?: string | null };
}

/** The Lease calls peers need, on the home cluster: narrow so tests can script them. @example `peerLeaseApi(home, leases)` */
export interface PeerLeaseApi {
  /** The home cluster, named in errors. */
  readonly cluster: ClusterName;
  /** LIST Leases in a namespace by label selector. */
  list(namespace: string, labelSelector: string): ObservableInput<Either<KubeError, readonly PeerLease[]>>;
  /** DELETE a Lease only if it still has this resourceVersion (a Conflict or NotFound answer is fine). */
  delete(namespace: string, name: string, resourceVersion: string): ObservableInput<Either<KubeError, unknown>>;
}

/**
 * Adapts a {@link ClusterClient} to {@link PeerLeaseApi}.
 *
 * @example
 * ```ts
 * const api = peerLeaseApi(home, leases);
 * ```
 * @param client - the home cluster's client.
 * @param leases - the `coordination.k8s.io/v1` Lease descriptor.
 * @returns the narrow API.
 */
export function peerLeaseApi<T extends KubeObject & PeerLease>(client: ClusterClient, leases: ResourceDescriptor<T>): PeerLeaseApi {
  return {
    cluster: client.cluster,
    list: async (namespace, labelSelector) => E.map((l: { readonly items: readonly T[] }) => l.items)(await client.list(leases, { namespace, labelSelector })),
    delete: (namespace, name, resourceVersion) => client.delete(leases, name, { namespace, preconditions: { resourceVersion } }),
  };
}

/** A live member as observed. @example `{ identity: 'replica-b', weight: 1, acknowledgedView: undefined, leaseName: 'ctl-0a1b2c3d4e' }` */
export interface PeerMember {
  /** The Lease's holderIdentity. */
  readonly identity: string;
  /** The weight annotation; 1 when absent or not a positive number. */
  readonly weight: number;
  /** The acknowledged-view annotation; undefined when absent. */
  readonly acknowledgedView: string | undefined;
  /** The membership Lease's name. */
  readonly leaseName: string;
}

/** Why the observation may be stale or incomplete. @example `{ type: 'list-failed', error }` */
export type PeerProblem =
  | { readonly type: 'list-failed'; readonly error: KubeError }
  | { readonly type: 'gc-failed'; readonly lease: string; readonly error: KubeError };

/** The live peers (self included when its Lease is live) and current problems. @example `{ members: [], problems: [] }` */
export interface PeerSet {
  /** Live members, sorted by identity, one per identity. */
  readonly members: readonly PeerMember[];
  /** The last LIST's failure (until a LIST succeeds) and failed garbage collections (until the Lease is gone). */
  readonly problems: readonly PeerProblem[];
}

/** Options of {@link observePeers}. @example `{ api, namespace: 'ops', prefix: 'my-controller', timing, self: identity }` */
export interface ObservePeersOptions {
  /** The Lease calls. */
  readonly api: PeerLeaseApi;
  /** The Leases' namespace. */
  readonly namespace: string;
  /** The replica set's name: Leases labelled `rxfleet.io/replicas=<prefix>` are members. */
  readonly prefix: string;
  /** Lease duration (liveness window) and retry period (poll interval); a LeaseTiming fits. */
  readonly timing: { readonly leaseDurationMs: number; readonly retryPeriodMs: number };
  /** This replica's identity: its own Lease is never garbage-collected here. */
  readonly self?: string;
  /** A LIST or DELETE with no answer after this long counts as failed; default leaseDurationMs. */
  readonly requestTimeoutMs?: number;
  /** Monotonic milliseconds; default performance.now. */
  readonly clock?: () => number;
  /** Timers; default asyncScheduler. */
  readonly scheduler?: SchedulerLike;
}

/** What we remember of one Lease: mutated in place, so a delete in flight finds its record. */
interface Seen {
  readonly name: string;
  /** Its last record (holder: the identity, '' when released or being deleted) and when it changed. */
  obs: LeaseObservation;
  weight: number;
  ack: string | undefined;
  deleting: boolean;
  gcError: KubeError | undefined;
}

function weightOf(lease: PeerLease): number {
  const w = Number(lease.metadata.annotations?.[weightAnnotation] ?? '1');
  return Number.isFinite(w) && w > 0 ? w : 1;
}

/** Folds one successful LIST into the book: new or changed Leases are stamped `now`; missing ones keep their last record until it expires, then are forgotten. */
function observe(book: Map<string, Seen>, items: readonly PeerLease[], now: number, leaseMs: number): void {
  const listed = new Set<string>();
  for (const lease of items) {
    const name = lease.metadata.name;
    const rv = lease.metadata.resourceVersion;
    if (name === undefined || rv === undefined) continue;
    listed.add(name);
    // Being deleted counts as released: the holder is on its way out.
    const holder = lease.metadata.deletionTimestamp === undefined ? (lease.spec?.holderIdentity ?? '') : '';
    const seen = book.get(name);
    const obs = observeLease(seen?.obs, { rv, holder, durationMs: leaseMs }, now);
    if (obs === undefined || obs === seen?.obs) continue;
    const fields = { obs, weight: weightOf(lease), ack: lease.metadata.annotations?.[acknowledgedViewAnnotation] };
    if (seen === undefined) book.set(name, { name, deleting: false, gcError: undefined, ...fields });
    else Object.assign(seen, fields);
  }
  for (const [name, seen] of [...book]) {
    if (listed.has(name)) continue;
    const obs = observeLease(seen.obs, undefined, now);
    if (obs === undefined || !heldNow(obs, now)) book.delete(name);
    else seen.obs = obs;
  }
}

const isLive = (s: Seen, now: number): boolean => heldNow(s.obs, now);

function snapshot(book: ReadonlyMap<string, Seen>, listError: KubeError | undefined, now: number): PeerSet {
  const byIdentity = new Map<string, Seen>();
  for (const s of book.values()) {
    const other = byIdentity.get(s.obs.holder);
    if (isLive(s, now) && (other === undefined || s.obs.changedAt > other.obs.changedAt)) byIdentity.set(s.obs.holder, s);
  }
  const members = [...byIdentity.values()]
    .sort((a, b) => (a.obs.holder < b.obs.holder ? -1 : 1))
    .map((s) => ({ identity: s.obs.holder, weight: s.weight, acknowledgedView: s.ack, leaseName: s.name }));
  const gc = [...book.values()].flatMap((s) => (s.gcError === undefined ? [] : [{ type: 'gc-failed' as const, lease: s.name, error: s.gcError }]));
  const problems: PeerProblem[] = listError === undefined ? gc : [{ type: 'list-failed', error: listError }, ...gc];
  return { members, problems };
}

/** Content identity of a PeerSet: members and problems, errors by type and message. */
function contentKey(p: PeerSet): string {
  return JSON.stringify([p.members.map((m) => [m.identity, m.weight, m.acknowledgedView ?? null, m.leaseName]), p.problems.map((x) => [x.type, x.type === 'gc-failed' ? x.lease : '', x.error.type, x.error.message])]);
}

/** The earliest moment after `now` at which a live Lease expires. */
function nextExpiry(book: ReadonlyMap<string, Seen>, now: number): number | undefined {
  let next: number | undefined;
  for (const s of book.values()) if (isLive(s, now) && (next === undefined || heldUntil(s.obs) < next)) next = heldUntil(s.obs);
  return next;
}

/**
 * The live members of a replica set, polled every retryPeriod: emits after the first LIST, then
 * whenever the live set, a weight, an acknowledged view or a problem changes, including at the
 * exact moment a member expires (leaseDuration after its Lease was last seen to change). Cold:
 * each subscription polls on its own.
 *
 * @example
 * ```ts
 * const peers$ = observePeers({ api: peerLeaseApi(home, leases), namespace: 'ops', prefix: 'my-controller', timing, self: identity });
 * // emits { members: [{ identity, weight, acknowledgedView, leaseName }, ...], problems: [] }
 * ```
 * @param opts - the API, namespace, prefix, timing and clock.
 * @returns the live peer set.
 * @throws ConfigError when leaseDurationMs or retryPeriodMs is not positive.
 */
export function observePeers(opts: ObservePeersOptions): Observable<PeerSet> {
  const { api, namespace, timing } = opts;
  const leaseMs = timing.leaseDurationMs;
  if (!(leaseMs > 0 && timing.retryPeriodMs > 0)) throw new ConfigError(`observePeers needs leaseDurationMs and retryPeriodMs > 0, got ${leaseMs} and ${timing.retryPeriodMs}`);
  const clock = opts.clock ?? (() => performance.now());
  const scheduler = opts.scheduler ?? asyncScheduler;
  const waitMs = opts.requestTimeoutMs ?? leaseMs;
  const selector = memberLabelSelector(opts.prefix);
  const selfLease = opts.self === undefined ? undefined : memberLeaseName(opts.prefix, opts.self);

  // One answer per request, never an RxJS error, never a wait longer than waitMs.
  const ask = <T>(input: () => ObservableInput<Either<KubeError, T>>, request: string): Observable<Either<KubeError, T>> => {
    const fail = (detail: string): Either<KubeError, T> => E.left(kubeError('Timeout', api.cluster, detail, { request }));
    return defer(input).pipe(
      take(1),
      timeout({ first: waitMs, scheduler, with: () => of(fail(`no answer within ${waitMs} ms`)) }),
      defaultIfEmpty(fail('ended without an answer')),
      catchError((err: unknown) => of(E.left(fromTransport(api.cluster, err, request)))),
    );
  };

  return defer(() => {
    const book = new Map<string, Seen>();
    let listError: KubeError | undefined;

    const settle = (s: Seen, r: Either<KubeError, unknown>): void => {
      s.deleting = false;
      // Deleted, or already gone: forget it. Changed since we read it (Conflict): its holder is back,
      // and the next LIST sees the new resourceVersion. Anything else is reported and retried.
      if (E.isRight(r) || r.left.type === 'NotFound') book.delete(s.name);
      else s.gcError = r.left.type === 'Conflict' ? undefined : r.left;
    };

    const collect = (now: number): Observable<void>[] =>
      [...book.values()]
        // Released ones too, once a lease duration after we saw the release: every peer has seen it by then.
        .filter((s) => !s.deleting && !s.obs.gone && s.name !== selfLease && s.obs.holder !== opts.self && now >= s.obs.changedAt + leaseMs)
        .map((s) => {
          s.deleting = true;
          return ask(() => api.delete(namespace, s.name, s.obs.rv), `DELETE leases/${s.name} in namespace ${namespace}`).pipe(
            map((r) => {
              settle(s, r);
            }),
          );
        });

    const changes = timer(0, timing.retryPeriodMs, scheduler).pipe(
      exhaustMap(() => ask(() => api.list(namespace, selector), `LIST leases -l ${selector} in namespace ${namespace}`)),
      mergeMap((r) => {
        if (E.isLeft(r)) {
          listError = r.left;
          return of(undefined);
        }
        listError = undefined;
        const now = clock();
        observe(book, r.right, now, leaseMs);
        // Deletes only on fresh evidence: the Lease was just listed with the resourceVersion we send.
        return merge(of(undefined), ...collect(now));
      }),
    );

    // Re-evaluate now and at each expiry until the next change: members leave on time even when LISTs fail.
    const recheck = (): Observable<void> => {
      const now = clock();
      const next = nextExpiry(book, now);
      return next === undefined ? of(undefined) : concat(of(undefined), timer(next - now, scheduler).pipe(mergeMap(recheck)));
    };

    return changes.pipe(
      switchMap(recheck),
      map(() => snapshot(book, listError, clock())),
      distinctUntilChanged((a, b) => contentKey(a) === contentKey(b)),
    );
  });
}
