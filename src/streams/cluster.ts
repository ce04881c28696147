// The fleet's contracts: a cluster (a name plus its own client) and the lifecycle events providers emit.
// A provider is a cold Observable<FleetEvent>: subscribing starts discovery, unsubscribing disengages.
import type { Observable } from 'rxjs';
import type { ClusterName } from '../core/cluster.js';
import type { ClusterClient } from './client.js';

/**
 * One engaged cluster: its name in the fleet, its own client, and labels a provider may attach
 * (used by fan-out selectors).
 *
 * @example
 * ```ts
 * const east: Cluster = { name: clusterName('east'), client, labels: { region: 'eu' } };
 * ```
 */
export interface Cluster {
  readonly name: ClusterName;
  readonly client: ClusterClient;
  readonly labels?: Readonly<Record<string, string>>;
}

/**
 * A change in the fleet. A changed credential is `disengaged` followed by `engaged` with a new
 * {@link Cluster}, so nothing built on the old client survives.
 *
 * @example
 * ```ts
 * const events: FleetEvent[] = [engaged(east), disengaged(east.name)];
 * ```
 */
export type FleetEvent =
  | { readonly type: 'engaged'; readonly cluster: Cluster }
  | { readonly type: 'disengaged'; readonly name: ClusterName; readonly reason?: string };

/**
 * A source of clusters. Cold: subscribing starts discovery, unsubscribing stops it and disengages
 * everything it engaged.
 *
 * @example
 * ```ts
 * const provider: Provider = of(engaged(east), engaged(west));
 * ```
 */
export type Provider = Observable<FleetEvent>;

/**
 * The `engaged` event.
 *
 * @example
 * ```ts
 * engaged({ name: clusterName('east'), client });
 * ```
 * @param cluster - the cluster now in the fleet.
 * @returns the event.
 */
export function engaged(cluster: Cluster): FleetEvent {
  return Object.freeze({ type: 'engaged', cluster });
}

/**
 * The `disengaged` event.
 *
 * @example
 * ```ts
 * disengaged(clusterName('east'), 'kubeconfig Secret deleted');
 * ```
 * @param name - the cluster leaving the fleet.
 * @param reason - why, for logs and health.
 * @returns the event.
 */
export function disengaged(name: ClusterName, reason?: string): FleetEvent {
  return Object.freeze(reason === undefined ? { type: 'disengaged', name } : { type: 'disengaged', name, reason });
}

/**
 * A read-only view of the clusters engaged right now: what a reconciler uses to reach other
 * clusters (fan-out), and what sinks use to refuse writes to clusters not in the fleet.
 *
 * @example
 * ```ts
 * const west = fleet.get(clusterName('west'));
 * if (west === undefined) return; // not engaged (any more)
 * ```
 */
export interface FleetView {
  get(name: ClusterName): Cluster | undefined;
  /** The engaged clusters, in engagement order. */
  clusters(): readonly Cluster[];
}
