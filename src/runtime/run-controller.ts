// One controller of a run: its watches (declared on the run's shared informers), its sinks (its own
// field manager, counted in its own metrics), its work queue and its reconciler. Several of these
// share one fleet, one set of informers, one health and one lifecycle (run.ts).
import type { Logger } from 'pino';
import type { Observable, SchedulerLike } from 'rxjs';
import { filter, identity, merge, takeUntil, tap } from 'rxjs';
import type { ClusterName } from '../core/cluster.js';
import type { ObjectKey } from '../core/key.js';
import type { KubeObject } from '../core/object.js';
import { reconcile } from '../operators/reconcile.js';
import type { Outcome } from '../operators/types.js';
import { sinkContext } from '../sinks/context.js';
import type { SinkClusters, SinkOptions } from '../sinks/context.js';
import type { Fleet } from '../streams/fleet.js';
import { fleetWatch } from '../streams/fleet-watch.js';
import type { Informers } from '../streams/informers.js';
import type { OwnedAccess } from './ha/owned-access.js';
import type { WatchSpec } from './cluster-keeper.js';
import { selects } from './cluster-keeper.js';
import type { Controller, ControllerSelection, FleetWatcher } from './controller.js';
import { deniedKeys } from './denied-keys.js';
import type { HealthTracker } from './health.js';
import { instrumentedFleet } from './instrument.js';
import { unsentResult } from './unsent-result.js';
import { watchedCache } from './watched-cache.js';
import type { ControllerMetrics } from './metrics.js';
import { controllerReconciler } from './run-parts.js';

/**
 * What one controller of a run shares with the others.
 *
 * @example
 * ```ts
 * const shared: SharedRunParts = { fleet, informers, specs, stopRequested, scheduler };
 * ```
 */
export interface SharedRunParts {
  readonly fleet: Fleet;
  readonly informers: Informers;
  /** Every controller's declared watches, for the cluster keeper. */
  readonly specs: WatchSpec[];
  readonly stopRequested: Observable<void>;
  readonly scheduler: SchedulerLike;
  /** The per-cluster client-side rate limit's delay, when one is set. */
  readonly clusterGate?: (cluster: ClusterName) => number;
  /** Where the sinks write, when not through the fleet's own clients (the testing harness: clients on its scheduler). */
  readonly sinkClusters?: SinkClusters;
  /** A replica's access paths (ctx.fleet, sinks, the inputs' informers), narrowed to the clusters it owns. */
  readonly access?: OwnedAccess;
}

/**
 * The part of {@link ControllerMetrics} one controller's pipeline feeds.
 *
 * @example
 * ```ts
 * const none: PipelineMetrics = { outcome: () => undefined, depth: () => undefined, write: () => undefined, denied: () => undefined, queue: {} };
 * ```
 */
export type PipelineMetrics = Pick<ControllerMetrics, 'outcome' | 'depth' | 'queue' | 'write' | 'denied'>;

/**
 * The parts of one controller's pipeline.
 *
 * @example
 * ```ts
 * const own: ControllerParts = { log, metrics, sinkOptions: {}, onDepth: (running: number) => undefined };
 * ```
 */
export interface ControllerParts {
  readonly logger: Logger;
  /** What the pipeline feeds: the run's metrics (the testing harness passes its own hooks). */
  readonly metrics: PipelineMetrics;
  readonly sinkOptions: Omit<SinkOptions, 'rateLimit'>;
  /** The number of this controller's running reconciles, on every change. */
  readonly onDepth: (running: number) => void;
  /** Told while the server refuses (401/403) this controller's requests in a cluster: `run`'s health. */
  readonly health?: Pick<HealthTracker, 'denied'>;
}

/**
 * Wires one controller: its primary watch and extra inputs into its work queue, until a stop is
 * requested; the queue then drains and the returned stream completes.
 *
 * @example
 * ```ts
 * const outcomes = controllerPipeline(c, shared, own);
 * outcomes.subscribe((o: Outcome) => { console.log(o.result); });
 * ```
 * @param c - the controller.
 * @param shared - what the run's controllers share.
 * @param own - this controller's logger, metrics, sink options and where refused keys are reported.
 * @returns its outcomes (counted in its metrics); completes once drained after a stop.
 */
export function controllerPipeline<T extends KubeObject>(c: Controller<T>, shared: SharedRunParts, own: ControllerParts): Observable<Outcome> {
  const { fleet, informers, specs, scheduler } = shared;
  // This controller's own watches: the cache its applies may be proven needless from.
  const mine: WatchSpec[] = [];
  const watchSelected: FleetWatcher = (resource, opts = {}) => {
    const spec: WatchSpec = { resource, options: opts as ControllerSelection<KubeObject> };
    specs.push(spec);
    mine.push(spec);
    const { clusterSelector: _c, ...selection } = opts;
    const narrowed = spec.options.clusterSelector === undefined ? fleet : { ...fleet, engagements: fleet.engagements.pipe(filter((e) => selects(spec, e.cluster))) };
    return fleetWatch(narrowed, resource, { ...selection, informers });
  };
  const sinks = sinkContext({
    cache: watchedCache(fleet, informers, mine),
    ...own.sinkOptions,
    clusters: instrumentedFleet(shared.sinkClusters ?? shared.access?.sinkClusters(fleet) ?? fleet, (cl, verb, result) => { own.metrics.write(cl, verb, result); }),
    fieldManager: c.fieldManager,
    scheduler,
    onUnsent: (cl, verb) => { own.metrics.write(cl, verb, unsentResult); },
  });

  const selection = c.select ?? {};
  const primarySpec: WatchSpec = { resource: c.resource, options: selection as ControllerSelection<KubeObject> };
  // Keyed events of a listing arrive once the store holds it (toKeyedEvents), so lookup reads the store.
  const primary = watchSelected(c.resource, selection).pipe(c.filter ?? identity);
  const extra = c.inputs?.({ fleetWatch: watchSelected, fleet, informers: shared.access?.informers(informers) ?? informers, sinks, logger: own.logger }) ?? [];
  const lookup = (key: ObjectKey): T | undefined => {
    const cluster = fleet.get(key.cluster);
    if (cluster === undefined || !selects(primarySpec, cluster)) return undefined;
    return informers.informer(cluster, c.resource, selection).store.get(key);
  };
  // Keys the server refuses wait a slow backoff: their cluster is unhealthy and counted meanwhile.
  const denied = deniedKeys((cluster, keys, reason) => {
    own.metrics.denied(cluster, keys);
    own.health?.denied(cluster, c.name, reason === undefined ? undefined : `controller "${c.name}": ${reason}`);
  });
  return merge(primary, ...extra).pipe(
    takeUntil(shared.stopRequested),
    tap((input) => {
      if (input.type === 'clusterRemoved') denied.clusterRemoved(input.cluster);
    }),
    reconcile<T>(controllerReconciler(c, shared.access?.fleet(fleet) ?? fleet, sinks), {
      ...c.queue,
      lookup,
      fleet,
      // A throttled cluster's keys wait in its own lane instead of holding workers.
      ...(shared.clusterGate === undefined ? {} : { clusterGate: shared.clusterGate }),
      logger: own.logger,
      scheduler,
      observer: own.metrics.queue,
      onDepth: (d) => {
        own.onDepth(d.running);
        own.metrics.depth(d);
      },
    }),
    tap((o) => {
      own.metrics.outcome(o);
      denied.outcome(o);
    }),
  );
}
