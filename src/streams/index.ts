/**
 * rxfleet/streams: the fleet and what runs over it. The contracts (a {@link Cluster}, the
 * {@link FleetEvent}s a {@link Provider} emits, its {@link ProviderReport}s and the options every
 * provider takes), the fleet (`createFleet`, `staticProvider`), resilient watches (`watchEvents`,
 * `watchSignals`), stores and shared informers, the keyed stream across the fleet (`fleetWatch`),
 * the shared caches a provider can serve its clusters from (`splitWatches`, `splitCache`), and the
 * one backoff. Read in flow order: fleet → watch → store → informers → keyed merge.
 *
 * @example
 * ```ts
 * import { createFleet, fleetWatch, staticProvider } from 'rxfleet/streams';
 * const fleet = createFleet(staticProvider([east, west]));
 * fleetWatch(fleet, configMaps, { namespace: 'default' }).subscribe((ev) => console.log(ev.type === 'clusterRemoved' ? ev.cluster : formatKey(ev.key)));
 * ```
 * @packageDocumentation
 * @module rxfleet/streams
 */
// The contracts: clusters, providers and what they emit.
// First: fails clearly on an unsupported Node before anything else loads.
import '../internal/require-node.js';
export type { CacheView, CacheViewOptions, Cluster, ClusterCache, ClusterIdentity, FleetEvent, FleetView, Provider, Selection } from './cluster.js';
export { disengaged, engaged, reported } from './cluster.js';
export type { ProviderReport } from './provider-report.js';
export type { ContactOptions, ContactProbe, ProviderOptions } from './provider-options.js';
export type { KeyedEvent, WatchEvent } from './events.js';
// The fleet.
export type { CreateFleetOptions, EngagedCluster, Fleet } from './fleet.js';
export { createFleet } from './fleet.js';
export { staticProvider } from './static-provider.js';
// Watches of one cluster.
export type { WatchStreamOptions } from './watch-config.js';
export type { ManagementWatchOptions, WatchesOptions } from './watched.js';
export type { ListerWatcher } from './watch-source.js';
export { clusterListerWatcher } from './watch-source.js';
export { defaultPageSize, listPages } from './list-pages.js';
export type { SharedWatch, WatchHealth, WatchSignal, WatchState } from './watch-health.js';
export type { WatchSignalsOptions } from './watch-signals.js';
export { watchSignals } from './watch-signals.js';
export { signalEvents } from './signal-events.js';
export { signalHealth } from './signal-health.js';
export type { WatchEventsOptions } from './watch.js';
export { watchEvents } from './watch.js';
// Stores and informers.
export type { Indexer, Store, StoreOptions, StoreView, StoreWriter } from './store.js';
export { createStore } from './store.js';
export { reflect } from './reflect.js';
export type { CreateInformersOptions, Informer, InformerOptions, Informers, InformersOptions } from './informers.js';
export { createInformers } from './informers.js';
export type { ListPacer, ListTurn } from './list-pacing.js';
export { defaultListsPerServer, listPacer } from './list-pacing.js';
// Across the fleet.
export { toKeyedEvents } from './to-keyed-events.js';
export type { FleetWatchOptions } from './fleet-watch.js';
export { fleetWatch } from './fleet-watch.js';
// Shared caches: one watch serving many clusters (for providers of clusters that share a server).
export type { SplitCache, SplitCacheOptions } from './split-cache.js';
export { splitCache } from './split-cache.js';
export type { SplitWatches, SplitWatchesOptions } from './split-watches.js';
export { splitWatches } from './split-watches.js';
// Retry and rate.
export type { Backoff } from './backoff.js';
export { backoffDelay, defaultAuthBackoff, defaultBackoff } from './backoff.js';
export type { RateLimit, TokenBucket } from '../core/token-bucket.js';
