// Running a controller: provider → fleet → shared informers → inputs → reconcile → sinks, with
// health, metrics, logs, and a graceful stop. The order of teardown matters: the input stops
// first (reconcile drains), the watches and the provider stay up until the drain ends (in-flight
// reconciles still read caches and write through the fleet), then everything is unsubscribed
// (lifecycle.ts). Watches come from the informers, which ask each cluster's cache first: the
// runtime knows no provider by name.
import { asyncScheduler, filter, finalize, identity, merge, Subject, takeUntil } from 'rxjs';
import type { ClusterName } from '../core/cluster.js';
import type { ObjectKey } from '../core/key.js';
import type { KubeObject } from '../core/object.js';
import { resourceId } from '../core/resource.js';
import { reconcile } from '../operators/reconcile.js';
import type { Outcome } from '../operators/types.js';
import { sinkContext } from '../sinks/context.js';
import { createFleet } from '../streams/fleet.js';
import { fleetWatch } from '../streams/fleet-watch.js';
import { createInformers } from '../streams/informers.js';
import type { WatchSpec } from './cluster-keeper.js';
import { keepClusters, selects } from './cluster-keeper.js';
import type { Controller, ControllerSelection, FleetWatcher } from './controller.js';
import { countClusters, emptyFleetFailure, firstPass, fleetSettings } from './first-pass.js';
import { followReports } from './follow-reports.js';
import { clusterRateLimits } from './cluster-rate-limit.js';
import { healthTracker } from './health-tracker.js';
import { instrumentedFleet } from './instrument.js';
import { lifecycle } from './lifecycle.js';
import { controllerLogger, defaultLogger } from './logging.js';
import { controllerReconciler, describeCause, logOutcome, probeServer } from './run-parts.js';
import type { RunHandle, RunOptions } from './run-types.js';

export type { RunHandle, RunOptions, RunResult } from './run-types.js';

/**
 * Runs a controller until it is stopped (by {@link RunHandle.stop} or a signal). On start: the
 * probe server listens, the provider is subscribed, each engaged cluster gets its watches (shared
 * informers) and a child logger, and keys flow into `reconcile` (the primary ones from the
 * cluster's cache when its provider keeps one, with `req.object` from the informer's store).
 * A cluster whose watch fails (no route, 401/403, the resource not served there) is reported
 * unhealthy with what to fix; the others keep working. Ready (`/readyz`) once the provider's first
 * discovery pass is over and at least `fleet.minClusters` clusters are discovered and synced; a
 * first pass that finds no cluster and reports problems ends the run with reason `config` (exit
 * code 2) unless `fleet.allowEmpty`. On stop: the input ends, running and ready keys finish (retries are dropped), and
 * after `shutdownDeadlineMs` whatever still runs is aborted; then the watches, the provider (which
 * disengages every cluster) and the server are released.
 *
 * @example
 * ```ts
 * const handle = await run(c, { http: { port: 8081 } });
 * await firstValueFrom(handle.health.changes.pipe(filter((r) => r.ready)));
 * const result = await handle.stop();
 * console.log(result.reason, result.code); // 'clean' 0
 * ```
 * @see main to run and exit with the result's code.
 * @param c - the controller.
 * @param options - logger, probe server, signals, shutdown deadline, scheduler.
 * @returns the handle once the server listens and the pipeline is subscribed.
 * @throws ConfigError (as a rejection) when the probe server's port cannot be bound or `fleet` options can never work.
 */
export async function run<T extends KubeObject>(c: Controller<T>, options: RunOptions = {}): Promise<RunHandle> {
  const scheduler = options.scheduler ?? asyncScheduler;
  const log = controllerLogger(options.logger ?? defaultLogger(), c.name);
  // prom-client (~7.5 MiB with its dependencies) loads when a controller runs, not when rxfleet
  // is imported: importing the package loads only what is used.
  const [{ controllerMetrics }, { registerProcessMetrics }] = await Promise.all([import('./metrics.js'), import('./process-metrics.js')]);
  const metrics = controllerMetrics(c.name, options.registry, options.metrics);
  if (options.metrics?.processMetrics !== false) registerProcessMetrics(metrics.registry);
  const fleetOptions = fleetSettings(options.fleet);
  // One client-side limiter per engaged cluster, taken by every request of its client (watches, sinks, a reconciler's own).
  // eslint-disable-next-line @typescript-eslint/no-deprecated -- read once, to fold it into the one per-cluster limiter
  const { rateLimit: sinksRateLimit, ...sinkOptions } = c.sinks ?? {};
  const limits = clusterRateLimits(options.clusterRateLimit, sinksRateLimit, { scheduler, registry: metrics.registry });
  const health = healthTracker({ minClusters: fleetOptions.minClusters, awaitFirstPass: true, scheduler });
  // Checked before the probe server listens: a missing Lease namespace or forbidden Leases fail the start.
  const replica = options.replicas === undefined ? undefined : await (await import('./ha/replica-runtime.js')).replicaRuntime(options.replicas, c.name, { log, health, registry: metrics.registry, scheduler });
  const server = await probeServer(c.name, options.http, health, metrics);
  const release = async (): Promise<void> => {
    await replica?.release();
    await server?.close();
  };
  const life = lifecycle({ log, health, scheduler, deadlineMs: options.shutdownDeadlineMs ?? 30_000, release });

  // Counted before leader election or sharding narrows the events: readiness and the empty-fleet check read what the provider found.
  const discovered = c.provider.pipe(
    countClusters((n) => {
      health.discovered(n);
    }),
  );
  const owned = replica === undefined ? discovered : replica.provider(discovered);
  const fleet = createFleet(limits === undefined ? owned : limits.provider(owned));
  const informers = createInformers({ ...c.watchConfig, scheduler });
  const specs: WatchSpec[] = [];
  const watchSelected: FleetWatcher = (resource, opts = {}) => {
    const spec: WatchSpec = { resource, options: opts as ControllerSelection<KubeObject> };
    specs.push(spec);
    const { clusterSelector: _c, ...selection } = opts;
    const narrowed = spec.options.clusterSelector === undefined ? fleet : { ...fleet, engagements: fleet.engagements.pipe(filter((e) => selects(spec, e.cluster))) };
    return fleetWatch(narrowed, resource, { ...selection, informers });
  };
  const sinks = sinkContext({ ...sinkOptions, fleet: instrumentedFleet(fleet, (cl, verb, result) => { metrics.write(cl, verb, result); }), fieldManager: c.fieldManager, scheduler });

  const selection = c.select ?? {};
  const primarySpec: WatchSpec = { resource: c.resource, options: selection as ControllerSelection<KubeObject> };
  // Keyed events of a listing arrive once the store holds it (toKeyedEvents), so lookup reads the store.
  const primary = watchSelected(c.resource, selection).pipe(c.filter ?? identity);
  const extra = c.inputs?.({ fleetWatch: watchSelected, fleet, informers, sinks, log }) ?? [];
  const lookup = (key: ObjectKey): T | undefined => {
    const cluster = fleet.get(key.cluster);
    if (cluster === undefined || !selects(primarySpec, cluster)) return undefined;
    return informers.informer(cluster, c.resource, selection).store.get(key);
  };
  const outcomes = new Subject<Outcome>();

  life.own(followReports(fleet.reports, { log, health, metrics }).subscribe());
  life.own(
    firstPass(fleet.reports, fleetOptions.firstPassTimeoutMs, scheduler).subscribe((end) => {
      if (end.type === 'timedOut') log.warn({ firstPassTimeoutMs: end.afterMs, clusters: health.report().discovery.clusters }, 'provider did not finish its first discovery pass in time; judging the fleet as it stands');
      health.firstPassDone();
      const failure = emptyFleetFailure(health.report(), end, fleetOptions.allowEmpty);
      if (failure !== undefined) life.finish('config', failure);
    }),
  );
  life.own(
    keepClusters({ fleet, informers, specs, health, metrics, log }).subscribe({
      error: (err: unknown) => {
        health.broken();
        life.finish('failed', `the provider failed: ${describeCause(err)}`);
      },
    }),
  );
  life.own(
    merge(primary, ...extra)
      .pipe(
        takeUntil(life.stopRequested),
        reconcile<T>(controllerReconciler(c, fleet, sinks), {
          ...c.queue,
          lookup,
          fleet,
          // A throttled cluster's keys wait in its own lane instead of holding workers.
          ...(limits === undefined ? {} : { clusterGate: (cluster: ClusterName) => limits.delayMs(cluster) }),
          logger: log,
          scheduler,
          observer: metrics.queue,
          onDepth: (d) => {
            life.running(d.running);
            metrics.depth(d);
          },
        }),
        finalize(() => {
          outcomes.complete();
        }),
      )
      .subscribe({
        next: (o) => {
          metrics.outcome(o);
          logOutcome(log, o);
          options.onOutcome?.(o);
          outcomes.next(o);
        },
        error: (err: unknown) => {
          health.broken();
          life.finish('failed', `the pipeline failed: ${describeCause(err)}`);
        },
        complete: () => {
          life.finish('clean', 'every in-flight reconcile finished');
        },
      }),
  );
  if (!life.ended()) health.phase('running');
  const signals = options.signals ?? true;
  if (signals !== false) life.listen(signals === true ? process : signals);
  log.info({ url: server?.url, fieldManager: c.fieldManager, resource: resourceId(c.resource) }, 'controller running');

  return { name: c.name, url: server?.url, health, metrics, outcomes: outcomes.asObservable(), fleet, ...(replica === undefined ? {} : { replica: replica.view }), stop: (opts) => life.stop(opts), done: life.done };
}
