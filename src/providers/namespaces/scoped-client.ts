// A view of the management client in which one namespace is the default: what makes a namespace
// look like a cluster of its own to code written for whole clusters.
import type { ClusterClient } from '../../client/client.js';
import type { ClusterName } from '../../core/cluster.js';
import { renamedClient } from '../internal/renamed-client.js';

/**
 * The management client with `namespace` filled in wherever a namespaced call leaves it out
 * (`get`, `list`, `listAll`, `watch`, writes of objects without `metadata.namespace`, `patch`,
 * `delete`). An explicit namespace still wins (`''` asks for all namespaces). Cluster-scoped
 * resources are untouched. Its errors name `cluster`, not the management cluster (a failure is
 * logged and counted against the namespace-cluster). `close()` does nothing: the client is
 * shared, and stays its owner's.
 *
 * @example
 * ```ts
 * const teamA = scopedClient(hub.client, clusterName('team-a'), 'team-a');
 * await teamA.list(configMaps); // lists team-a's ConfigMaps
 * ```
 * @param management - the management cluster's client.
 * @param cluster - the name this view reports as its cluster.
 * @param namespace - the default namespace.
 * @returns the scoped client.
 */
export function scopedClient(management: ClusterClient, cluster: ClusterName, namespace: string): ClusterClient {
  const base = renamedClient(management, cluster);
  const ns = <O extends { readonly namespace?: string }>(opts: O | undefined): O & { readonly namespace: string } =>
    ({ ...opts, namespace: opts?.namespace ?? namespace }) as O & { readonly namespace: string };
  return Object.freeze({
    cluster,
    server: base.server,
    get: (r, name, opts) => base.get(r, name, ns(opts)),
    list: (r, opts) => base.list(r, ns(opts)),
    listAll: (r, opts) => base.listAll(r, ns(opts)),
    watch: (r, opts) => base.watch(r, ns(opts)),
    create: (r, obj, opts) => base.create(r, obj, ns(opts)),
    update: (r, obj, opts) => base.update(r, obj, ns(opts)),
    apply: (r, obj, opts) => base.apply(r, obj, ns(opts)),
    patch: (r, name, patch, opts) => base.patch(r, name, patch, ns(opts)),
    delete: (r, name, opts) => base.delete(r, name, ns(opts)),
    raw: (req) => base.raw(req),
    close: () => undefined,
  } satisfies ClusterClient);
}
