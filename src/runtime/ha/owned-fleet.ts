// Leader election and sharding as a filter on the fleet: the provider's events pass through this
// operator, which engages downstream only the clusters this replica owns and disengages the ones
// it gives up, so every provider (kcp's included) is sharded the same way and nothing downstream
// knows about replicas. A cluster given up is disengaged before `applied` is told, so by then its
// reconciles are aborted and its writes fenced.
import type { OperatorFunction, Observable } from 'rxjs';
import { Observable as RxObservable } from 'rxjs';
import type { ClusterName } from '../../core/cluster.js';
import type { Cluster, FleetEvent } from '../../streams/cluster.js';
import { disengaged, engaged } from '../../streams/cluster.js';

/**
 * Which clusters this replica may run. `all` under leader election while leading; `none` on a
 * standby or a replica whose lease is not valid; `shard` under sharding, where a view that not
 * every member has acknowledged yet (`confirmed: false`) only lets clusters go, never start.
 *
 * @example
 * ```ts
 * const o: Ownership = { type: 'shard', view: '3f2a9c0d1e2b4a5c', confirmed: true, owns: (c: ClusterName) => owner(c) === me };
 * ```
 */
export type Ownership =
  | {
      /** This replica runs no cluster. */
      readonly type: 'none';
      /** Why, for the disengage reason: `standby`, `lease not renewed`, `stopping`. */
      readonly reason: string;
    }
  | {
      /** This replica runs every cluster of the fleet (it leads). */
      readonly type: 'all';
    }
  | {
      /** This replica runs its share of the fleet. */
      readonly type: 'shard';
      /** The membership view the share is computed from. */
      readonly view: string;
      /** Whether every live member acknowledged `view`: only then may new clusters start. */
      readonly confirmed: boolean;
      /** Whether this replica owns `cluster` under `view`. */
      readonly owns: (cluster: ClusterName) => boolean;
    };

/** How many clusters one ownership change started here and gave up. @example `{ taken: 3, given: 0 }` */
export interface OwnershipMoves {
  /** Clusters this replica started. */
  readonly taken: number;
  /** Clusters this replica stopped. */
  readonly given: number;
}

/**
 * Filters a provider's events down to the clusters `ownership` gives this replica.
 *
 * @example
 * ```ts
 * const running = new Set<ClusterName>();
 * const fleet = createFleet(provider.pipe(ownedFleet(ownership, running, (o: Ownership) => acknowledge(o))));
 * ```
 * @param ownership - the replica's ownership as it changes (the latest counts; starts with none).
 * @param running - filled with the clusters engaged downstream, before each engaged/disengaged is emitted; the write fence reads it.
 * @param applied - called after each ownership value took effect (its given-up clusters disengaged), with how many clusters moved.
 * @param present - filled with every cluster the provider has engaged, run here or not (the sinks' refusals and the warm caches read it).
 * @returns the operator.
 */
export function ownedFleet(ownership: Observable<Ownership>, running: Set<ClusterName>, applied: (o: Ownership, moved: OwnershipMoves) => void = () => undefined, present = new Map<ClusterName, Cluster>()): OperatorFunction<FleetEvent, FleetEvent> {
  return (source) =>
    new RxObservable<FleetEvent>((subscriber) => {
      let current: Ownership = { type: 'none', reason: 'starting' };
      const may = (name: ClusterName): boolean => {
        switch (current.type) {
          case 'none':
            return false;
          case 'all':
            return true;
          case 'shard':
            return current.owns(name) && (current.confirmed || running.has(name));
        }
      };
      const reasonToLeave = (): string => (current.type === 'none' ? current.reason : 'owned by another replica now');
      const settle = (): OwnershipMoves => {
        let given = 0;
        let taken = 0;
        for (const name of [...running]) {
          if (!present.has(name) || !may(name)) {
            running.delete(name);
            given += 1;
            subscriber.next(disengaged(name, reasonToLeave()));
          }
        }
        for (const [name, cluster] of present) {
          if (!running.has(name) && may(name)) {
            running.add(name);
            taken += 1;
            subscriber.next(engaged(cluster));
          }
        }
        return { taken, given };
      };
      const own = ownership.subscribe({
        next: (o) => {
          current = o;
          applied(o, settle());
        },
        error: (err: unknown) => {
          subscriber.error(err);
        },
      });
      const events = source.subscribe({
        next: (e) => {
          switch (e.type) {
            case 'report':
              subscriber.next(e);
              return;
            case 'engaged':
              // A re-engagement (new credentials) replaces the cluster; the provider disengaged it first.
              present.set(e.cluster.name, e.cluster);
              if (may(e.cluster.name) && !running.has(e.cluster.name)) {
                running.add(e.cluster.name);
                subscriber.next(e);
              }
              return;
            case 'disengaged':
              present.delete(e.cluster);
              if (running.delete(e.cluster)) subscriber.next(e);
              return;
          }
        },
        error: (err: unknown) => {
          subscriber.error(err);
        },
        complete: () => {
          subscriber.complete();
        },
      });
      return () => {
        own.unsubscribe();
        events.unsubscribe();
        running.clear();
        present.clear();
      };
    });
}
