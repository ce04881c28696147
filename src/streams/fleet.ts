// The fleet: the set of engaged clusters and their lifetimes, kept from a provider's events. Every
// per-cluster stream is cut with its cluster's lifetime, which is how a disengaged cluster's
// sockets, timers and cache disappear at once.
import type { Observable } from 'rxjs';
import { concat, defer, filter, finalize, from, map, NEVER, ReplaySubject, share, Subject } from 'rxjs';
import type { ClusterName } from '../core/cluster.js';
import type { Cluster, FleetView, Provider } from './cluster.js';
import type { ProviderReport } from './provider-report.js';

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
}

/**
 * Keeps a provider's clusters. A provider completing leaves its clusters engaged (a static list
 * completes at once); an engagement of a name already engaged with another {@link Cluster}
 * (credentials changed) ends the old one first, so its watches stop before the new ones start.
 *
 * @example
 * ```ts
 * const fleet = createFleet(provider);
 * const sub = fleetWatch(fleet, configMaps).subscribe(console.log);
 * fleet.get(clusterName('east'))?.client; // while subscribed
 * ```
 * @param provider - the source of fleet events.
 * @returns the fleet.
 */
export function createFleet(provider: Provider): Fleet {
  const current = new Map<ClusterName, Entry>();
  const toEngaged = (e: Entry): EngagedCluster => ({ cluster: e.cluster, lifetime: e.end.asObservable() });
  const end = (name: ClusterName): void => {
    const e = current.get(name);
    if (e === undefined) return;
    current.delete(name);
    e.end.next();
    e.end.complete();
  };

  const reports = new Subject<ProviderReport>();
  const live = concat(provider, NEVER).pipe(
    map((ev): EngagedCluster | undefined => {
      if (ev.type === 'report') {
        reports.next(ev.report);
        return undefined;
      }
      if (ev.type === 'disengaged') {
        end(ev.name);
        return undefined;
      }
      const before = current.get(ev.cluster.name);
      if (before?.cluster === ev.cluster) return undefined; // the same engagement twice
      end(ev.cluster.name);
      const entry: Entry = { cluster: ev.cluster, end: new ReplaySubject<void>(1) };
      current.set(ev.cluster.name, entry);
      return toEngaged(entry);
    }),
    filter((e): e is EngagedCluster => e !== undefined),
    finalize(() => {
      for (const name of [...current.keys()]) end(name);
    }),
    share(),
  );

  return {
    // Known clusters are replayed synchronously before joining the live stream: nothing falls between.
    engagements: defer(() => concat(from([...current.values()].map(toEngaged)), live)),
    reports: reports.asObservable(),
    get: (name) => current.get(name)?.cluster,
    clusters: () => [...current.values()].map((e) => e.cluster),
  };
}
