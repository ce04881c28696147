// The streams layer: resilient watches, reflectors and stores, shared informers, the fleet and
// its keyed stream. Read in flow order: fleet → watch → store → informers → keyed merge.
export type { KeyedEvent, WatchEvent } from './events.js';
export type { EngagedCluster, Fleet } from './fleet.js';
export { createFleet } from './fleet.js';
export { staticProvider } from './static-provider.js';
export type { BackoffConfig } from './backoff.js';
export { backoffCeiling, backoffDelay, defaultAuthBackoff, defaultBackoff } from './backoff.js';
export type { WatchConfig } from './watch-config.js';
export { initialEventsEndAnnotation } from './watch-config.js';
export type { WatchSource } from './watch-source.js';
export { clusterWatchSource } from './watch-source.js';
export { defaultPageSize, listPages } from './list-pages.js';
export { preparedObject } from './prepared-object.js';
export type { WatchHealth, WatchSignal, WatchState } from './watch-health.js';
export type { WatchMachineConfig } from './watch-signals.js';
export { watchSignals } from './watch-signals.js';
export { signalEvents } from './signal-events.js';
export { signalHealth } from './signal-health.js';
export type { WatchStreamOptions } from './watch.js';
export { watch } from './watch.js';
export type { Indexer, Store, StoreOptions, StoreView, StoreWriter } from './store.js';
export { createStore } from './store.js';
export { reflect } from './reflect.js';
export type { Informer, InformerOptions, Informers, InformersConfig, Selection } from './informers.js';
export { createInformers } from './informers.js';
export { toKeyedEvents } from './to-keyed-events.js';
export type { FleetWatchOptions } from './fleet-watch.js';
export { fleetWatch } from './fleet-watch.js';
