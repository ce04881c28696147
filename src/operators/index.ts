/**
 * rxfleet/operators: the pipeline steps between keyed events and sinks, one operator per file: the
 * work queue (`reconcile`), predicates on changes, mapping other objects to keys, fan-out across the
 * fleet, per-key debounce and throttle, and finalizers. The result vocabulary a reconciler answers
 * with (`done`, `requeueAfter`, `error`, `terminal`) is in the root `rxfleet`.
 *
 * @example
 * ```ts
 * import { reconcile, generationChanged } from 'rxfleet/operators';
 * fleetWatch(fleet, configMaps).pipe(generationChanged(), reconcile((req) => done(), { concurrency: 4 })).subscribe();
 * ```
 * @packageDocumentation
 * @module rxfleet/operators
 */
// First: fails clearly on an unsupported Node before anything else loads.
import '../internal/require-node.js';
export type { EnqueueRequest, ObjectEvent, Outcome, OutcomeResult, QueueDepth, Reconciler } from './types.js';
export { enqueue } from './types.js';
export type { QueueOptions, ReconcileOptions } from './reconcile.js';
export type { QueueObserver, QueueProbe, RunningWork } from './queue-observer.js';
export { reconcile } from './reconcile.js';
export { predicate } from './predicate.js';
export { generationChanged } from './generationChanged.js';
export { labelsChanged } from './labelsChanged.js';
export { annotationsChanged } from './annotationsChanged.js';
export { resourceVersionChanged } from './resourceVersionChanged.js';
export { mapToKeys } from './mapToKeys.js';
export { mapToOwner } from './mapToOwner.js';
export type { FanOutOptions, FanOutItem } from './fanOut.js';
export { fanOut } from './fanOut.js';
export type { DebounceByKeyOptions, DebounceOptions } from './debounceByKey.js';
export { debounceByKey } from './debounceByKey.js';
export type { ThrottleByKeyOptions } from './throttleByKey.js';
export { throttleByKey } from './throttleByKey.js';
export type { WithFinalizerOptions, FinalizerWrites } from './withFinalizer.js';
export { withFinalizer } from './withFinalizer.js';
