// A virtual-time controller harness: changes made to the in-memory clusters arrive as marbles, and
// the controller runs through the runtime's own pipeline (run-controller.ts: its select, filter,
// inputs, queue options, field manager and reconciler, over shared informers of the fleet), with
// sinks whose clients answer on the scheduler; its writes come back as marbles (`fleet.writes()`).
import type { Logger } from 'pino';
import { pino } from 'pino';
import type { Observable, SchedulerLike } from 'rxjs';
import { asyncScheduler, merge, NEVER } from 'rxjs';
import type { KubeObject } from '../core/object.js';
import type { ResourceDescriptor } from '../core/resource.js';
import type { QueueOptions } from '../operators/reconcile.js';
import type { Outcome } from '../operators/types.js';
import type { Controller, ControllerReconciler } from '../runtime/controller.js';
import { controller } from '../runtime/controller.js';
import type { ControllerParts, SharedRunParts } from '../runtime/run-controller.js';
import { controllerPipeline } from '../runtime/run-controller.js';
import type { SinkOptions } from '../sinks/context.js';
import type { Selection } from '../streams/cluster.js';
import { createFleet } from '../streams/fleet.js';
import { createInformers } from '../streams/informers.js';
import type { FleetChange } from './fleet-changes.js';
import { applyChanges } from './fleet-changes.js';
import type { InMemoryFleet } from './in-memory-fleet.js';

export type { FleetChange } from './fleet-changes.js';
export { deleteChange, putChange } from './fleet-changes.js';

/**
 * A whole controller to run with {@link runController}: the one `controller({...})` declares and
 * `run` runs, so its `select`, `filter`, `inputs`, `queue`, `sinks`, `watchOptions` and
 * `fieldManager` apply as in production. Its `provider` is not used: the in-memory fleet provides
 * the clusters.
 *
 * @example
 * ```ts
 * const config: ControllerUnderTest<ConfigMap> = { inMemory: fleet, controller: controller({ name: 'hello', provider: fleet.provider, resource: configMaps, reconcile: () => done() }) };
 * ```
 */
export interface ControllerUnderTest<T extends KubeObject> {
  /** The in-memory fleet the controller watches and writes. */
  readonly inMemory: InMemoryFleet;
  /** The controller, as `controller({...})` made it. */
  readonly controller: Controller<T>;
  /** Changes made to each cluster (by name) while the controller runs, as marbles. */
  readonly changes?: Readonly<Record<string, Observable<FleetChange>>>;
  /** The controller's logger (reconcile logs carry `cluster` and `key`). Default: silent. */
  readonly logger?: Logger;
  /** Drives everything; default `asyncScheduler` (virtual inside `TestScheduler.run`). Use the fleet's. */
  readonly scheduler?: SchedulerLike;
}

/**
 * Settings of {@link runController} for a reconciler alone: it runs as a controller named
 * `rxfleet-test` of `resource` with these settings, and no filter or extra inputs.
 *
 * @example
 * ```ts
 * const config: RunControllerOptions<ConfigMap> = { inMemory: fleet, resource: configMaps, reconcile: (req: ReconcileRequest<ConfigMap>) => done() };
 * ```
 */
export interface RunControllerOptions<T extends KubeObject> {
  /** The in-memory fleet the controller watches and writes. */
  readonly inMemory: InMemoryFleet;
  /** The resource reconciled. */
  readonly resource: ResourceDescriptor<T>;
  /** The controller's reconciler; its `context.sinks` write to `fleet`, its `context.fleet` holds the fleet's clusters. */
  readonly reconcile: ControllerReconciler<T>;
  /** Changes made to each cluster (by name) while the controller runs, as marbles. */
  readonly changes?: Readonly<Record<string, Observable<FleetChange>>>;
  /** Namespace and selectors of the watch. */
  readonly selection?: Selection;
  /** The field manager of the sinks. Default `rxfleet-test`. */
  readonly fieldManager?: string;
  /** `reconcile`'s settings (concurrency, debounce, backoff…); `lookup`, `fleet` and `scheduler` are the harness's. */
  readonly queue?: QueueOptions;
  /** The sinks' policies (conflict retry, Retry-After, rate limit). */
  readonly sinks?: SinkOptions;
  /** Drives everything; default `asyncScheduler` (virtual inside `TestScheduler.run`). Use the fleet's. */
  readonly scheduler?: SchedulerLike;
}

const nothing = (): void => undefined;
let silent: Logger | undefined;

// What runs: the controller and its own parts.
function parts<T extends KubeObject>(config: ControllerUnderTest<T> | RunControllerOptions<T>): { readonly c: Controller<T>; readonly own: ControllerParts } {
  silent ??= pino({ level: 'silent' });
  const quiet = { outcome: nothing, depth: nothing, write: nothing, denied: nothing, queue: {} };
  if ('controller' in config) {
    const c = config.controller;
    return { c, own: { logger: config.logger ?? silent, metrics: quiet, sinkOptions: c.sinks ?? {}, onDepth: nothing } };
  }
  const queue = config.queue ?? {};
  const c = controller<T>({
    name: 'rxfleet-test',
    provider: config.inMemory.provider,
    resource: config.resource,
    reconcile: config.reconcile,
    fieldManager: config.fieldManager ?? 'rxfleet-test',
    ...(config.selection === undefined ? {} : { select: config.selection }),
    queue,
  });
  return { c, own: { logger: silent, metrics: quiet, sinkOptions: config.sinks ?? {}, onDepth: nothing } };
}

/**
 * Runs a controller over an in-memory fleet in virtual time, through the runtime's own pipeline:
 * the fleet's provider engages its clusters, the controller's watches (shared informers: a
 * streaming list, then live changes) pass its `filter`, its `inputs` join them, and its work queue
 * (its `queue` options) runs the reconciler, which reads the latest object of a key from the
 * informer's cache (level-triggered) and writes with the controller's field manager through sinks
 * whose clients answer on the scheduler. Pass the whole controller (`controller`), or a reconciler
 * alone (`resource` and `reconcile`). Subscribe to start; the watches never end, so bound the run
 * (`expectObservable(out, '^ 100ms !')`).
 *
 * @example
 * ```ts
 * // Inside TestScheduler.run(({ hot, expectObservable }) => { ... }):
 * const fleet = inMemoryFleet({ clusters: { east: [], west: [] } });
 * const c = controller({ name: 'hello', provider: fleet.provider, resource: configMaps, filter: generationChanged(), reconcile: () => done() });
 * const out = runController({ inMemory: fleet, controller: c,
 *   changes: { east: hot('-a', { a: putChange(configMaps, { metadata: { name: 'web', namespace: 'default' } }) }) } });
 * expectObservable(out.pipe(toLabels()), '^ 10ms !').toBe('-a', { a: 'done east/default/web' });
 * ```
 * @param config - the fleet, the controller (or a resource and a reconciler with their settings), and the changes.
 * @returns the reconcile outcomes.
 * @throws ConfigError when `changes` names a cluster the fleet does not have, or the reconciler form's settings are invalid.
 */
export function runController<T extends KubeObject>(config: ControllerUnderTest<T> | RunControllerOptions<T>): Observable<Outcome> {
  const { inMemory } = config;
  const scheduler = config.scheduler ?? asyncScheduler;
  const changes = applyChanges(inMemory, config.changes ?? {});
  const { c, own } = parts(config);
  const shared: SharedRunParts = {
    fleet: createFleet(inMemory.provider, { scheduler }),
    informers: createInformers({ ...c.watchOptions, scheduler }),
    specs: [],
    stopRequested: NEVER,
    scheduler,
    sinkClusters: inMemory.sinkClusters,
  };
  return merge(controllerPipeline(c, shared, own), ...changes);
}
