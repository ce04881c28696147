/**
 * rxfleet: Kubernetes controllers across a changing fleet of clusters, as RxJS pipelines. The root
 * holds what a controller author writes every day: declare a controller and run it, name resources,
 * clusters and keys, answer a reconcile (`done`, `requeueAfter`, `error`, `terminal`, `toAction`),
 * and read a client or sink result (`isLeft`, `isRight`, `isRetryable`). The rest has its own entry
 * point: `rxfleet/operators`, `rxfleet/sinks`, `rxfleet/providers/<name>`, `rxfleet/streams`
 * (fleet, watches, stores, informers, the cluster and provider contracts), `rxfleet/client`,
 * `rxfleet/runtime` (probes, metrics, logging, signals), `rxfleet/fp` and `rxfleet/testing`.
 *
 * @example
 * ```ts
 * import { configMaps, controller, done, main, toAction } from 'rxfleet';
 * import { clusterListProvider } from 'rxfleet/providers/clusters';
 * import { apply } from 'rxfleet/sinks';
 *
 * const hello = controller({
 *   name: 'hello',
 *   provider: clusterListProvider([{ name: 'local', kubeconfig: { file: `${process.env['HOME'] ?? ''}/.kube/config` } }]),
 *   resource: configMaps,
 *   reconcile: (req, ctx) => (req.object === undefined ? done() : apply(ctx.sinks, { cluster: req.cluster, resource: configMaps, object: req.object }).pipe(toAction())),
 * });
 * void main(hello);
 * ```
 * @packageDocumentation
 * @module rxfleet
 */
// Declare and run a controller.
// First: fails clearly on an unsupported Node before anything else loads.
import './internal/require-node.js';
export type { ClusterSelector, Controller, ControllerContext, ControllerReconciler, ControllerSelection, ControllerSpec, FleetWatcher, InputContext, WatchDeclaration, WriteDeclaration } from './runtime/controller.js';
export { controller } from './runtime/controller.js';
export type { RunHandle, RunOptions, RunResult } from './runtime/run-types.js';
export { run } from './runtime/run.js';
export type { Controllers } from './runtime/main.js';
export { main } from './runtime/main.js';
export type { StopReason } from './runtime/errors.js';
export { ConfigError } from './core/config-error.js';
export { canonicalJson } from './core/canonical-json.js';
// Resources, cluster names and object keys.
export type { ResourceDescriptor } from './core/resource.js';
export { resource } from './core/resource.js';
export type { ApplyConfiguration, DeepPartial, KubeObject, ObjectList, ObjectMeta, OwnerReference } from './core/object.js';
// The built-in resources every controller names, from their one home (rxfleet/resources).
export { configMaps, namespaces, secrets } from './resources/core-v1/resources.js';
export { leases } from './resources/coordination-v1/resources.js';
export { customResourceDefinitions } from './resources/apiextensions-v1/resources.js';
export type { ConfigMap } from './resources/core-v1/types-1.js';
export type { Namespace } from './resources/core-v1/types-3.js';
export type { Secret } from './resources/core-v1/types-5.js';
export type { Lease } from './resources/coordination-v1/types.js';
export type { LabelSelector } from './resources/meta-v1/types.js';
export type { ClusterName } from './core/cluster.js';
export { clusterName } from './core/cluster.js';
export type { ObjectKey } from './core/key.js';
export { formatKey, keyOf, objectKey, parseKey } from './core/key.js';
export type { Verb, WriteVerb } from './core/verb.js';
// A reconcile: its request and context, its result, and the write results it reads.
export type { ReconcileContext, ReconcileInput, ReconcileRequest } from './operators/types.js';
export type { Action } from './operators/actions.js';
export { done, error, isAction, requeueAfter, terminal } from './operators/actions.js';
export { actionOf, toAction } from './sinks/to-action.js';
export type { KubeError, KubeErrorType } from './core/errors.js';
export { isRetryable } from './core/errors.js';
export type { Either, Left, Right } from './internal/fp.js';
export { isLeft, isRight } from './core/either.js';
// The contracts a controller names (declared in rxfleet/streams, which exports them too).
export type { Cluster, FleetView, Provider } from './streams/cluster.js';
export type { KeyedEvent } from './streams/events.js';
