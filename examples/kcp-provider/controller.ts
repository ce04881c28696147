// kcp-provider: a service provider on kcp. Consumer workspaces bind the provider's MongoDB
// APIExport and create instances; this controller projects each instance into a downstream
// cluster (a ConfigMap standing in for the real database) and writes its phase and endpoint back
// to the instance, through the client of the instance's own workspace. Deleting an instance
// deletes its downstream object first (a finalizer: owner references cannot leave a workspace).
import { createHash } from 'node:crypto';
import type { Observable } from 'rxjs';
import { concatMap, merge, of } from 'rxjs';
import { resourceId } from 'rxfleet/client';
import type { Action, Cluster, ClusterName, ConfigMap, Controller, ControllerContext, Provider, ReconcileInput, ReconcileRequest } from 'rxfleet';
import { clusterName, configMaps, controller, done, error, isLeft, objectKey, toAction } from 'rxfleet';
import { mapToKeys, withFinalizer } from 'rxfleet/operators';
import type { SourceIdentity } from 'rxfleet/sinks';
import { apply, finalizerWrites, patch, readBackReference, deleteTargets, sourceIdentity, withBackReference } from 'rxfleet/sinks';
import type { MongoDB, MongoDBStatus } from './api.js';
import { mongodbs } from './api.js';

export const FINALIZER = 'databases.example.dev/downstream';
/** The downstream cluster's name in the fleet (kcp logical cluster names never look like this). */
export const DOWNSTREAM = clusterName('downstream');
export const MANAGED_BY = 'app.kubernetes.io/managed-by';
export const NAME = 'kcp-provider';

const isDownstream = (c: Cluster): boolean => c.name === DOWNSTREAM;

export interface KcpControllerOptions {
  /** The APIExport's consumers (`apiExportProvider(...)`): each bound workspace is a cluster of the fleet. */
  readonly kcp: Provider;
  /** The downstream cluster, engaged under the name {@link DOWNSTREAM}. */
  readonly downstream: Provider;
  /** The downstream namespace the projections go to (it must exist). */
  readonly namespace: string;
}

/**
 * The downstream object's name: `mongodb-<logical cluster>-<namespace>-<name>`, unique across
 * consumers (the same namespace/name in two workspaces never collides); hashed when too long.
 */
export function downstreamName(cluster: ClusterName, namespace: string, name: string): string {
  const full = `mongodb-${cluster}-${namespace}-${name}`;
  return full.length <= 253 ? full : `mongodb-${createHash('sha256').update(full).digest('hex').slice(0, 40)}`;
}

/** What consumers get as their endpoint: the downstream object's in-cluster address. */
export function endpointOf(projection: ConfigMap): string {
  return `mongodb://${projection.metadata.name ?? ''}.${projection.metadata.namespace ?? ''}.svc:27017`;
}

/** Projects one instance downstream, then writes its status back to the instance's workspace. */
function provision(req: ReconcileRequest<MongoDB>, db: MongoDB, namespace: string, ctx: ControllerContext): Observable<Action> {
  const source = sourceIdentity(req.cluster, mongodbs, db);
  const projection = withBackReference<ConfigMap>(
    {
      metadata: { name: downstreamName(req.cluster, req.key.namespace, req.key.name), namespace, labels: { [MANAGED_BY]: NAME } },
      data: { version: db.spec.version, storageGB: String(db.spec.storageGB) },
    },
    source,
  );
  return apply(ctx.sinks, { cluster: DOWNSTREAM, resource: configMaps, object: projection }).pipe(
    concatMap((applied) => {
      if (isLeft(applied)) return of(error(applied.left));
      const status: Required<MongoDBStatus> = { phase: 'Provisioned', endpoint: endpointOf(applied.right.object ?? projection), observedGeneration: db.metadata.generation ?? 0 };
      const now = db.status;
      if (now?.phase === status.phase && now.endpoint === status.endpoint && now.observedGeneration === status.observedGeneration) return of(done());
      // req.key names the instance's workspace: the write goes through that workspace's client only.
      return patch(ctx.sinks, { key: req.key, resource: mongodbs, subresource: 'status', patch: { status: status }, current: db }).pipe(toAction());
    }),
  );
}

/** Deletes the instance's projection (found by its back-reference, deleted with a uid precondition). */
function deprovision(source: SourceIdentity, ctx: ControllerContext): Observable<Action> {
  return deleteTargets(ctx.sinks, { source, targets: [configMaps], clusters: [DOWNSTREAM] }).pipe(toAction());
}

/**
 * The controller. Instances are watched like any resource: in each consumer workspace, the
 * runtime's informer is a view of the export's one wildcard watch per shard (the workspace's
 * `cache`), so N workspaces cost no N watches; a workspace is ready once that watch has listed.
 * The downstream cluster is left out of the primary watch (it serves no MongoDBs). The projections
 * are watched downstream so a deleted or edited one is put back.
 */
export function kcpProviderController(options: KcpControllerOptions): Controller<MongoDB> {
  const { namespace } = options;
  return controller({
    name: NAME,
    provider: merge(options.kcp, options.downstream),
    resource: mongodbs,
    select: { clusterSelector: (c) => !isDownstream(c) },
    inputs: ({ fleetWatch }): Observable<ReconcileInput<MongoDB>>[] => [
      // A projection changed or deleted downstream wakes the instance it points back to.
      fleetWatch(configMaps, { namespace, labelSelector: `${MANAGED_BY}=${NAME}`, clusterSelector: isDownstream }).pipe(
        mapToKeys(mongodbs, (ev) => {
          const src = readBackReference(ev.object);
          return src?.resource === resourceId(mongodbs) ? [objectKey(src.cluster, src.namespace, src.name)] : [];
        }),
      ),
    ],
    reconcile: (req, ctx) =>
      withFinalizer<MongoDB>({
        finalizer: FINALIZER,
        writes: finalizerWrites(ctx.sinks, mongodbs),
        apply: (r) => (r.object === undefined ? done() : provision(r, r.object, namespace, ctx)),
        cleanup: (r) => (r.object === undefined ? done() : deprovision(sourceIdentity(r.cluster, mongodbs, r.object), ctx)),
      })(req, ctx),
  });
}
