// namespaces-local: every namespace labelled `rxfleet.dev/tenant=true` on ONE server is a cluster
// of the fleet (the namespaces provider), so fleet controllers can be tried on a laptop's single
// cluster. The controller keeps a `tenant-settings` ConfigMap in each of them, reverting drift.
import { map } from 'rxjs';
import type { Cluster, ConfigMap, Controller } from 'rxfleet';
import { configMaps, controller, done, objectKey, toAction } from 'rxfleet';
import { enqueue } from 'rxfleet/operators';
import { namespaceLabel, namespaceProvider } from 'rxfleet/providers/namespaces';
import { apply } from 'rxfleet/sinks';

export const SETTINGS = 'tenant-settings';
export const TENANT_SELECTOR = 'rxfleet.dev/tenant=true';

/** Builds the controller over the namespaces of `server` that match `labelSelector`. */
export function tenantSettingsController(server: Cluster, labelSelector = TENANT_SELECTOR): Controller<ConfigMap> {
  return controller({
    name: 'tenant-settings',
    provider: namespaceProvider({ management: server, labelSelector }),
    resource: configMaps,
    // A namespace-cluster's client is scoped to its namespace: no namespace option is needed.
    select: { fieldSelector: `metadata.name=${SETTINGS}` },
    inputs: ({ fleet }) => [
      fleet.engagements.pipe(map(({ cluster }) => enqueue(objectKey(cluster.name, cluster.labels?.[namespaceLabel] ?? '', SETTINGS), configMaps))),
    ],
    reconcile: (req, ctx) => {
      const namespace = ctx.fleet.get(req.cluster)?.labels?.[namespaceLabel];
      if (namespace === undefined) return done(); // the namespace left the fleet meanwhile
      const desired: ConfigMap = { metadata: { name: SETTINGS, namespace }, data: { tenant: namespace, quota: 'small' } };
      return apply(ctx.sinks, { cluster: req.cluster, resource: configMaps, object: desired }).pipe(toAction());
    },
  });
}
