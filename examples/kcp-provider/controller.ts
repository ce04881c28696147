// kcp-provider: a service provider on kcp. Consumer workspaces bind the provider's MongoDB
// APIExport and create instances; this controller projects each instance into a downstream
// cluster (a ConfigMap standing in for the real database) and writes its phase and endpoint back
// to the instance, through the client of the instance's own workspace. Deleting an instance
// deletes its downstream object first (a finalizer: owner references cannot leave a workspace).
import { createHash } from 'node:crypto';
import type { Observable } from 'rxjs';
import { concatMap, map, merge, of, toArray } from 'rxjs';
import type { Cluster, ClusterName, ConfigMap, Provider } from '../../src/index.js';
import { clusterName, configMaps, E, objectKey, resourceId } from '../../src/index.js';
import type { Action, ReconcileInput, ReconcileRequest } from '../../src/operators/index.js';
import { done, error, mapToKeys, withFinalizer } from '../../src/operators/index.js';
import type { ApiExportFleet } from '../../src/providers/kcp/index.js';
import type { Controller, ControllerContext } from '../../src/runtime/index.js';
import { controller } from '../../src/runtime/index.js';
import type { SourceIdentity, WriteOutcome } from '../../src/sinks/index.js';
import { apply, ensureFinalizer, patchStatus, readBackReference, removeFinalizer, removeTargets, sourceIdentity, withBackReference } from '../../src/sinks/index.js';
import type { MongoDB, MongoDBStatus } from './api.js';
import { mongodbs } from './api.js';

export const FINALIZER = 'databases.example.dev/downstream';
/** The downstream cluster's name in the fleet (kcp logical cluster names never look like this). */
export const DOWNSTREAM = clusterName('downstream');
export const MANAGED_BY = 'app.kubernetes.io/managed-by';
export const NAME = 'kcp-provider';

const isDownstream = (c: Cluster): boolean => c.name === DOWNSTREAM;

export interface KcpProviderOptions {
  /** The APIExport's consumers: provider, keyed events and cache of the instances. */
  readonly kcp: ApiExportFleet;
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

const toAction = (outcomes: readonly WriteOutcome[]): Action => {
  const failed = outcomes.find(E.isLeft);
  return failed === undefined ? done() : error(failed.left);
};

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
      if (E.isLeft(applied)) return of(error(applied.left));
      const status: Required<MongoDBStatus> = { phase: 'Provisioned', endpoint: endpointOf(applied.right.object ?? projection), observedGeneration: db.metadata.generation ?? 0 };
      const now = db.status;
      if (now?.phase === status.phase && now.endpoint === status.endpoint && now.observedGeneration === status.observedGeneration) return of(done());
      // req.key names the instance's workspace: the write goes through that workspace's client only.
      return patchStatus(ctx.sinks, { key: req.key, resource: mongodbs, status, current: db }).pipe(map((o) => toAction([o])));
    }),
  );
}

/** Deletes the instance's projection (found by its back-reference, deleted with a uid precondition). */
function deprovision(source: SourceIdentity, ctx: ControllerContext): Observable<Action> {
  return removeTargets(ctx.sinks, { source, targets: [configMaps], clusters: [DOWNSTREAM] }).pipe(toArray(), map(toAction));
}

/**
 * The controller. Instances come from the export's wildcard cache (the controller's `source`: one
 * watch per shard, none per workspace), not from a watch of the runtime's; a workspace is ready
 * once that cache has listed its shard. The projections are watched downstream so a deleted or
 * edited one is put back.
 */
export function kcpProviderController(options: KcpProviderOptions): Controller<MongoDB> {
  const { kcp, namespace } = options;
  return controller({
    name: NAME,
    provider: merge(kcp.provider, options.downstream),
    resource: mongodbs,
    // Events, reads (req.object) and readiness of the instances come from the export's cache.
    source: { events: kcp.events(mongodbs), lookup: kcp.lookup(mongodbs), synced: kcp.synced(mongodbs), clusters: (c) => !isDownstream(c) },
    inputs: ({ watch }): Observable<ReconcileInput<MongoDB>>[] => [
      // A projection changed or deleted downstream wakes the instance it points back to.
      watch(configMaps, { namespace, labelSelector: `${MANAGED_BY}=${NAME}`, clusters: isDownstream }).pipe(
        mapToKeys(mongodbs, (ev) => {
          const src = readBackReference(ev.object);
          return src?.resource === resourceId(mongodbs) ? [objectKey(src.cluster, src.namespace, src.name)] : [];
        }),
      ),
    ],
    reconcile: (req, ctx) =>
      withFinalizer<MongoDB>({
        finalizer: FINALIZER,
        ensure: (key) => ensureFinalizer(ctx.sinks, { key, resource: mongodbs, finalizer: FINALIZER }),
        remove: (key) => removeFinalizer(ctx.sinks, { key, resource: mongodbs, finalizer: FINALIZER }),
        apply: (r) => (r.object === undefined ? done() : provision(r, r.object, namespace, ctx)),
        cleanup: (r) => (r.object === undefined ? done() : deprovision(sourceIdentity(r.cluster, mongodbs, r.object), ctx)),
      })(req, ctx),
  });
}
