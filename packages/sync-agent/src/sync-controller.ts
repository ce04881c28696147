// One published resource, synced: an ordinary rxfleet controller over the consumer objects in every
// bound workspace. Its inputs are the service copies (mapped back by back-reference), the related
// kinds on both sides, and an orphan sweep once the workspaces are discovered; its reconciler wraps
// down, up and related syncs in a finalizer whose cleanup deletes the service-side objects first.
import type { Observable } from 'rxjs';
import { EMPTY, ReplaySubject, concat, concatMap, filter, finalize, from, ignoreElements, map, reduce, take, tap, toArray } from 'rxjs';
import type { KubeObject } from 'rxfleet';
import type { ResourceDescriptor } from 'rxfleet';
import { resourceId } from 'rxfleet/client';
import { E } from 'rxfleet/fp';
import type { Action } from 'rxfleet';
import { controller, done, error, namespaces, objectKey, requeueAfter, terminal, toAction } from 'rxfleet';
import { mapToKeys } from 'rxfleet/operators';
import type { ReconcileInput } from 'rxfleet';
import { withFinalizer } from 'rxfleet/operators';
import type { Controller, ControllerContext, InputContext } from 'rxfleet';
import { finalizerWrites, readBackReference, sourceIdentity, sweepOrphans } from 'rxfleet/sinks';
import type { Provider } from 'rxfleet/streams';
import type { ReconcileRequest } from 'rxfleet';
import type { WriteOutcome } from 'rxfleet/sinks';
import { isConsumer, isService, serviceCluster } from './clusters.js';
import { namespacePrefixOf } from './installations.js';
import { agentLabel, relatedLabel, syncFinalizer } from './labels.js';
import { keptIdentifiers } from './related-keep.js';
import { serviceName } from './naming.js';
import type { PublishedPlan } from './plan.js';
import type { Refusal } from './condition.js';
import type { RelatedResult } from './related.js';
import { syncAllRelated } from './related-sync.js';
import { relatedKeys } from './related-keys.js';
import type { SyncCaches } from './sync-caches.js';
import { syncCaches, syncWatches } from './sync-caches.js';
import { relatedResource } from './related-gvr.js';
import { syncDown } from './sync-down.js';
import { adoptedPlace } from './adopt-place.js';
import { cleanup, copyKinds, release, uniqueResources } from './release.js';
import { parseLabelSelector } from './label-selector.js';
import { ConfigError } from 'rxfleet';
import { copyRefusal, syncStatus } from './sync-up.js';

/**
 * Options of {@link syncController}.
 *
 * @example
 * ```ts
 * const options: SyncControllerOptions = { provider: agentProvider };
 * ```
 */
export interface SyncControllerOptions {
  /** The agent's shared fleet: the consumer workspaces (APIExport provider), the service cluster and the provider workspace. */
  readonly provider: Provider;
  /** The provider whose first discovery pass starts the orphan sweep. Default `kcp-apiexport`. */
  readonly consumerProvider?: string;
  /** Sweep the service cluster for orphaned copies once the workspaces are discovered. Default true. */
  readonly sweep?: boolean;
  /** Emits once the workspaces are discovered (a controller joining a running run); default: the provider's first-pass report. */
  readonly discovered?: Observable<unknown>;
  /** How long a key waits for the caches to list before it is tried again. Default 1,000 ms. */
  readonly cacheWaitMs?: number;
  /** How long a cleanup waits for a service copy that is still terminating (finalizers on the service side). Default 5,000 ms. */
  readonly terminatingWaitMs?: number;
}


// Back from a copy to its consumer object's key.
const copyKey =
  (plan: PublishedPlan) =>
  (obj: KubeObject): ReturnType<typeof objectKey>[] => {
    const ref = readBackReference(obj);
    return ref?.resource === resourceId(plan.kcp) ? [objectKey(ref.cluster, ref.namespace, ref.name)] : [];
  };

// The sweep: once the consumer provider's first pass is over and the service cluster is engaged,
// the service side's copies and the workspaces' related copies whose consumer object is gone.
// The pass is captured when the inputs are built, so a provider that reports at once is not missed.
// With several kcp installations, each one's first pass sweeps again: a copy of an installation not
// engaged yet is kept by the one before (a controller joining a running run: once, by `discovered`).
function orphanSweep(plan: PublishedPlan, ic: InputContext, consumerProvider: string, discovered: Observable<unknown> | undefined): Observable<never> {
  const passes = discovered === undefined ? 1 + (plan.installations?.length ?? 0) : 1;
  const pass = new ReplaySubject<void>(passes);
  const capture = (discovered ?? ic.fleet.reports.pipe(filter((r) => r.type === 'discovered' && r.provider === consumerProvider)))
    .pipe(
      take(passes),
      map((): void => undefined),
    )
    .subscribe(pass);
  const serviceUp = ic.fleet.engagements.pipe(
    filter((e) => isService(e.cluster)),
    take(1),
  );
  const { onService, inWorkspaces } = copyKinds(plan);
  const where = { published: plan.published.name };
  // Only this agent's copies: another agent on the same service cluster (another kcp installation,
  // whose workspaces may have the same logical cluster names) sweeps its own.
  const mine = `${agentLabel}=${plan.agentName}`;
  // Copies of entries with `cleanup: false` are never deleted by the agent, an orphan's neither.
  const kept = [...keptIdentifiers(plan)];
  const mineInWorkspaces = kept.length === 0 ? mine : `${mine},${relatedLabel} notin (${kept.join(',')})`;
  // Each pass (replayed) once the service cluster is up.
  return concat(serviceUp.pipe(ignoreElements()), pass).pipe(
    take(passes),
    concatMap(() => {
      // The workspaces engaged once the first pass is over: a copy in one that is not (unbound) is kept.
      const workspaces = ic.fleet.clusters().filter(isConsumer).map((c) => c.name);
      return concat(
        sweepOrphans(ic.sinks, { sourceResource: plan.kcp, targets: onService, clusters: [serviceCluster], labelSelector: mine }),
        inWorkspaces.length === 0 || workspaces.length === 0 ? EMPTY : sweepOrphans(ic.sinks, { sourceResource: plan.kcp, targets: inWorkspaces, clusters: workspaces, labelSelector: mineInWorkspaces }),
      ).pipe(
        tap((o) => {
          if (E.isLeft(o)) ic.logger.warn({ ...where, cluster: o.left.key.cluster }, `orphan sweep: ${o.left.message}`);
          else if (o.right.changed === true) ic.logger.info({ ...where, cluster: o.right.cluster, key: `${o.right.key.namespace}/${o.right.key.name}` }, 'orphan sweep deleted an object whose consumer object is gone');
        }),
        reduce((n, o) => n + (E.isRight(o) && o.right.changed === true ? 1 : 0), 0),
        tap((deleted) => {
          ic.logger.info({ ...where, cluster: serviceCluster, deleted }, 'orphan sweep done');
        }),
      );
    }),
    ignoreElements(),
    finalize(() => {
      capture.unsubscribe();
    }),
  );
}

// The related resources on each side (they differ where an entry has a `projection`).
interface RelatedKinds {
  readonly service: readonly ResourceDescriptor[];
  readonly kcp: readonly ResourceDescriptor[];
}

function inputs(plan: PublishedPlan, ic: InputContext, kinds: RelatedKinds, caches: SyncCaches, options: SyncControllerOptions): Observable<ReconcileInput>[] {
  const w = syncWatches(plan);
  const toKeys = copyKey(plan);
  return [
    // A copy changed or deleted on the service cluster wakes its consumer object (status up, put back).
    ic.fleetWatch(plan.service, { ...w.copies, clusterSelector: isService }).pipe(mapToKeys(plan.kcp, (ev) => toKeys(ev.object))),
    // Kept open for its cache: a namespace the agent made is not made again.
    ic.fleetWatch(namespaces, { ...w.namespaces, clusterSelector: isService }).pipe(ignoreElements()),
    ...([[isService, kinds.service], [isConsumer, kinds.kcp]] as const).flatMap(([side, rs]) =>
      rs.map((r) => ic.fleetWatch(r, { ...w.related, clusterSelector: side }).pipe(mapToKeys(plan.kcp, (ev) => relatedKeys(plan, caches, ev.key.cluster, r, ev.object)))),
    ),
    ...(options.sweep === false ? [] : [orphanSweep(plan, ic, options.consumerProvider ?? 'kcp-apiexport', options.discovered)]),
  ];
}

// The reconcile's end: the writes' action, or, when something was refused, a terminal failure whose
// cause names every refusal in full (the agent's log); the consumer saw them in its condition.
function outcomeAction(outcomes: readonly WriteOutcome[], refusals: readonly Refusal[]): Observable<Action> {
  return from(outcomes).pipe(
    toAction(),
    map((a) => (refusals.length > 0 && a.type === 'done' ? terminal(new Error(refusals.map((r) => r.detail).join('; '))) : a)),
  );
}

function syncOne(plan: PublishedPlan, caches: SyncCaches, kinds: RelatedKinds, waitMs: number, req: ReconcileRequest, ctx: ControllerContext): Observable<Action> | Action {
  const obj = req.object;
  if (obj === undefined) return done();
  // Without the service-side caches, absence cannot be told from "not listed yet": wait for them.
  if (!caches.ready()) return requeueAfter(waitMs);
  const logical = caches.logicalCluster(req.cluster);
  const source = sourceIdentity(req.cluster, plan.kcp, obj);
  // An adopted object's copy is the service object it came from, once that proves it (adopt-place.ts).
  const now = (): Date => new Date(ctx.sinks.scheduler.now());
  const adopted = adoptedPlace(plan, caches, obj, source);
  if (adopted.type === 'pending') {
    ctx.logger.info({ published: plan.published.name }, `not synced yet: ${adopted.message}`);
    return done();
  }
  if (adopted.type === 'refused') {
    const refusal = { key: objectKey(serviceCluster, adopted.at.namespace, adopted.at.name), detail: `sync refused: ${adopted.detail}`, reason: adopted.reason };
    return syncStatus(ctx.sinks, plan, req.key, obj, undefined, [refusal], now()).pipe(toArray(), concatMap((up) => outcomeAction(up, [refusal])));
  }
  const prefix = namespacePrefixOf(plan.installations, req.cluster);
  if (prefix === undefined) return terminal(new Error(`cluster ${req.cluster} belongs to an installation the config does not list: not synced`));
  const at = adopted.type === 'at' ? E.right(adopted.at) : serviceName(plan.published, logical, obj, prefix);
  if (E.isLeft(at)) return terminal(new Error(at.left.message));
  // A related kind not listed yet on either side (or never: a workspace that refused its permission
  // claim) holds back the related objects only, never the primary's spec and status.
  const relatedReady = kinds.service.every((r) => caches.relatedReady(serviceCluster, r)) && kinds.kcp.every((r) => caches.relatedReady(req.cluster, r));
  return syncDown(ctx.sinks, plan, caches, logical, obj, at.right, source, adopted.type === 'at').pipe(
    concatMap((down) => {
      const notMine = down.copy === undefined ? undefined : copyRefusal(req.key, down.copy, source);
      const copy = notMine === undefined ? down.copy : undefined;
      const refusedDown = [...down.refusals, ...(notMine === undefined ? [] : [notMine])];
      const pair = copy === undefined ? undefined : { workspace: req.cluster, logicalCluster: logical, consumer: obj, copy };
      const related$: Observable<RelatedResult> = pair !== undefined && relatedReady ? syncAllRelated(ctx.sinks, plan, caches, pair, source) : EMPTY;
      return related$.pipe(
        toArray(),
        concatMap((results) => {
          const refusals = [...refusedDown, ...results.flatMap((r) => (r.type === 'refused' ? [r.refusal] : []))];
          const writes = [...down.outcomes, ...results.flatMap((r) => (r.type === 'write' ? [r.outcome] : []))];
          // The copy's status only from a copy that passed the tenant check; the condition either way.
          return syncStatus(ctx.sinks, plan, req.key, obj, copy, refusals, now()).pipe(
            toArray(),
            concatMap((up) => outcomeAction([...writes, ...up], refusals)),
          );
        }),
      );
    }),
    map((a) => (a.type === 'done' && !relatedReady ? requeueAfter(waitMs) : a)),
  );
}

/**
 * The sync controller of one published resource. Its primary watch is the projected resource
 * (`plan.kcp`) in every consumer workspace (`isConsumer`, narrowed by the published filter); it also
 * watches the service copies (labelled with the agent and the published name), the namespaces the
 * agent made, and the related kinds on both sides, all mapped back to consumer objects. Each
 * consumer object gets the agent's finalizer (`sync.rxfleet.dev/<agentName>`), then:
 *
 * - down: its copy is applied to the service cluster (namespace and name from the published naming,
 *   the namespace made when missing), unless the cached copy already matches;
 * - related: related objects (of any namespaced resource) are copied in their direction, each only once proven to be this
 *   consumer object's (service-side names derived by the agent, back-references checked);
 * - up: the copy's status replaces the consumer's (status subresource), after the tenant check,
 *   with the agent's `sync.rxfleet.dev/Synced` condition once anything was refused;
 * - deletion: the service-side objects are deleted (uid preconditions), the workspace's related
 *   copies too, and only then the finalizer is removed;
 * - leaving the filter: an object that stops matching `filter.labelSelector` is released the same
 *   way while it lives on (its copies kept with `filter.release: keep`). The primary watch sees
 *   every label for this: the selector is matched by the agent, not by the server.
 *
 * Every write of a workspace goes through that workspace's own client, and a copy whose
 * back-reference names another object is never written to nor read from. Once the consumer
 * provider has finished its first discovery pass, the service copies and the workspaces' related
 * copies whose consumer object is gone are deleted (copies of workspaces not engaged, e.g.
 * unbound, are kept). All writes use the agent's name as field manager. The controller reads the
 * caches of the run it is in: run it in one run at a time.
 *
 * @example
 * ```ts
 * const plans = await preflight(config, clients);
 * const controllers = plans.map((plan: PublishedPlan) => syncController(plan, { provider }));
 * ```
 * @param plan - the published resource, as preflight resolved it.
 * @param options - the shared provider and timings.
 * @returns the controller, for `run`/`main` with the agent's other controllers.
 * @throws ConfigError when `filter.labelSelector` is not a label selector (preflight reports it first).
 */
export function syncController(plan: PublishedPlan, options: SyncControllerOptions): Controller<KubeObject> {
  const waitMs = options.cacheWaitMs ?? 1_000;
  const terminatingWaitMs = options.terminatingWaitMs ?? 5_000;
  const related = plan.published.related ?? [];
  const kinds: RelatedKinds = { service: uniqueResources(related.map((r) => relatedResource(plan, r, 'service'))), kcp: uniqueResources(related.map((r) => relatedResource(plan, r, 'kcp'))) };
  const everyKind = uniqueResources([...kinds.service, ...kinds.kcp]);
  const statusKinds = new Set(related.filter((r) => r.syncStatus === true).flatMap((r) => [resourceId(relatedResource(plan, r, 'service')), resourceId(relatedResource(plan, r, 'kcp'))]));
  const finalizer = syncFinalizer(plan.agentName);
  const selector = plan.published.filter?.labelSelector === undefined ? undefined : parseLabelSelector(plan.published.filter.labelSelector);
  if (selector?.type === 'invalid') throw new ConfigError(`sync controller "${plan.published.name}": filter.labelSelector ${selector.message}`);
  const selected = selector === undefined ? (): boolean => true : selector.matches;
  // The caches of the current run: set when the runtime builds the inputs, before any reconcile.
  let caches: SyncCaches | undefined;
  const w = syncWatches(plan);
  return controller<KubeObject>({
    // A DNS subdomain, like the names a run derives from it (Leases).
    name: `${plan.agentName}.${plan.published.name}`,
    fieldManager: plan.agentName,
    provider: options.provider,
    resource: plan.kcp,
    select: { ...w.primary, clusterSelector: isConsumer },
    inputs: (ic) => {
      const c = syncCaches(plan, ic.fleet, ic.informers);
      caches = c;
      return inputs(plan, ic, kinds, c, options);
    },
    reconcile: (req, ctx) => {
      const c = caches;
      if (c === undefined) return error(new Error(`sync controller "${plan.published.name}": reconciled before its inputs were built`));
      const obj = req.object;
      // A live object that left the label selector (or never matched it): released, if it was taken.
      if (obj !== undefined && obj.metadata.deletionTimestamp === undefined && !selected(obj.metadata.labels ?? {})) return release(plan, req, ctx, terminatingWaitMs, c);
      return withFinalizer<KubeObject>({
        finalizer,
        writes: finalizerWrites(ctx.sinks, plan.kcp),
        apply: (r) => syncOne(plan, c, kinds, waitMs, r, ctx),
        cleanup: (r) => cleanup(plan, r, ctx, terminatingWaitMs, c),
      })(req, ctx);
    },
    writes: [
      { resource: plan.kcp, subresources: ['status', 'finalizers'], clusterSelector: isConsumer },
      { resource: plan.service, verbs: ['apply', 'delete'], clusterSelector: isService },
      { resource: namespaces, verbs: ['apply'], clusterSelector: isService },
      // Related copies: created, applied, patched (a status with syncStatus, a detach with cleanup: false) and deleted.
      ...everyKind.map((resource) => ({ resource, verbs: ['create', 'apply', 'patch', 'delete'] as const, ...(statusKinds.has(resourceId(resource)) ? { subresources: ['status'] as const } : {}) })),
    ],
    // Nothing syncs without the service cluster: /readyz holds back while it is forbidden or unreachable.
    requiredClusters: [serviceCluster],
    watches: [
      { resource: plan.service, clusterSelector: isService },
      { resource: namespaces, clusterSelector: isService },
      ...everyKind.map((resource) => ({ resource })),
    ],
  });
}
