// What a user says to run a controller as several replicas, and what a replica reports about
// itself: leader election (one replica runs everything) or sharding (each runs its share of the
// clusters), both on coordination.k8s.io/v1 Leases in a namespace of a home cluster.
import type { Observable } from 'rxjs';
import { hostname } from 'node:os';
import type { Cluster } from '../../streams/cluster.js';
import type { LeaseTiming } from './lease-timing.js';
import type { WarmCachesOption } from './warm-caches.js';

// From getBuiltinModule, not `import`: see client/h2-pool.ts.
const { randomBytes } = process.getBuiltinModule('node:crypto');

/**
 * Where the Leases live and how this replica names itself.
 *
 * @example
 * ```ts
 * const lease: ReplicaLeaseOptions = { home: hub, namespace: 'rxfleet-system', timing: { leaseDurationMs: 30_000 } };
 * ```
 */
export interface ReplicaLeaseOptions {
  /** The cluster holding the Leases: the provider's hub where it has one, else any cluster every replica reaches. */
  readonly home: Cluster;
  /** The namespace of the Leases; it must exist (checked at start). */
  readonly namespace: string;
  /** The leader Lease's name, or the prefix of the membership Leases; default the controller's name. */
  readonly name?: string;
  /** This process's identity in the Leases; default `$POD_NAME` (else the host name) plus 6 random hex digits, so it is unique per process. */
  readonly identity?: string;
  /** Lease duration, renew deadline and retry period; default 15 s, 10 s, 2 s (controller-runtime's). */
  readonly timing?: Partial<LeaseTiming>;
  /**
   * Keep the watches of the clusters this replica could take over open while it does not run
   * them (a standby: every cluster; a shard member: the others' too), so a take-over replays
   * what is held instead of listing every cluster. Reads only: nothing reconciles or writes
   * before the replica owns the cluster. `{ maxClusters }` bounds how many clusters are kept
   * (the first the provider engaged); `false` keeps none. Default `false`.
   */
  readonly warmCaches?: WarmCachesOption;
}

/**
 * How replicas of one controller share the work.
 * - `leader-election`: one replica (the Lease holder) runs every cluster; the others stand by.
 * - `sharding`: each live replica runs the clusters that rendezvous hashing gives it; `weight`
 *   (default 1) scales its share.
 *
 * @example
 * ```ts
 * await main(copier, { replicas: { type: 'leader-election', home: hub, namespace: 'rxfleet-system' } });
 * await main(copier, { replicas: { type: 'sharding', home: hub, namespace: 'rxfleet-system', weight: 2 } });
 * ```
 */
export type Replicas =
  | ({
      /** One replica, the holder of the Lease, runs every cluster; the others stand by. */
      readonly type: 'leader-election';
    } & ReplicaLeaseOptions)
  | ({
      /** Each live replica runs the clusters rendezvous hashing gives it. */
      readonly type: 'sharding';
      /** This replica's share relative to the others' (a positive number, default 1). */
      readonly weight?: number;
    } & ReplicaLeaseOptions);

/**
 * What a replica is doing, as it changes (`RunHandle.replica.states`, `/readyz`, one log line per change).
 *
 * @example
 * ```ts
 * handle.replica?.states.pipe(map((s: ReplicaState) => s.type === 'leading')).subscribe((leading: boolean) => console.log({ leading }));
 * ```
 */
export type ReplicaState =
  | {
      /** Leader election: another replica leads (or none has yet); nothing runs here. */
      readonly type: 'standby';
      /** This replica's identity. */
      readonly identity: string;
      /** The current leader, when one is known. */
      readonly holder?: string;
    }
  | {
      /** Leader election: this replica leads and runs every cluster. */
      readonly type: 'leading';
      /** This replica's identity. */
      readonly identity: string;
    }
  | {
      /** Sharding: this replica is a live member and runs its share. */
      readonly type: 'sharing';
      /** This replica's identity. */
      readonly identity: string;
      /** The membership view (a hash of the live members and their weights). */
      readonly view: string;
      /** The live members' identities, sorted. */
      readonly members: readonly string[];
      /** How many clusters this replica runs. */
      readonly owned: number;
      /** Whether every live member acknowledged the view (until then, no cluster starts anywhere). */
      readonly confirmed: boolean;
      /** What keeps the view from being current: a failing LIST of the membership Leases, an expired Lease that cannot be deleted. Absent when none. */
      readonly problems?: readonly string[];
    }
  | {
      /** The lease was not renewed within the renew deadline (home cluster lost, paused process): no writes, no clusters. */
      readonly type: 'fenced';
      /** This replica's identity. */
      readonly identity: string;
      /** What went wrong, e.g. the failing renew's error. */
      readonly reason: string;
    };

/**
 * A running replica, as the run handle shows it.
 *
 * @example
 * ```ts
 * const leading = handle.replica?.states.pipe(map((s: ReplicaState) => s.type === 'leading'), distinctUntilChanged());
 * ```
 */
export interface ReplicaView {
  /** This process's identity in the Leases. */
  readonly identity: string;
  /** The replica's state: the latest at once, then each change; completes when the run ends. */
  readonly states: Observable<ReplicaState>;
}

/**
 * The default identity of this process: `$POD_NAME` (else the host name), a dash, and 6 random
 * hex digits, so that a restarted pod never reuses a predecessor's identity.
 *
 * @example
 * ```ts
 * replicaIdentity(); // 'web-7d9f-0' + '-' + 'a1b2c3'
 * ```
 * @returns the identity.
 */
export function replicaIdentity(): string {
  const base = process.env.POD_NAME ?? hostname();
  return `${base}-${randomBytes(3).toString('hex')}`;
}
