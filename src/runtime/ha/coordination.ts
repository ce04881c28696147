// One replica's part in sharing a controller's work: its lease (the leader Lease, or its own
// membership Lease), what it may run (Ownership, for ownedFleet), its write fence, and its state.
// Leader election and sharding differ only in how the lease states become ownership.
import type { SchedulerLike } from 'rxjs';
import { BehaviorSubject, combineLatest, distinctUntilChanged, map, Observable, Subject, switchMap, tap } from 'rxjs';
import { sameJsonContent } from '../../core/json-equal.js';
import type { ClusterName } from '../../core/cluster.js';
import { leases } from '../../core/resource.js';
import type { WriteFence } from './fence.js';
import { writeFence } from './fence.js';
import type { LeaseKeeper, LeaseState } from './lease-keeper.js';
import { leaseKeeper } from './lease-keeper.js';
import type { LeaseTiming } from './lease-timing.js';
import { leaseTiming } from './lease-timing.js';
import type { Ownership } from './owned-fleet.js';
import type { LeaseApi } from './lease-api.js';
import type { PeerLeaseApi, PeerSet } from './peers.js';
import { observePeers, peerLeaseApi } from './peers.js';
import type { Replicas, ReplicaState } from './replicas.js';
import { replicaIdentity } from './replicas.js';
import { acknowledgedViewAnnotation, memberLabelValue, memberLeaseName, replicasLabel, shardView, viewConfirmed, weightAnnotation } from './shard-view.js';

/**
 * A replica's coordination, made by {@link coordination} and wired by `run`.
 *
 * @example
 * ```ts
 * const co = coordination(options.replicas, c.name, { scheduler });
 * const fleet = createFleet(c.provider.pipe(ownedFleet(co.ownership, co.running, co.applied)));
 * ```
 */
export interface Coordination {
  /** This process's identity in the Leases. */
  readonly identity: string;
  /** The timing in force (validated). */
  readonly timing: LeaseTiming;
  /** What this replica may run; subscribing runs the lease loop (and the peer poll). */
  readonly ownership: Observable<Ownership>;
  /** The clusters this replica runs now (filled by ownedFleet, read by the fence). */
  readonly running: Set<ClusterName>;
  /** Tells the coordination an ownership value took effect (ownedFleet's `applied`). */
  readonly applied: (o: Ownership) => void;
  /** The write gate: lease valid and cluster run here. */
  readonly fence: WriteFence;
  /** The replica's state: the latest at once, then each change. */
  readonly states: Observable<ReplicaState>;
  /** Gives the lease up (empties its holder, leader and member alike); bounded, never rejects. */
  release(): Promise<void>;
}

/** Clocks, timers and Lease calls, injectable for tests. @example `{ scheduler: asyncScheduler, clock: () => performance.now() }` */
export interface CoordinationParts {
  /** Timers; default asyncScheduler. */
  readonly scheduler?: SchedulerLike;
  /** Monotonic milliseconds; default performance.now. */
  readonly clock?: () => number;
  /** This replica's Lease calls; default `leaseApi(home.client)`. */
  readonly leaseApi?: LeaseApi;
  /** Sharding's calls on its peers' Leases; default `peerLeaseApi(home.client, leases)`. */
  readonly peerApi?: PeerLeaseApi;
  /** Told how long each successful write of this replica's Lease took, from sending to reading its answer (ms). */
  readonly onRenewed?: (sentToReadMs: number) => void;
}

// The longest a hand-over waits for writes still on the wire to a cluster given away: past the
// client's own request timeout (60 s) they have failed anyway.
const settleMaxMs = 65_000;

/**
 * Builds the coordination of one replica.
 *
 * @example
 * ```ts
 * const co = coordination({ type: 'leader-election', home: hub, namespace: 'ops' }, 'web', {});
 * co.states.subscribe((s: ReplicaState) => console.log(s.type));
 * ```
 * @param replicas - the user's option.
 * @param controller - the controller's name (default Lease name or prefix).
 * @param parts - scheduler and clock.
 * @returns the coordination (nothing runs until `ownership` is subscribed).
 * @throws ConfigError when the timing is invalid.
 */
export function coordination(replicas: Replicas, controller: string, parts: CoordinationParts = {}): Coordination {
  const timing = leaseTiming(replicas.timing);
  const identity = replicas.identity ?? replicaIdentity();
  const name = replicas.name ?? controller;
  const clock = parts.clock ?? (() => performance.now());
  const running = new Set<ClusterName>();
  const states = new BehaviorSubject<ReplicaState>({ type: 'standby', identity });
  const scheduler = parts.scheduler === undefined ? {} : { scheduler: parts.scheduler };
  const where = parts.leaseApi === undefined ? { client: replicas.home.client } : { api: parts.leaseApi };
  const common = { ...where, namespace: replicas.namespace, identity, timing, clock, ...scheduler, ...(parts.onRenewed === undefined ? {} : { onRenewed: parts.onRenewed }) };
  let keeper: LeaseKeeper | undefined;
  const fence = writeFence({ leaseValid: () => keeper?.valid() ?? false, runs: (c) => running.has(c), identity });
  let members: readonly string[] = [];
  let problems: readonly string[] = [];
  const appliedOwnership = new Subject<Ownership>();
  let ownership: Observable<Ownership>;

  if (replicas.type === 'leader-election') {
    const k = leaseKeeper({ ...common, name, mode: 'leader' });
    keeper = k;
    ownership = k.states.pipe(
      tap((s) => {
        states.next(leaderState(identity, s));
      }),
      map((s): Ownership => (s.type === 'held' ? { type: 'all' } : { type: 'none', reason: s.type === 'lost' ? `lease lost: ${s.reason}` : 'standby' })),
      distinctUntilChanged((a, b) => a.type === b.type),
    );
  } else {
    const weight = replicas.weight ?? 1;
    const k = leaseKeeper({
      ...common,
      name: memberLeaseName(name, identity),
      mode: 'member',
      labels: { [replicasLabel]: memberLabelValue(name) },
      annotations: { [weightAnnotation]: String(weight) },
    });
    keeper = k;
    const peers = observePeers({ api: parts.peerApi ?? peerLeaseApi(replicas.home.client, leases), namespace: replicas.namespace, prefix: name, timing, self: identity, clock, ...scheduler });
    let lastAck: string | undefined;
    // Acknowledge a view only once the clusters given up under it have no write on the wire.
    const acks = appliedOwnership.pipe(
      switchMap((o) => fence.settled(settleMaxMs, parts.scheduler).pipe(map(() => o))),
      tap((o) => {
        if (o.type !== 'shard' || o.view === lastAck) return;
        lastAck = o.view;
        k.annotate({ [acknowledgedViewAnnotation]: o.view });
      }),
    );
    const shares = combineLatest([k.states, peers]).pipe(
      map(([s, p]) => {
        const share = shardOwnership(identity, weight, s, p);
        members = share.members;
        const seen = p.problems.map((x) => (x.type === 'gc-failed' ? `deleting the expired Lease ${x.lease}: ${x.error.message}` : `listing the membership Leases: ${x.error.message}`));
        if (seen.join('\n') !== problems.join('\n')) {
          problems = seen;
          const cur = states.value;
          if (cur.type === 'sharing') states.next(withProblems({ ...cur, members }, problems));
        }
        if (share.ownership.type === 'none') states.next(s.type === 'lost' ? { type: 'fenced', identity, reason: s.reason } : { type: 'standby', identity });
        return share.ownership;
      }),
      distinctUntilChanged((a, b) => a.type === b.type && (a.type !== 'shard' || b.type !== 'shard' || (a.view === b.view && a.confirmed === b.confirmed))),
    );
    ownership = new Observable<Ownership>((subscriber) => {
      const a = acks.subscribe();
      const o = shares.subscribe(subscriber);
      return () => {
        o.unsubscribe();
        a.unsubscribe();
      };
    });
  }

  const applied = (o: Ownership): void => {
    if (replicas.type !== 'sharding') return;
    if (o.type === 'shard') states.next(withProblems({ type: 'sharing', identity, view: o.view, members, owned: running.size, confirmed: o.confirmed }, problems));
    appliedOwnership.next(o);
  };
  return {
    identity,
    timing,
    ownership,
    running,
    applied,
    fence,
    // Several inputs build a state (the Lease, the peers, each ownership applied): only a different one is news.
    states: states.pipe(distinctUntilChanged((a, b) => sameJsonContent(a, b))),
    release: () => keeper.release(),
  };
}

function withProblems(s: Extract<ReplicaState, { type: 'sharing' }>, problems: readonly string[]): ReplicaState {
  const { problems: _old, ...rest } = s;
  return problems.length === 0 ? rest : { ...rest, problems };
}

function leaderState(identity: string, s: LeaseState): ReplicaState {
  switch (s.type) {
    case 'held':
      return { type: 'leading', identity };
    case 'lost':
      return { type: 'fenced', identity, reason: s.reason };
    case 'acquiring':
      return s.holder === undefined ? { type: 'standby', identity } : { type: 'standby', identity, holder: s.holder };
  }
}

function shardOwnership(identity: string, weight: number, s: LeaseState, p: PeerSet): { readonly ownership: Ownership; readonly members: readonly string[] } {
  if (s.type !== 'held') return { ownership: { type: 'none', reason: s.type === 'lost' ? `lease lost: ${s.reason}` : 'joining' }, members: [] };
  const members = p.members.map((m) => ({ identity: m.identity, weight: m.weight }));
  if (!members.some((m) => m.identity === identity)) members.push({ identity, weight });
  const view = shardView(members);
  const self = p.members.find((m) => m.identity === identity);
  const confirmed = viewConfirmed(view, { identity, publishedAck: self?.acknowledgedView }, p.members);
  return { ownership: { type: 'shard', view: view.id, confirmed, owns: (c) => view.owner(c) === identity }, members: view.members.map((m) => m.identity) };
}
