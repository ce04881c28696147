// rxfleet/operators: the pipeline step between keyed events and sinks. One operator per file.
export type { Action } from './actions.js';
export { awaitChange, done, error, isAction, requeueAfter, terminal } from './actions.js';
export type {
  EnqueueRequest,
  ObjectEvent,
  Outcome,
  OutcomeResult,
  QueueDepth,
  ReconcileContext,
  ReconcileInput,
  ReconcileRequest,
  Reconciler,
} from './types.js';
export { enqueue } from './types.js';
export type { ReconcileConfig } from './reconcile.js';
export { reconcile } from './reconcile.js';
export { predicate } from './predicate.js';
export { generationChanged } from './generationChanged.js';
export { labelsChanged } from './labelsChanged.js';
export { annotationsChanged } from './annotationsChanged.js';
export { resourceVersionChanged } from './resourceVersionChanged.js';
export { mapToKeys } from './mapToKeys.js';
export { mapToOwner } from './mapToOwner.js';
export type { FanOutConfig, FanOutItem, LabelSelector } from './fanOut.js';
export { fanOut } from './fanOut.js';
export type { DebounceByKeyConfig } from './debounceByKey.js';
export { debounceByKey } from './debounceByKey.js';
export { throttleByKey } from './throttleByKey.js';
export type { FinalizerConfig, FinalizerWrites } from './withFinalizer.js';
export { withFinalizer } from './withFinalizer.js';
