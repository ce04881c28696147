// rxfleet: Kubernetes controllers across a changing fleet of clusters, as RxJS pipelines.
// The root export holds the contracts, the per-cluster client, the streams (watch, store, fleet) and
// the runtime (controller, run, main); operators, sinks, providers and the testing kit have their own
// subpath exports.
export * from './core/index.js';
export * from './client/index.js';
export { E, O, pipe, flow } from './internal/fp.js';
export type { Either, Option } from './internal/fp.js';
export * from './streams/index.js';
export * from './runtime/index.js';
