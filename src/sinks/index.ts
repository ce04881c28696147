/**
 * rxfleet/sinks: safe, typed writes to any cluster of the fleet, each as a function returning an
 * Observable of one outcome and as an operator (`…Each`) for the end of a pipeline; plus events,
 * back-references and the cross-cluster ownership writes. A reconciler ends its writes with
 * `toAction()` from the root.
 *
 * @example
 * ```ts
 * import { apply } from 'rxfleet/sinks';
 * const reconcile: ControllerReconciler<ConfigMap> = (req, ctx) =>
 *   req.object === undefined ? done() : apply(ctx.sinks, { cluster: req.cluster, resource: configMaps, object: req.object }).pipe(toAction());
 * ```
 * @packageDocumentation
 * @module rxfleet/sinks
 */
// First: fails clearly on an unsupported Node before anything else loads.
import '../internal/require-node.js';
export type { RetryOptions, RetryPolicy, SinkCluster, SinkClusters, SinkContext, SinkContextOptions, SinkOptions, WriteClient } from './context.js';
export { sinkContext } from './context.js';
export type { WriteChange, WriteError, WriteErrorType, WriteOutcome, WriteRefusal, WriteResult } from './result.js';
export type { WriteVerb } from '../core/verb.js';
export { refusal, writeFailed, written } from './result.js';
export type { SinkOperatorOptions } from './operator.js';
export { defaultSinkConcurrency, writeEach } from './operator.js';
export { thenWrite } from './then-write.js';
export { finalizerWrites } from './finalizer-writes.js';
export type { ApplyWrite } from './apply.js';
export { apply, applyEach } from './apply.js';
export type { PatchWrite } from './patch.js';
export { patch, patchEach } from './patch.js';
export type { Mutation, ReadModifyWriteOptions } from './conflict-retry.js';
export { readModifyWrite } from './conflict-retry.js';
export type { UpdateRecipe, UpdateWrite } from './update.js';
export { update, updateEach } from './update.js';
export type { CreateWrite } from './create.js';
export { create, createEach } from './create.js';
export type { DeleteWrite } from './delete-object.js';
export { deleteObject, deleteEach } from './delete-object.js';
export type { FinalizerWrite } from './ensure-finalizer.js';
export { ensureFinalizer, ensureFinalizerEach } from './ensure-finalizer.js';
export { removeFinalizer, removeFinalizerEach } from './remove-finalizer.js';
export type { EventRecord, EventRecorder, EventRecorderOptions } from './event-recorder.js';
export { eventRecorder } from './event-recorder.js';
export { referenceTo } from './kube-event.js';
export type { SourceIdentity } from './back-reference.js';
export {
  sourceClusterAnnotation,
  sourceLabel,
  sourceNameAnnotation,
  sourceNamespaceAnnotation,
  sourceResourceAnnotation,
  sourceUidAnnotation,
  backReference,
  readBackReference,
  sourceHash,
  sourceIdentity,
  sourceSelector,
  withBackReference,
} from './back-reference.js';
export type { TargetSearch } from './fleet-targets.js';
export type { ReleaseSourceWrite, DeleteTargetsWrite } from './release-source.js';
export { releaseSource, deleteTargets } from './release-source.js';
export type { SweepOrphansWrite } from './sweep-orphans.js';
export { sweepOrphans } from './sweep-orphans.js';
export { readOrNull } from './read.js';
export type { ApplyProof, ApplyProofInput } from './apply-proof.js';
export { applyChangesNothing } from './apply-proof.js';
export type { SinkCache } from './apply-cache.js';
