// A virtual-time controller harness: changes made to the in-memory clusters arrive as marbles, the
// runtime's own watches turn them into keyed events, `reconcile` runs the controller's reconciler
// with sinks on the fleet, and the writes it makes come back as marbles (`fleet.writes()`).
import type { Observable, SchedulerLike } from 'rxjs';
import { asyncScheduler, ignoreElements, merge, tap } from 'rxjs';
import type { KubeObject } from '../core/object.js';
import type { ResourceDescriptor } from '../core/resource.js';
import type { ReconcileConfig } from '../operators/reconcile.js';
import { reconcile } from '../operators/reconcile.js';
import type { Outcome } from '../operators/types.js';
import type { ControllerReconciler } from '../runtime/controller.js';
import { controllerContext } from '../runtime/controller-context.js';
import type { SinkConfig } from '../sinks/context.js';
import { sinkContext } from '../sinks/context.js';
import type { Selection } from '../streams/cluster.js';
import { toKeyedEvents } from '../streams/to-keyed-events.js';
import { watchEvents } from '../streams/watch.js';
import type { InMemoryFleet } from './in-memory-fleet.js';

/**
 * A change another actor makes to an in-memory cluster: an object created or replaced (status
 * included), or deleted (finalizers honoured).
 *
 * @example
 * ```ts
 * const changes: Record<string, FleetChange> = { a: putObject(configMaps, cm), d: deleteObject(configMaps, 'default/web') };
 * ```
 */
export type FleetChange =
  | {
      /** Create or replace the object. */
      readonly type: 'put';
      /** Its resource. */
      readonly resource: ResourceDescriptor;
      /** The object (name and namespace in its metadata). */
      readonly object: KubeObject;
    }
  | {
      /** Delete the object. */
      readonly type: 'delete';
      /** Its resource. */
      readonly resource: ResourceDescriptor;
      /** `namespace/name`, or `name` when cluster-scoped. */
      readonly ref: string;
    };

/**
 * The change that creates or replaces `object`.
 *
 * @example
 * ```ts
 * hot('-a', { a: putObject(configMaps, { metadata: { name: 'web', namespace: 'default' }, data: { v: '2' } }) });
 * ```
 * @param resource - the object's resource.
 * @param object - the object.
 * @returns the change.
 */
export function putObject<T extends KubeObject>(resource: ResourceDescriptor<T>, object: T): FleetChange {
  return Object.freeze({ type: 'put', resource, object });
}

/**
 * The change that deletes an object.
 *
 * @example
 * ```ts
 * hot('--d', { d: deleteObject(configMaps, 'default/web') });
 * ```
 * @param resource - the object's resource.
 * @param ref - `namespace/name`, or `name` when cluster-scoped.
 * @returns the change.
 */
export function deleteObject(resource: ResourceDescriptor, ref: string): FleetChange {
  return Object.freeze({ type: 'delete', resource, ref });
}

/**
 * Settings of {@link runController}.
 *
 * @example
 * ```ts
 * const config: ControllerRunConfig<ConfigMap> = { fleet, resource: configMaps, reconcile: (req: ReconcileRequest<ConfigMap>) => done() };
 * ```
 */
export interface ControllerRunConfig<T extends KubeObject> {
  /** The in-memory fleet the controller watches and writes. */
  readonly fleet: InMemoryFleet;
  /** The resource reconciled. */
  readonly resource: ResourceDescriptor<T>;
  /** The controller's reconciler; its `context.sinks` write to `fleet`, its `context.fleet` is `fleet.view`. */
  readonly reconcile: ControllerReconciler<T>;
  /** Changes made to each cluster (by name) while the controller runs, as marbles. */
  readonly changes?: Readonly<Record<string, Observable<FleetChange>>>;
  /** Namespace and selectors of the watch. */
  readonly selection?: Selection;
  /** The field manager of the sinks. Default `rxfleet-test`. */
  readonly fieldManager?: string;
  /** `reconcile`'s settings (concurrency, debounce, backoff…); `lookup`, `fleet` and `scheduler` are the harness's. */
  readonly reconcileConfig?: Omit<ReconcileConfig<T>, 'lookup' | 'fleet' | 'scheduler'>;
  /** The sinks' policies (conflict retry, Retry-After, rate limit). */
  readonly sinks?: Omit<SinkConfig, 'fleet' | 'fieldManager' | 'scheduler'>;
  /** Drives everything; default `asyncScheduler` (virtual inside `TestScheduler.run`). Use the fleet's. */
  readonly scheduler?: SchedulerLike;
}

/**
 * Runs a controller's reconciler over an in-memory fleet: the runtime's watches (a streaming list,
 * then live changes) of every cluster feed `reconcile`, which reads the latest object of a key
 * from the fleet (level-triggered, as the runtime reads its cache) and writes through sinks on the
 * fleet. Subscribe to start; the watches never end, so bound the run (`expectObservable(out, '^ 100ms !')`).
 *
 * @example
 * ```ts
 * // Inside TestScheduler.run(({ hot, expectObservable }) => { ... }):
 * const fleet = inMemoryFleet({ clusters: { east: [], west: [] } });
 * const out = runController({ fleet, resource: configMaps, reconcile: () => done(),
 *   changes: { east: hot('-a', { a: putObject(configMaps, { metadata: { name: 'web', namespace: 'default' } }) }) } });
 * expectObservable(out.pipe(toLabels()), '^ 10ms !').toBe('-a', { a: 'done east/default/web' });
 * ```
 * @param config - the fleet, the resource, the reconciler, the changes and the settings.
 * @returns the reconcile outcomes.
 * @throws ConfigError when `changes` names a cluster the fleet does not have.
 */
export function runController<T extends KubeObject>(config: ControllerRunConfig<T>): Observable<Outcome> {
  const { fleet, resource } = config;
  const scheduler = config.scheduler ?? asyncScheduler;
  for (const name of Object.keys(config.changes ?? {})) fleet.cluster(name);
  const sinks = sinkContext({ ...config.sinks, fleet: fleet.sinkFleet, fieldManager: config.fieldManager ?? 'rxfleet-test', scheduler });
  const events = merge(...fleet.view.clusters().map((c) => watchEvents(c, resource, { ...config.selection, scheduler }).pipe(toKeyedEvents(c.name, resource))));
  const changes = Object.entries(config.changes ?? {}).map(([cluster, stream]) =>
    stream.pipe(
      tap((ch) => {
        if (ch.type === 'put') fleet.put(cluster, ch.resource, ch.object);
        else fleet.remove(cluster, ch.resource, ch.ref);
      }),
      ignoreElements(),
    ),
  );
  const lookup = (key: { readonly cluster: string; readonly namespace: string; readonly name: string }): T | undefined => {
    const found = fleet.object(key.cluster, resource, key.namespace === '' ? key.name : `${key.namespace}/${key.name}`);
    if (found === undefined) return undefined;
    // As the runtime's cache keeps it: without managedFields.
    const { managedFields: _mf, ...metadata } = found.metadata;
    return Object.freeze({ ...found, metadata: Object.freeze(metadata) });
  };
  const outcomes = events.pipe(
    reconcile<T>((req, ctx) => config.reconcile(req, controllerContext(ctx, fleet.view, sinks)), { ...config.reconcileConfig, lookup, fleet: fleet.view, scheduler }),
  );
  return merge(outcomes, ...changes);
}
