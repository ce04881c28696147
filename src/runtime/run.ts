// Running a controller: provider → fleet → shared informers → inputs → reconcile → sinks, with
// health, metrics, logs, and a graceful stop. The order of teardown matters: the input stops
// first (reconcile drains), the watches and the provider stay up until the drain ends (in-flight
// reconciles still read caches and write through the fleet), then everything is unsubscribed
// (lifecycle.ts). Watches come from the informers, which ask each cluster's cache first: the
// runtime knows no provider by name.
import { asyncScheduler, finalize, Subject } from 'rxjs';
import type { Registry as PromRegistry } from 'prom-client';
import type { RequestRecorder } from '../client/request-count.js';
import { countingRequests, recorderInEffect } from '../client/request-count.js';
import type { ClusterName } from '../core/cluster.js';
import type { Verb } from '../core/verb.js';
import type { KubeObject } from '../core/object.js';
import { resourceId } from '../core/resource.js';
import type { Outcome } from '../operators/types.js';
import { createFleet } from '../streams/fleet.js';
import { createInformers } from '../streams/informers.js';
import { narrowProvider } from '../streams/fleet-scope.js';
import type { WatchSpec } from './cluster-keeper.js';
import { keepClusters } from './cluster-keeper.js';
import type { Controller } from './controller.js';
import { countClusters, emptyFleetFailure, firstPass, fleetSettings } from './first-pass.js';
import { followReports } from './follow-reports.js';
import { healthTracker } from './health-tracker.js';
import { defaultShutdownDeadlineMs, lifecycle } from './lifecycle.js';
import { controllerLogger, defaultLogger } from './logging.js';
import type { SharedRunParts } from './run-controller.js';
import { controllerSet } from './controller-set.js';
import type { MetricsSource } from './metrics-exposition.js';
import { joinCheck, legacyRateLimit, runControllers, runProvider as provider, runWatchConfig as watchConfig } from './run-group.js';
import { describeCause, probeServer } from './run-parts.js';
import type { RunHandle, RunOptions } from './run-types.js';

export type { RunHandle, RunOptions, RunResult } from './run-types.js';

/**
 * Runs a controller until it is stopped (by {@link RunHandle.stop} or a signal). On start: the
 * probe server listens, the provider is subscribed, each engaged cluster gets its watches (shared
 * informers) and a child logger, and keys flow into `reconcile` (the primary ones from the
 * cluster's cache when its provider keeps one, with `req.object` from the informer's store).
 * A cluster whose watch fails (no route, 401/403, the resource not served there) is reported
 * unhealthy with what to fix; the others keep working. Ready (`/readyz`) once the provider's first
 * discovery pass is over and at least `discovery.minClusters` clusters are discovered and synced; a
 * first pass that finds no cluster and reports problems ends the run with reason `config` (exit
 * code 2) unless `discovery.allowEmpty`. On stop: the input ends, running and ready keys finish (retries are dropped), and
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
 * Several controllers run as one process on one fleet (controller-runtime's manager): pass a list.
 * They must name the same provider object and watch settings; each keeps its own work queue,
 * field manager, logger (`controller` field) and reconcile metrics (`controller` label), while the
 * watches, health and probe server are shared. The run's name (`options.name`, default the names
 * joined by `+`) labels the fleet's series.
 *
 * ```ts
 * const handle = await run([publisher, sync], { name: 'sync-agent' });
 * ```
 * The list may change while the run runs: `handle.add([...])` starts more controllers beside the
 * others, `handle.remove([name])` drains and stops some, and the rest keep their queues, caches,
 * the probe server and the Lease.
 * @see main to run and exit with the result's code.
 * @param c - the controller, or several sharing one provider.
 * @param options - logger, probe server, signals, shutdown deadline, scheduler.
 * @returns the handle once the server listens and the pipeline is subscribed.
 * @throws ConfigError (as a rejection) when the probe server's port cannot be bound, `fleet` options can never work, or several controllers disagree on what they share.
 */
export function run<T extends KubeObject>(c: Controller<T> | readonly Controller<KubeObject>[], options: RunOptions = {}): Promise<RunHandle> {
  // Every request the run sends (its providers' and watches', its sinks' and reconcilers', its
  // Leases') is counted in its metrics: their recorder is in effect for all the run starts, and
  // each transport reports to it (src/client/request-count.ts). Bound once the metrics exist.
  let record: RequestRecorder | undefined;
  const forget = (cluster: ClusterName): void => record?.forget?.(cluster);
  return countingRequests(
    Object.assign((cluster: ClusterName, verb: Verb, result: string) => record?.(cluster, verb, result), { forget }),
    () =>
      started(c, options, (r) => {
        record = r;
      }),
  );
}

async function started<T extends KubeObject>(c: Controller<T> | readonly Controller<KubeObject>[], options: RunOptions, countInto: (record: RequestRecorder) => void): Promise<RunHandle> {
  const controllers = runControllers(c);
  const single = controllers.length === 1;
  const name = options.name ?? controllers.map((x) => x.name).join('+');
  const scheduler = options.scheduler ?? asyncScheduler;
  const root = options.logger ?? defaultLogger();
  const log = controllerLogger(root, name);
  // prom-client (~7.5 MiB with its dependencies) loads when a controller runs, not when rxfleet
  // is imported: importing the package loads only what is used (so do the modules that use it).
  const [{ controllerMetrics, scopedMetrics }, { registerProcessMetrics }, { combinedMetrics }, { clusterRateLimits }, { Registry }] = await Promise.all([
    import('./metrics.js'),
    import('./process-metrics.js'),
    import('./metrics-exposition.js'),
    import('./cluster-rate-limit.js'),
    import('prom-client'),
  ]);
  // One controller: every series on one registry, as before. Several: the fleet's series on the
  // run's registry, each controller's queue, reconciles and writes on its own, merged at /metrics.
  const metrics = single ? controllerMetrics(name, options.registry, options.metrics) : scopedMetrics(name, options.registry ?? new Registry(), options.metrics ?? {}, 'fleet');
  // A client closed with `countedWhileOpen` (a kcp endpoint's, named by its URL) takes its series with it.
  const request = (cluster: ClusterName, verb: Verb, result: string): void => {
    metrics.request(cluster, verb, result);
  };
  countInto(
    Object.assign(request, {
      forget: (cluster: ClusterName): void => {
        metrics.forget(cluster);
      },
    }),
  );
  const own = single ? [metrics] : controllers.map((x) => scopedMetrics(x.name, new Registry(), options.metrics ?? {}, 'reconcile'));
  if (options.metrics?.processMetrics !== false) registerProcessMetrics(metrics.registry);
  const fleetOptions = fleetSettings(options.discovery);
  // One client-side limiter per engaged cluster, taken by every request of its client (watches, sinks, a reconciler's own).
  const limits = clusterRateLimits(options.clusterRateLimit, legacyRateLimit(controllers), { scheduler, registry: metrics.registry });
  const health = healthTracker({ minClusters: fleetOptions.minClusters, awaitFirstPass: true, scheduler, requiredClusters: controllers.flatMap((x) => x.requiredClusters ?? []) });
  // Checked before the probe server listens: a missing Lease namespace or forbidden Leases fail the start.
  const replica = options.replicas === undefined ? undefined : await (await import('./ha/replica-runtime.js')).replicaRuntime(options.replicas, name, { logger: log, health, registry: metrics.registry, scheduler });
  // Read at each scrape: a controller that joins later (RunHandle.add) is served beside the others.
  // (A controller that left has its series dropped with its registry.)
  const added = new Map<string, PromRegistry>();
  const left = new Set<string>();
  const others = (): readonly PromRegistry[] => [...(single ? [] : own.filter((_m, i) => !left.has(controllers[i]?.name ?? '')).map((m) => m.registry)), ...added.values(), ...(options.metricsFrom ?? [])];
  const exposition: MetricsSource = {
    contentType: metrics.registry.contentType,
    metrics: () => (others().length === 0 ? metrics.registry.metrics() : combinedMetrics(metrics.registry, others()).metrics()),
  };
  const server = await probeServer(name, options.http, health, exposition);
  // The Lease's release (its last update, a member's delete after it) may start from a signal or
  // the caller's stop(), outside the run: sent with the run's recorder in effect, so it is counted.
  const recorder = recorderInEffect();
  const release = async (): Promise<void> => {
    await (recorder === undefined ? replica?.release() : countingRequests(recorder, () => replica?.release()));
    await server?.close();
  };
  const life = lifecycle({ logger: log, health, scheduler, deadlineMs: options.shutdownDeadlineMs ?? defaultShutdownDeadlineMs, release });

  // Counted before leader election or sharding narrows the events: readiness and the empty-fleet check read what the provider found.
  // A sharding replica asks a provider that can be narrowed for its own clusters only; that provider counts what it found itself.
  const unnarrowed = provider(controllers);
  const narrowed = replica?.scope === undefined ? undefined : narrowProvider(unnarrowed, replica.scope);
  const discovered =
    narrowed ??
    unnarrowed.pipe(
      countClusters((n) => {
        health.discovered(n);
      }),
    );
  // Each controller's own Apply entries stay in the caches, so its sinks can prove an apply needless.
  const informers = createInformers({ keepManagedFieldsOf: [...new Set(controllers.map((x) => x.fieldManager))], ...watchConfig(controllers), scheduler });
  const specs: WatchSpec[] = [];
  const specsChanged = new Subject<void>();
  const owned = replica === undefined ? discovered : replica.provider(discovered, { informers, specs });
  const fleet = createFleet(limits === undefined ? owned : limits.provider(owned), { scheduler });
  const shared: SharedRunParts = { fleet, informers, specs, stopRequested: life.stopRequested, scheduler, ...(replica === undefined ? {} : { access: replica.access }), ...(limits === undefined ? {} : { clusterGate: (cl: ClusterName) => limits.delayMs(cl) }) };
  const set = controllerSet(
    {
      shared,
      specsChanged,
      // One controller started alone keeps its series on the run's registry; every other gets its own.
      own: (x, first) => {
        if (first && single) return { logger: log, metrics };
        const ownMetrics = first ? (own[controllers.indexOf(x)] ?? metrics) : scopedMetrics(x.name, new Registry(), options.metrics ?? {}, 'reconcile');
        if (!first) added.set(x.name, ownMetrics.registry);
        return { logger: controllerLogger(root, x.name), metrics: ownMetrics };
      },
      left: (x) => {
        left.add(x.name);
        added.delete(x.name);
      },
      health,
      running: (n) => {
        life.running(n);
      },
      deadlineMs: options.shutdownDeadlineMs ?? defaultShutdownDeadlineMs,
      canJoin: joinCheck(controllers),
    },
    controllers,
  );
  const outcomes = new Subject<Outcome>();

  life.own(followReports(fleet.reports, { logger: log, health, metrics }).subscribe());
  life.own(
    firstPass(fleet.reports, fleetOptions.firstPassTimeoutMs, scheduler).subscribe((end) => {
      if (end.type === 'timedOut') log.warn({ firstPassTimeoutMs: end.afterMs, clusters: health.report().discovery.clusters }, 'provider did not finish its first discovery pass in time; judging the fleet as it stands');
      health.firstPassDone();
      const failure = emptyFleetFailure(health.report(), end, fleetOptions.allowEmpty);
      if (failure !== undefined) life.finish('config', failure);
    }),
  );
  life.own(
    keepClusters({ fleet, informers, specs, specsChanged, health, metrics, logger: log }).subscribe({
      error: (err: unknown) => {
        health.broken();
        life.finish('failed', `the provider failed: ${describeCause(err)}`);
      },
    }),
  );
  life.own(
    set.outcomes
      .pipe(
        finalize(() => {
          outcomes.complete();
        }),
      )
      .subscribe({
        next: (o) => {
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
  // A run that a misconfiguration already stopped during its start never says it is running, and
  // leaves no signal handler behind: its last line is the one saying why it stopped.
  if (!life.ended()) {
    health.phase('running');
    const signals = options.signals ?? true;
    if (signals !== false) life.listen(signals === true ? process : signals);
    for (const x of controllers) log.info({ url: server?.url, ...(single ? {} : { controller: x.name }), fieldManager: x.fieldManager, resource: resourceId(x.resource) }, 'controller running');
  }

  const add = (more: readonly Controller<KubeObject>[]): void => {
    set.add(more);
    for (const x of more) log.info({ url: server?.url, controller: x.name, fieldManager: x.fieldManager, resource: resourceId(x.resource) }, 'controller running');
  };
  const remove = async (names: readonly string[]): Promise<void> => {
    await set.remove(names);
    if (names.length > 0) log.info({ controllers: names }, 'controllers removed');
  };
  return { name, url: server?.url, health, metrics, outcomes: outcomes.asObservable(), fleet, ...(replica === undefined ? {} : { replica: replica.view }), add, remove, stop: (opts) => life.stop(opts), done: life.done };
}
