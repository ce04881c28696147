// Shared pieces of the sinks' integration tests: a FleetView over sandboxes, and a client that
// counts the requests a sink hands it.
import type { ClusterClient } from '../../src/client/index.js';
import type { Cluster, ClusterName, FleetView } from '../../src/index.js';
import type { SinkClusters, WriteClient } from '../../src/sinks/index.js';

/** A FleetView over fixed clusters: what a provider-driven fleet would show at one moment. */
export function fixedFleet(clusters: readonly { readonly cluster: ClusterName; readonly client: ClusterClient }[]): FleetView {
  const all: readonly Cluster[] = clusters.map((c) => ({ name: c.cluster, client: c.client }));
  return { get: (name: ClusterName) => all.find((c) => c.name === name), clusters: () => all };
}

/** One cluster whose client records the method of every call (`calls`) before passing it on. */
export function countingFleet(cluster: ClusterName, client: ClusterClient): { readonly fleet: SinkClusters; readonly calls: string[] } {
  const calls: string[] = [];
  const counted: WriteClient = {
    get: (r, name, opts) => (calls.push('get'), client.get(r, name, opts)),
    listAll: (r, opts) => (calls.push('listAll'), client.listAll(r, opts)),
    create: (r, obj, opts) => (calls.push('create'), client.create(r, obj, opts)),
    update: (r, obj, opts) => (calls.push('update'), client.update(r, obj, opts)),
    apply: (r, obj, opts) => (calls.push('apply'), client.apply(r, obj, opts)),
    patch: (r, name, p, opts) => (calls.push('patch'), client.patch(r, name, p, opts)),
    delete: (r, name, opts) => (calls.push('delete'), client.delete(r, name, opts)),
  };
  const only = { name: cluster, client: counted };
  return { fleet: { get: (name) => (name === cluster ? only : undefined), clusters: () => [only] }, calls };
}
