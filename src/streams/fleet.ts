// The fleet: the set of engaged clusters and their lifetimes, kept from a provider's events. Every
// per-cluster stream is cut with its cluster's lifetime, which is how a disengaged cluster's
// sockets, timers and cache disappear at once.
import type { SchedulerLike } from 'rxjs';
import { asyncScheduler, concat, defer, from, NEVER, Observable, ReplaySubject, share, Subject } from 'rxjs';
import type { ClusterName } from '../core/cluster.js';
import type { Cluster, FleetView, Provider } from './cluster.js';
import type { ProviderReport } from './provider-report.js';
import type { Slices } from './slices.js';
import { slices } from './slices.js';

/**
 * A cluster while it is engaged. `lifetime` emits once (then completes) when the cluster is
 * disengaged, replaced by a new engagement of the same name, or the fleet stops; subscribing after
 * that emits at once.
 *
 * @example
 * ```ts
 * fleet.engagements.pipe(mergeMap(({ cluster, lifetime }) => watchEvents(cluster, configMaps).pipe(takeUntil(lifetime))));
 * ```
 */
export interface EngagedCluster {
  /** The engaged cluster: its name, client, labels and identity. */
  readonly cluster: Cluster;
  /** Emits once, then completes, when this engagement ends; at once if it already has. */
  readonly lifetime: Observable<void>;
}

/**
 * The engaged clusters of a provider, as a stream and as a {@link FleetView}.
 *
 * @example
 * ```ts
 * const fleet = createFleet(staticProvider([east, west]));
 * fleet.engagements.subscribe(({ cluster }) => console.log('engaged', cluster.name));
 * ```
 */
export interface Fleet extends FleetView {
  /**
   * The clusters engaged now, then each new engagement. The provider runs while this has
   * subscribers (one subscription whatever their number); when the last leaves, every cluster is
   * disengaged (lifetimes fire).
   */
  readonly engagements: Observable<EngagedCluster>;
  /**
   * The provider's reports (skipped candidates, failing sources, lifecycle), as they come while
   * `engagements` runs the provider. Hot: observing it does not start the provider.
   */
  readonly reports: Observable<ProviderReport>;
}

interface Entry {
  readonly cluster: Cluster;
  readonly end: ReplaySubject<void>;
  /** Handed to the subscribers (a late subscriber's replay holds only these; the others are on their way). */
  delivered: boolean;
}

/**
 * Options of {@link createFleet}.
 *
 * @example
 * ```ts
 * const opts: CreateFleetOptions = { engagementsPerTurn: 100 };
 * ```
 */
export interface CreateFleetOptions {
  /**
   * At most this many engagements are handed to the subscribers per turn of the event loop; a
   * larger burst (a provider engaging thousands of clusters at once) goes out in slices, each in
   * its own task, so that probes, metrics and timers run in between. `fleet.get` knows every
   * engaged cluster at once. Default 50.
   */
  readonly engagementsPerTurn?: number;
  /** Schedules the slices. Default `asyncScheduler`. */
  readonly scheduler?: SchedulerLike;
}

/**
 * Keeps a provider's clusters. A provider completing leaves its clusters engaged (a static list
 * completes at once); an engagement of a name already engaged with another {@link Cluster}
 * (credentials changed) ends the old one first, so its watches stop before the new ones start.
 * Bursts of engagements reach the subscribers `engagementsPerTurn` per turn; a cluster disengaged
 * before its turn never reaches them.
 *
 * @example
 * ```ts
 * const fleet = createFleet(provider);
 * const sub = fleetWatch(fleet, configMaps).subscribe(console.log);
 * fleet.get(clusterName('east'))?.client; // while subscribed
 * ```
 * @param provider - the source of fleet events.
 * @param options - how many engagements per turn, and the scheduler of the slices.
 * @returns the fleet.
 */
export function createFleet(provider: Provider, options: CreateFleetOptions = {}): Fleet {
  const current = new Map<ClusterName, Entry>();
  // The clusters as a list, rebuilt on the first read after a change: callers that read it per
  // engagement (metrics, sinks) cost O(1) while a burst is handed out, not O(clusters) each.
  let list: readonly Cluster[] | undefined;
  const toEngaged = (e: Entry): EngagedCluster => ({ cluster: e.cluster, lifetime: e.end.asObservable() });
  let queue: Slices<Entry> | undefined;
  const end = (name: ClusterName): void => {
    const e = current.get(name);
    if (e === undefined) return;
    current.delete(name);
    list = undefined;
    queue?.drop(e);
    e.end.next();
    e.end.complete();
  };

  const reports = new Subject<ProviderReport>();
  const live = new Observable<EngagedCluster>((subscriber) => {
    const perTurn = options.engagementsPerTurn ?? 50;
    const q = slices<Entry>(perTurn, options.scheduler ?? asyncScheduler, (e) => {
      e.delivered = true;
      subscriber.next(toEngaged(e));
    });
    queue = q;
    const sub = concat(provider, NEVER).subscribe({
      next: (ev) => {
        if (ev.type === 'report') {
          reports.next(ev.report);
          return;
        }
        if (ev.type === 'disengaged') {
          end(ev.cluster);
          return;
        }
        const before = current.get(ev.cluster.name);
        if (before?.cluster === ev.cluster) return; // the same engagement twice
        end(ev.cluster.name);
        const entry: Entry = { cluster: ev.cluster, end: new ReplaySubject<void>(1), delivered: false };
        current.set(ev.cluster.name, entry);
        list = undefined;
        q.push(entry);
      },
      error: (err: unknown) => {
        q.flush();
        subscriber.error(err);
      },
    });
    return () => {
      sub.unsubscribe();
      q.close();
      queue = undefined;
      for (const name of [...current.keys()]) end(name);
    };
  }).pipe(share());

  return {
    // Known clusters are replayed synchronously before joining the live stream: nothing falls between.
    engagements: defer(() => concat(from([...current.values()].filter((e) => e.delivered).map(toEngaged)), live)),
    reports: reports.asObservable(),
    get: (name) => current.get(name)?.cluster,
    clusters: () => (list ??= Object.freeze([...current.values()].map((e) => e.cluster))),
  };
}
