// Shared piece of the sinks' integration tests: a FleetView over sandboxes.
import type { ClusterClient } from '../../src/client/index.js';
import type { Cluster, ClusterName, FleetView } from '../../src/index.js';

/** A FleetView over fixed clusters: what a provider-driven fleet would show at one moment. */
export function fixedFleet(clusters: readonly { readonly cluster: ClusterName; readonly client: ClusterClient }[]): FleetView {
  const all: readonly Cluster[] = clusters.map((c) => ({ name: c.cluster, client: c.client }));
  return { get: (name: ClusterName) => all.find((c) => c.name === name), clusters: () => all };
}
