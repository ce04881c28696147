// What `run` adds for a controller with several replicas: a start-up check of the Lease namespace
// and rights, the provider filtered to this replica's clusters, the write fence, one log line per
// replica state change, the replica's gauges and counters, and its state in /readyz.
import type { Logger } from 'pino';
import { Counter, Gauge, Histogram } from 'prom-client';
import type { Registry } from 'prom-client';
import type { SchedulerLike } from 'rxjs';
import { asyncScheduler, map, Observable, Subject, tap } from 'rxjs';
import type { ClusterName } from '../../core/cluster.js';
import type { Cluster, FleetEvent, Provider } from '../../streams/cluster.js';
import { engaged } from '../../streams/cluster.js';
import type { HealthTracker } from '../health.js';
import { coordination } from './coordination.js';
import type { WriteFence } from './fence.js';
import { checkLeaseAccess } from './lease-access.js';
import type { OwnedAccess } from './owned-access.js';
import { ownedAccess } from './owned-access.js';
import type { Ownership } from './owned-fleet.js';
import { ownedFleet } from './owned-fleet.js';
import type { FleetScope } from '../../streams/fleet-scope.js';
import type { WarmCaches } from './warm-caches.js';
import { warmCaches } from './warm-caches.js';
import type { Informers } from '../../streams/informers.js';
import type { WatchSpec } from '../cluster-keeper.js';
import type { Replicas, ReplicaState, ReplicaView } from './replicas.js';
import { memberLeaseName } from './shard-view.js';

/**
 * The replica side of a run.
 *
 * @example
 * ```ts
 * const r = await replicaRuntime(options.replicas, c.name, { log, health, registry, scheduler });
 * const fleet = createFleet(r.provider(c.provider));
 * ```
 */
export interface ReplicaRuntime {
  /** The provider's events narrowed to the clusters this replica runs; with `warm`, the others' watches kept open (replicas.warmCaches). */
  provider(p: Provider, warm?: WarmParts): Provider;
  /**
   * Sharding without warm caches: the clusters this replica owns under the ownership it applied
   * last, for a provider that can be narrowed before `provider` (`narrowProvider`), so the others
   * cost nothing here. Its `found` feeds the run's discovery count.
   */
  readonly scope: FleetScope | undefined;
  /** The gate every engaged cluster's client asks. */
  readonly fence: WriteFence;
  /** The access paths a reconcile has (ctx.fleet, sinks, informers), narrowed to the clusters this replica owns. */
  readonly access: OwnedAccess;
  /** Identity and states, for the run handle. */
  readonly view: ReplicaView;
  /** Gives the lease up at the end of the run (bounded, never rejects). */
  release(): Promise<void>;
}

/** Where warm watches are kept: the run's informers and every controller's declared watches. @example `{ informers, specs }` */
export interface WarmParts {
  /** The run's informers. */
  readonly informers: Informers;
  /** The declared watches (filled as the controllers are wired, read as clusters come). */
  readonly specs: readonly WatchSpec[];
}

/** What the replica side reports to. @example `{ log, health, registry: metrics.registry, scheduler }` */
export interface ReplicaRuntimeParts {
  /** The controller's logger. */
  readonly logger: Logger;
  /** The run's health, for `/readyz`. */
  readonly health: HealthTracker;
  /** The controller's metrics registry. */
  readonly registry: Registry;
  /** Timers; with a virtual scheduler its clock is used too. */
  readonly scheduler: SchedulerLike;
}

/**
 * Checks the Lease namespace and rights on the home cluster, then builds the replica side.
 *
 * @example
 * ```ts
 * const r = await replicaRuntime({ type: 'leader-election', home: hub, namespace: 'ops' }, 'web', parts);
 * ```
 * @param replicas - the user's option.
 * @param controller - the controller's name.
 * @param parts - logger, health, metrics registry, scheduler.
 * @returns the replica side.
 * @throws ConfigError (as a rejection) when the namespace is missing, Leases are forbidden there, the home cluster cannot be reached, or the timing is invalid.
 */
export async function replicaRuntime(replicas: Replicas, controller: string, parts: ReplicaRuntimeParts): Promise<ReplicaRuntime> {
  const virtual = parts.scheduler !== asyncScheduler;
  let renewed = (_ms: number): void => undefined;
  const co = coordination(replicas, controller, { scheduler: parts.scheduler, ...(virtual ? { clock: () => parts.scheduler.now() } : {}), onRenewed: (ms) => {
    renewed(ms);
  } });
  const leaseName = replicas.type === 'leader-election' ? (replicas.name ?? controller) : memberLeaseName(replicas.name ?? controller, co.identity);
  // Sharding also lists its peers' Leases and deletes long-expired ones.
  await checkLeaseAccess(replicas.home, replicas.namespace, leaseName, replicas.type === 'sharding' ? { verbs: ['get', 'list', 'create', 'update', 'delete'] } : {});
  const metrics = replicaMetrics(parts.registry, () => co.running.size);
  renewed = (ms) => {
    metrics.renewed(ms);
  };
  const warmOption = replicas.warmCaches ?? false;
  const present = new Map<ClusterName, Cluster>();
  const access = ownedAccess(co.fence, present);
  // The ownership last applied (its given-up clusters already disengaged): what the provider is asked for.
  let applied: Ownership = { type: 'none', reason: 'starting' };
  const scopeChanges = new Subject<void>();
  const scope: FleetScope | undefined =
    replicas.type === 'sharding' && warmOption === false
      ? {
          wants: (c) => applied.type === 'all' || (applied.type === 'shard' && applied.owns(c)),
          changes: scopeChanges,
          found: (n) => {
            parts.health.discovered(n);
          },
        }
      : undefined;
  let previous: ReplicaState | undefined;
  const states = co.states.pipe(
    tap((s) => {
      parts.health.replica(s);
      metrics.observe(s);
      if (previous === undefined || transition(previous, s)) {
        const trouble = s.type === 'fenced' || (s.type === 'sharing' && s.problems !== undefined);
        parts.logger[trouble ? 'warn' : 'info']({ replica: s }, `replica ${s.type}`);
      }
      previous = s;
    }),
  );
  return {
    provider: (p, parts) =>
      new Observable<FleetEvent>((subscriber) => {
        const watching = states.subscribe();
        const warm: WarmCaches | undefined = parts === undefined || warmOption === false ? undefined : warmCaches(parts.informers, parts.specs, warmOption, () => {
                metrics.warm(warm?.size() ?? 0, warm?.synced() ?? 0);
              });
        const warmed = (c: Cluster): Cluster => {
          if (warm === undefined) return c;
          const cache = warm.cacheOf(c);
          const { cache: _own, ...rest } = c;
          return cache === undefined ? rest : { ...rest, cache };
        };
        const events = p
          .pipe(
            tap((e) => {
              if (e.type === 'engaged') warm?.keep(e.cluster);
              else if (e.type === 'disengaged') warm?.drop(e.cluster);
            }),
            ownedFleet(
              co.ownership,
              co.running,
              (o, moves) => {
                co.applied(o);
                metrics.moved(moves.taken, moves.given);
                // A replica fenced or stopping keeps what it held (a bounded margin): most often its lease comes back with the same share.
                if (o.type !== 'none') {
                  applied = o;
                  scopeChanges.next();
                }
              },
              present,
            ),
            // Every access of an engaged cluster asks the gate: the sinks' writes, a reconciler's own, its reads and views.
            map((e) => (e.type === 'engaged' ? engaged(access.cluster(warmed(e.cluster))) : e)),
          )
          .subscribe({
            next: (e) => {
              subscriber.next(e);
              // Once the fleet has ended the engagement (its own watches stopped), what a reconcile still holds of it ends too.
              if (e.type === 'disengaged') co.fence.revoke(e.cluster);
            },
            error: (err: unknown) => {
              subscriber.error(err);
            },
            complete: () => {
              subscriber.complete();
            },
          });
        return () => {
          events.unsubscribe();
          warm?.close();
          watching.unsubscribe();
        };
      }),
    scope,
    fence: co.fence,
    access,
    view: { identity: co.identity, states: co.states },
    release: () => co.release(),
  };
}

// A log line per real change: the kind of state, the leader, the view, its confirmation or its problems; not every owned count.
function transition(a: ReplicaState, b: ReplicaState): boolean {
  if (a.type !== b.type) return true;
  if (a.type === 'standby' && b.type === 'standby') return a.holder !== b.holder;
  if (a.type === 'sharing' && b.type === 'sharing') return a.view !== b.view || a.confirmed !== b.confirmed || (a.problems ?? []).join('\n') !== (b.problems ?? []).join('\n');
  return false;
}

interface ReplicaMetrics {
  observe(s: ReplicaState): void;
  moved(taken: number, given: number): void;
  warm(kept: number, synced: number): void;
  renewed(ms: number): void;
}

function replicaMetrics(registry: Registry, running: () => number): ReplicaMetrics {
  const registers = [registry];
  const leading = new Gauge({ name: 'rxfleet_replica_leading', help: '1 while this replica leads (leader election) or is a confirmed member (sharding), else 0.', registers });
  const owned = new Gauge({ name: 'rxfleet_replica_owned_clusters', help: 'Clusters this replica runs.', registers });
  const members = new Gauge({ name: 'rxfleet_replica_members', help: 'Live members of the replica set, as this replica sees them (sharding).', registers });
  const transitions = new Counter({ name: 'rxfleet_replica_transitions_total', help: 'Replica state changes by new state (standby, leading, sharing, fenced).', labelNames: ['state'], registers });
  const handovers = new Counter({ name: 'rxfleet_replica_handovers_total', help: 'Clusters this replica took over (in) or gave up (out) on ownership changes.', labelNames: ['direction'], registers });
  const warm = new Gauge({ name: 'rxfleet_replica_warm_clusters', help: 'Clusters whose watches this replica keeps open to take them over (replicas.warmCaches), run here or not: kept, and synced (every warm watch listed).', labelNames: ['state'], registers });
  const renews = new Histogram({
    name: 'rxfleet_replica_lease_renew_seconds',
    help: "Time from sending a write of this replica's Lease (each renew) to reading its successful answer, event-loop lag included; near the renew deadline, the replica is about to be fenced.",
    buckets: [0.005, 0.025, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers,
  });
  leading.set(0);
  owned.set(0);
  warm.set({ state: 'kept' }, 0);
  warm.set({ state: 'synced' }, 0);
  let last: string | undefined;
  return {
    observe(s) {
      leading.set(s.type === 'leading' || (s.type === 'sharing' && s.confirmed) ? 1 : 0);
      owned.set(running());
      if (s.type === 'sharing') members.set(s.members.length);
      if (s.type !== last) transitions.inc({ state: s.type });
      last = s.type;
    },
    moved(taken, given) {
      owned.set(running());
      if (taken > 0) handovers.inc({ direction: 'in' }, taken);
      if (given > 0) handovers.inc({ direction: 'out' }, given);
    },
    renewed(ms) {
      renews.observe(ms / 1000);
    },
    warm(kept, synced) {
      warm.set({ state: 'kept' }, kept);
      warm.set({ state: 'synced' }, synced);
    },
  };
}
