// The publisher: a controller over the service cluster's CRDs that keeps kcp serving them. For a
// published CRD it makes the APIResourceSchema (a new name when the schema changed: they are
// immutable) and points the APIExport's entry at it, keeping every other entry and claim. It also
// watches the export, so an entry someone removed or changed by hand is put back.
import type { Observable } from 'rxjs';
import { concatMap, from, of, toArray } from 'rxjs';
import type { ObjectKey } from 'rxfleet';
import { objectKey } from 'rxfleet';
import type { KubeObject } from 'rxfleet';
import type { ResourceDescriptor } from 'rxfleet';
import { customResourceDefinitions } from 'rxfleet';
import { E } from 'rxfleet/fp';
import type { Action } from 'rxfleet';
import { done, error, requeueAfter, terminal } from 'rxfleet';
import { mapToKeys } from 'rxfleet/operators';
import type { CustomResourceDefinition } from 'rxfleet/resources';
import type { Controller, ControllerContext } from 'rxfleet';
import { controller } from 'rxfleet';
import { create } from 'rxfleet/sinks';
import type { Mutation } from 'rxfleet/sinks';
import { readModifyWrite } from 'rxfleet/sinks';
import { readOrNull } from 'rxfleet/sinks';
import { refusal } from 'rxfleet/sinks';
import type { Cluster, Provider } from 'rxfleet/streams';
import type { ClusterName } from 'rxfleet';
import { exportCluster, isConsumer, isExport, isService, serviceCluster } from './clusters.js';
import { exportChanged, exportOwner, mergeExport, relatedClaims } from './export-merge.js';
import type { APIExport, APIResourceSchema, ExportResource, PermissionClaim } from 'rxfleet/providers/kcp';
import { apiExports, apiResourceSchemas } from 'rxfleet/providers/kcp';
import { defaultAgentName } from './labels.js';
import type { PublishedPlan } from './plan.js';
import { apiResourceSchemaOf, exportEntry } from './schema.js';

// CRDs read as plain objects, so the publisher is a Controller<KubeObject> like the sync controllers.
const crds: ResourceDescriptor = customResourceDefinitions;


/**
 * What {@link publisherController} needs besides the plans.
 *
 * @example
 * ```ts
 * const o: PublisherOptions = { provider, apiExport: 'databases.example.dev' };
 * ```
 */
export interface PublisherOptions {
  /** The agent's one provider: it must engage {@link serviceCluster} and {@link exportCluster}. */
  readonly provider: Provider;
  /** The APIExport's name in the provider workspace. */
  readonly apiExport: string;
  /**
   * The provider workspace's fleet name: {@link exportCluster} (the default), or another
   * installation's (`eu#kcp-export`, see `installationCluster`), whose APIExport it then keeps.
   */
  readonly exportCluster?: ClusterName;
  /** The controller's name (metrics, logs); default `publisher`. */
  readonly name?: string;
  /** The agent's name (field manager, labels); default the plans', else `rxfleet-sync`: give it when there may be no plan. */
  readonly agentName?: string;
}

/**
 * The publisher controller. Its primary resource is CRDs on the service cluster; for each change
 * of a published CRD it:
 * 1. converts it (`apiResourceSchemaOf`); a CRD that no longer fits the plan (its sync
 *    version gone or unserved) is reported (terminal: the next CRD change retries) and nothing is written;
 * 2. creates the APIResourceSchema in the provider workspace when it is missing;
 * 3. updates the APIExport by read-modify-write (`mergeExport`): its own group+resource
 *    entries replaced, others kept, permission claims for related Secrets/ConfigMaps ensured, the
 *    agent annotation set; an export annotated for another agent is refused; a missing one is created.
 *
 * A deleted CRD changes nothing in kcp (consumers keep their API and data; an admin removes the
 * export entry deliberately). Writes go through the controller's sinks under the agent's field
 * manager; one reconcile at a time, so two CRDs never race to create the export.
 *
 * @example
 * ```ts
 * const plans = await preflight(config, { service, kcp });
 * const handle = await run([publisherController(plans, { provider, apiExport: config.apiExport })]);
 * ```
 * @param plans - the plans preflight returned.
 * @param options - the provider and the APIExport's name.
 * @returns the controller, typed over `KubeObject` (its objects are CRDs) so it sits in one
 *   `run([...])` list with the sync controllers.
 */
export function publisherController(plans: readonly PublishedPlan[], options: PublisherOptions): Controller<KubeObject> {
  const agentName = options.agentName ?? plans[0]?.agentName ?? defaultAgentName;
  const target = options.exportCluster ?? exportCluster;
  const isTarget = (c: Cluster): boolean => (target === exportCluster ? isExport(c) : c.name === target && !isConsumer(c));
  const claims = relatedClaims(plans);
  const crdName = (p: PublishedPlan): string => `${p.service.plural}.${p.service.group}`;
  const publishedCrds: readonly ObjectKey[] = [...new Set(plans.map(crdName))].map((n) => objectKey(serviceCluster, '', n));
  return controller({
    name: options.name ?? 'publisher',
    fieldManager: agentName,
    provider: options.provider,
    resource: crds,
    select: { clusterSelector: isService },
    queue: { concurrency: 1 },
    inputs: ({ fleetWatch }) => [
      // The export changed (by hand, or by another writer): every published CRD is checked again.
      fleetWatch(apiExports, { clusterSelector: isTarget, fieldSelector: `metadata.name=${options.apiExport}` }).pipe(mapToKeys(crds, () => publishedCrds)),
    ],
    writes: [
      { resource: apiResourceSchemas, verbs: ['create'], clusterSelector: isTarget },
      { resource: apiExports, verbs: ['create', 'update'], clusterSelector: isTarget },
    ],
    watches: [{ resource: apiResourceSchemas, clusterSelector: isTarget }],
    // The CRDs are read on one, the export written on the other: /readyz holds back while either is forbidden or unreachable.
    requiredClusters: [serviceCluster, target],
    reconcile: (req, ctx) => {
      const crd = req.object as CustomResourceDefinition | undefined;
      const mine = plans.filter((p) => crdName(p) === req.key.name);
      if (mine.length === 0) return done();
      if (crd === undefined) {
        // Not in the cache: deleted, or the export's watch woke this key before the CRDs were
        // listed (at every start). Only the server can tell; a CRD still there is simply retried.
        return readOrNull(ctx.sinks, crds, req.key).pipe(
          concatMap((got): Observable<Action> => {
            if (E.isLeft(got)) return of(error(got.left));
            if (got.right !== null) return of(requeueAfter(1_000));
            ctx.logger.warn({ crd: req.key.name }, 'a published CRD was deleted on the service cluster; its schema stays in the APIExport');
            return of(done());
          }),
        );
      }
      const made: { plan: PublishedPlan; schema: APIResourceSchema }[] = [];
      for (const plan of mine) {
        const s = apiResourceSchemaOf(crd, plan.published, agentName);
        // The sync controllers read and write the plan's version: a CRD that stops publishing it cannot be rolled out.
        const problems = s.type === 'invalid' ? s.problems : s.schema.spec.versions.some((v) => v.name === plan.kcp.version) ? [] : [`the sync version ${plan.service.version} is no longer published as ${plan.kcp.version}`];
        if (s.type === 'invalid' || problems.length > 0) {
          return terminal(new Error(`published "${plan.published.name}": CRD ${req.key.name} on the service cluster ${serviceCluster} cannot be published: ${problems.join('; ')}`));
        }
        made.push({ plan, schema: s.schema });
      }
      return from(made).pipe(
        concatMap(({ plan, schema }) => ensureSchema(ctx, target, plan, schema)),
        toArray(),
        concatMap((results) => {
          const failed = results.find((r) => r.type === 'error');
          if (failed !== undefined) return of(failed);
          return updateExport(ctx, target, options.apiExport, agentName, made.map((m) => exportEntry(m.schema)), claims);
        }),
      );
    },
  });
}

// The ARS is created once under its hash name; an existing one (made by an earlier run, or restored) is used as it is.
function ensureSchema(ctx: ControllerContext, exportCluster: ClusterName, plan: PublishedPlan, schema: APIResourceSchema): Observable<Action> {
  const name = schema.metadata.name ?? '';
  return readOrNull(ctx.sinks, apiResourceSchemas, objectKey(exportCluster, '', name)).pipe(
    concatMap((got) => {
      if (E.isLeft(got)) return of(error(got.left));
      if (got.right !== null) return of(done());
      return create(ctx.sinks, { cluster: exportCluster, resource: apiResourceSchemas, object: schema }).pipe(
        concatMap((o) => {
          if (E.isLeft(o) && o.left.type !== 'AlreadyExists') return of(error(o.left));
          ctx.logger.info({ published: plan.published.name, schema: name }, 'created APIResourceSchema');
          return of(done());
        }),
      );
    }),
  );
}

function updateExport(ctx: ControllerContext, exportCluster: ClusterName, name: string, agentName: string, entries: readonly ExportResource[], claims: readonly PermissionClaim[]): Observable<Action> {
  const key = objectKey(exportCluster, '', name);
  let keptBy: string | undefined;
  const step = (current: APIExport): Mutation<APIExport> => {
    const owner = exportOwner(current);
    keptBy = owner !== undefined && owner !== agentName ? owner : undefined;
    if (keptBy !== undefined) return { type: 'refuse', error: refusal('Conflict', key, `APIExport ${name} is kept by agent "${keptBy}", not "${agentName}"; not changing it`) };
    const next = mergeExport(current, agentName, entries, claims);
    return exportChanged(current, next) ? { type: 'write', object: next } : { type: 'unchanged' };
  };
  return readModifyWrite(ctx.sinks, apiExports, key, step, { missing: 'unchanged' }).pipe(
    concatMap((o) => {
      // Another agent's export stays refused until someone changes it: retrying would only repeat the refusal.
      if (E.isLeft(o)) return of(keptBy !== undefined ? terminal(o.left) : error(o.left));
      if (o.right.object !== undefined) {
        if (o.right.changed === true) ctx.logger.info({ apiExport: name, resources: entries.map((e) => e.schema) }, 'updated APIExport');
        return of(done());
      }
      const fresh = mergeExport({ metadata: { name } }, agentName, entries, claims);
      return create(ctx.sinks, { cluster: exportCluster, resource: apiExports, object: fresh }).pipe(
        concatMap((c) => {
          if (E.isLeft(c)) return of(error(c.left));
          ctx.logger.info({ apiExport: name, resources: entries.map((e) => e.schema) }, 'created APIExport');
          return of(done());
        }),
      );
    }),
  );
}
