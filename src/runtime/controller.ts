// A controller, declared: which provider finds the clusters, which resource it reconciles, which
// other watches wake it, and the reconciler. Nothing runs until `run` (run.ts) is called.
import type { Logger } from 'pino';
import type { MonoTypeOperatorFunction, Observable, ObservableInput } from 'rxjs';
import type { Cluster, FleetView, Provider } from '../streams/cluster.js';
import type { KubeObject } from '../core/object.js';
import type { ClusterName } from '../core/cluster.js';
import type { ResourceDescriptor } from '../core/resource.js';
import type { WriteVerb } from '../core/verb.js';
import type { Action } from '../operators/actions.js';
import type { QueueOptions } from '../operators/reconcile.js';
import type { ReconcileContext, ReconcileInput, ReconcileRequest } from '../operators/types.js';
import type { SinkContext, SinkOptions } from '../sinks/context.js';
import type { KeyedEvent } from '../streams/events.js';
import type { Fleet } from '../streams/fleet.js';
import type { InformerOptions, Informers, InformersOptions } from '../streams/informers.js';
import { ConfigError } from '../core/config-error.js';
import type { LabelSelector } from '../core/selector.js';
import { selectorProblem } from '../core/selector.js';

/**
 * Which clusters a watch applies to: a label selector on the cluster's labels (`{}` selects every
 * cluster), or a predicate on the cluster (its name, identity, labels).
 *
 * @example
 * ```ts
 * const hubs: ClusterSelector = { matchLabels: { role: 'hub' } };
 * const notDownstream: ClusterSelector = (c) => c.name !== 'downstream';
 * ```
 */
export type ClusterSelector = LabelSelector | ((cluster: Cluster) => boolean);

/**
 * Which objects of a resource a controller watches, and in which clusters.
 *
 * @example
 * ```ts
 * const hubOnly: ControllerSelection<Rollout> = { namespace: 'default', clusterSelector: { matchLabels: { role: 'hub' } } };
 * ```
 */
export interface ControllerSelection<T extends KubeObject> extends InformerOptions<T> {
  /** Watch only in the clusters this selects (default: every engaged cluster). */
  readonly clusterSelector?: ClusterSelector;
}

/**
 * Watches a resource across the fleet (or the clusters `options.clusterSelector` selects) through the
 * run's shared informers: its caches count for readiness and its health feeds the metrics.
 *
 * @example
 * ```ts
 * const inputs = ({ fleetWatch }: InputContext) => [
 *   fleetWatch(configMaps, { namespace: 'default', clusterSelector: { matchLabels: { role: 'member' } } }),
 * ];
 * ```
 */
export type FleetWatcher = <R extends KubeObject>(resource: ResourceDescriptor<R>, options?: ControllerSelection<R>) => Observable<KeyedEvent<R>>;

/**
 * What a controller's `inputs` function gets to build extra inputs: a watcher, the live fleet, the
 * shared informers, the sinks and the logger.
 *
 * @example
 * ```ts
 * const inputs = ({ fleetWatch }: InputContext) => [fleetWatch(configMaps).pipe(mapToKeys(rollouts, toRolloutKeys))];
 * ```
 */
export interface InputContext {
  /** Watches another resource across the fleet, counted for readiness and metrics. */
  readonly fleetWatch: FleetWatcher;
  /** The live fleet: `engagements` lets an input react to clusters joining. */
  readonly fleet: Fleet;
  /** The run's shared informers: read another watch's cache (`informer(cluster, resource).store`). */
  readonly informers: Informers;
  /** The controller's sinks, as reconcilers get them. */
  readonly sinks: SinkContext;
  /** The controller's logger. */
  readonly logger: Logger;
}

/**
 * What a controller's reconciler gets besides the request: the {@link ReconcileContext} (logger
 * with `{ cluster, key }`, abort signal, attempt) plus the live fleet and a {@link SinkContext}
 * whose field manager is the controller's, and whose writes are counted in the metrics.
 *
 * @example
 * ```ts
 * const fn: ControllerReconciler<ConfigMap> = (req, ctx) =>
 *   apply(ctx.sinks, { cluster: req.cluster, resource: configMaps, object: desired(req) }).pipe(toAction());
 * ```
 */
export interface ControllerContext extends ReconcileContext {
  /** The clusters engaged now. */
  readonly fleet: FleetView;
  /** Sinks configured for this controller (field manager, policies, write metrics). */
  readonly sinks: SinkContext;
}

/**
 * A controller's reconciler. Any `Reconciler<T>` from `rxfleet/operators` is one.
 *
 * @example
 * ```ts
 * const fn: ControllerReconciler<Namespace> = (req, ctx) => {
 *   ctx.logger.info('looking at it');
 *   return done();
 * };
 * ```
 */
export type ControllerReconciler<T extends KubeObject> = (request: ReconcileRequest<T>, context: ControllerContext) => Action | ObservableInput<Action>;

/**
 * A resource a controller reads beyond its primary watch (an `inputs` watch, a cache it reads, a
 * provider's management watch), declared for `rxfleet rbac`: `get`, `list`, `watch` on it.
 *
 * @example
 * ```ts
 * const w: WatchDeclaration = { resource: secrets, namespace: 'fleet-system', clusterSelector: { matchLabels: { role: 'hub' } } };
 * ```
 */
export interface WatchDeclaration {
  /** The resource read. */
  readonly resource: ResourceDescriptor;
  /** Only in this namespace (a Role there); default every namespace (a ClusterRole). */
  readonly namespace?: string;
  /** Only in the clusters this selects; default every cluster of the fleet. */
  readonly clusterSelector?: ClusterSelector;
}

/**
 * A resource a controller writes, declared for `rxfleet rbac`, which turns it into the RBAC verbs it
 * needs:
 * - `verbs` (the request verbs its sinks send; default `['apply']` when `subresources` is absent
 *   too): `apply` (`apply`): `patch`, plus `create` (an apply that creates the object is authorised
 *   as a create too) and `get` (`readFirst`); `create`: `create`; `update` (`update`, the
 *   read-modify-writes): `get`, `update`; `patch`: `patch`; `delete` (`deleteObject`,
 *   `sweepOrphans`, `deleteTargets`): `delete`, plus `list` for sweeps;
 * - `subresources`: `status` (`apply`, `patch` or `update` with `subresource: 'status'`): `get` on
 *   the resource, `get`, `patch`, `update` on `<resource>/status`; `finalizers` (`ensureFinalizer`, `removeFinalizer`,
 *   `withFinalizer`): `get`, `update` on the resource, `update` on `<resource>/finalizers`.
 *
 * @example
 * ```ts
 * const w: WriteDeclaration = { resource: configMaps, verbs: ['apply', 'delete'], namespace: 'default' };
 * const s: WriteDeclaration = { resource: widgets, verbs: ['apply'], subresources: ['status', 'finalizers'] };
 * ```
 */
export interface WriteDeclaration extends WatchDeclaration {
  /** The request verbs it sends to the resource; default `['apply']` when `subresources` is absent too, else none. */
  readonly verbs?: readonly WriteVerb[];
  /** The subresources it writes: `status` (status writes), `finalizers` (the finalizer sinks). */
  readonly subresources?: readonly ('status' | 'finalizers')[];
}

/**
 * What {@link controller} takes.
 *
 * @example
 * ```ts
 * const spec: ControllerSpec<Namespace> = { name: 'baseline', provider, resource: namespaces, reconcile: () => done() };
 * ```
 */
export interface ControllerSpec<T extends KubeObject> {
  /** Names the controller in logs, metrics (`controller` label) and, by default, the field manager. */
  readonly name: string;
  /** Where the clusters come from. */
  readonly provider: Provider;
  /** The resource reconciled: one key per object of it, in every watched cluster. */
  readonly resource: ResourceDescriptor<T>;
  /** What to do for one key; reads the object from the request, writes through `context.sinks`. */
  readonly reconcile: ControllerReconciler<T>;
  /**
   * Namespace, selectors and clusters of the primary watch. Clusters whose provider keeps a cache
   * (`Cluster.cache`) serve it from that cache.
   */
  readonly select?: ControllerSelection<T>;
  /** Between the primary watch and the queue, e.g. `generationChanged()`. Extra inputs skip it. */
  readonly filter?: MonoTypeOperatorFunction<ReconcileInput<T>>;
  /** More inputs, typically other watches mapped to keys of `resource` (`mapToKeys`, `mapToOwner`). */
  readonly inputs?: (context: InputContext) => readonly Observable<ReconcileInput<T>>[];
  /** Server-side apply field manager; default `name`. */
  readonly fieldManager?: string;
  /** Work-queue settings (concurrency, debounce, backoff, rate limit). */
  readonly queue?: QueueOptions;
  /** Watch settings shared by every informer of the run (timeouts, backoff, page size). */
  readonly watchOptions?: InformersOptions;
  /** Sink policies (conflict retry, Retry-After, client-side rate limit). */
  readonly sinks?: SinkOptions;
  /**
   * What the controller writes, for `rxfleet rbac` only: writes cannot be seen statically in a
   * reconciler. Nothing checks or enforces it at run time; a write left out shows as a 403 naming
   * the verb and the resource once the controller runs under the printed role.
   */
  readonly writes?: readonly WriteDeclaration[];
  /**
   * What the controller reads besides `resource` (extra `inputs` watches, caches, a provider's
   * management watch), for `rxfleet rbac` only; like `writes`, checked nowhere else.
   */
  readonly watches?: readonly WatchDeclaration[];
  /**
   * Clusters this controller cannot work without. The run is not ready (`/readyz` answers 503,
   * naming the cluster and the cause) while one of them is syncing, unhealthy (a watch refused
   * 401/403 or unreachable; its requests refused) or not engaged, where otherwise an unhealthy
   * cluster never holds the others back. A replica under leader election or sharding is judged on
   * the required clusters it runs. The run requires the union of its controllers' lists.
   *
   * @example
   * ```ts
   * // A controller that copies from a hub: no hub, no work, so not ready.
   * const c = controller({ name: 'copier', provider, resource: configMaps, reconcile: () => done(), requiredClusters: [clusterName('hub')] });
   * ```
   */
  readonly requiredClusters?: readonly ClusterName[];
}

/**
 * A checked controller definition, ready for `run`.
 *
 * @example
 * ```ts
 * const c: Controller<Namespace> = controller({ name: 'baseline', provider, resource: namespaces, reconcile: () => done() });
 * ```
 */
export interface Controller<T extends KubeObject> extends ControllerSpec<T> {
  readonly fieldManager: string;
}

/**
 * Declares a controller and checks what can be checked before anything runs. A configuration
 * that can never work throws a {@link ConfigError} saying what to fix: no name, no provider, no
 * resource, no reconciler, the removed `source` option, or a field manager Kubernetes would refuse.
 *
 * @example
 * ```ts
 * import { configMaps, controller, done, main } from 'rxfleet';
 * import { clusterListProvider } from 'rxfleet/providers/clusters';
 *
 * const c = controller({
 *   name: 'hello',
 *   provider: clusterListProvider([{ name: 'local', kubeconfig: { file: `${process.env['HOME'] ?? ''}/.kube/config` } }]),
 *   resource: configMaps,
 *   reconcile: (req, ctx) => {
 *     ctx.logger.info({ exists: req.object !== undefined }, 'seen');
 *     return done();
 *   },
 * });
 * void main(c);
 * ```
 * @param spec - the controller's parts.
 * @returns the definition (frozen).
 * @throws ConfigError when a part is missing or invalid.
 */
export function controller<T extends KubeObject>(spec: ControllerSpec<T>): Controller<T> {
  // The types already require these; the checks serve JavaScript callers and values built at run time.
  const loose = spec as Partial<ControllerSpec<T>>;
  const name = typeof loose.name === 'string' ? loose.name.trim() : '';
  if (name === '') throw new ConfigError('controller: `name` is required (it names logs, metrics and the field manager)');
  const where = `controller "${name}"`;
  if (loose.provider === undefined || typeof (loose.provider as { subscribe?: unknown }).subscribe !== 'function') {
    throw new ConfigError(`${where}: no provider given; pass \`provider\`, e.g. clusterListProvider([...]) from rxfleet/providers/clusters or staticProvider([...]) from rxfleet/streams`);
  }
  if (loose.resource === undefined) throw new ConfigError(`${where}: no resource given; pass \`resource\`, e.g. configMaps or resource({ group, version, plural, kind, namespaced })`);
  if (typeof loose.reconcile !== 'function') throw new ConfigError(`${where}: \`reconcile\` must be a function (request, context) => Action`);
  if ('source' in spec) throw new ConfigError(`${where}: \`source\` was removed; a cluster's provider now serves its watches from its own cache: pass the provider that engages those clusters as \`provider\`, and the resource as \`resource\``);
  const fieldManager = spec.fieldManager ?? name;
  if (fieldManager.length > 128) throw new ConfigError(`${where}: field manager must be at most 128 characters; pass a shorter \`fieldManager\``);
  const selectors: readonly [string, ClusterSelector | undefined][] = [
    ['select.clusterSelector', spec.select?.clusterSelector],
    ...(spec.watches ?? []).map((w, i): [string, ClusterSelector | undefined] => [`watches[${i}].clusterSelector`, w.clusterSelector]),
    ...(spec.writes ?? []).map((w, i): [string, ClusterSelector | undefined] => [`writes[${i}].clusterSelector`, w.clusterSelector]),
  ];
  for (const [field, sel] of selectors) {
    const problem = sel === undefined || typeof sel === 'function' ? undefined : selectorProblem(sel);
    if (problem !== undefined) throw new ConfigError(`${where}: \`${field}\`: ${problem}`);
  }
  return Object.freeze({ ...spec, name, fieldManager });
}
