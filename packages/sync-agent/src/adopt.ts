// Adoption (api-syncagent#129): service objects made before, or without, kcp become the copies of
// consumer objects in a configured workspace. One controller per `adopt` rule watches the service
// objects the rule selects; for each one no consumer object owns, it creates the consumer object
// (same name, the service object's spec, annotations saying where it came from), then writes the
// back-reference onto the service object, guarded by its resourceVersion. From then on the sync
// controller treats the pair as any other: spec down, status up, and a deletion in the workspace
// deletes the service object too. Adopting never deletes anything, and never takes an object that
// claims another owner or lands on a consumer object that is not its own.
import type { Observable } from 'rxjs';
import { concatMap, ignoreElements, map, of } from 'rxjs';
import type { Action, Controller, ControllerContext, KubeObject, ReconcileRequest } from 'rxfleet';
import { ConfigError, controller, done, error, objectKey, requeueAfter, terminal } from 'rxfleet';
import { apiVersionOf, resourceId } from 'rxfleet/client';
import { E } from 'rxfleet/fp';
import type { SourceIdentity } from 'rxfleet/sinks';
import { apply, create, readBackReference, sourceIdentity, withBackReference } from 'rxfleet/sinks';
import type { Cluster, FleetView, Informers, Provider } from 'rxfleet/streams';
import type { AdoptRule } from './adopt-config.js';
import { defaultAdoptNamespace } from './adopt-config.js';
import { adoptedFromAnnotation, adoptedUidAnnotation } from './adopt-place.js';
import { isConsumer, isService, serviceCluster } from './clusters.js';
import { defaultInstallation, installationCluster, installationOf } from './installations.js';
import { agentLabels } from './labels.js';
import { claimsOwner } from './ownership.js';
import type { PublishedPlan } from './plan.js';
import { syncWatches } from './sync-caches.js';
import { keyMatches } from './sync-down.js';

/**
 * Options of {@link adoptControllers}.
 *
 * @example
 * ```ts
 * const options: AdoptOptions = { provider: agentProvider };
 * ```
 */
export interface AdoptOptions {
  /** The agent's shared fleet (see `syncAgentProvider`). */
  readonly provider: Provider;
  /** How long a service object waits before it is looked at again while its workspace is not bound or not listed yet. Default 2,000 ms. */
  readonly waitMs?: number;
}

const notSpec = new Set(['apiVersion', 'kind', 'metadata', 'status']);
const nameOf = (o: KubeObject): string => (o.metadata.namespace === undefined ? (o.metadata.name ?? '') : `${o.metadata.namespace}/${o.metadata.name ?? ''}`);
const logicalOf = (c: Cluster): string => c.identity?.id ?? c.name;

// The consumer object made from a service object: its name, the rule's namespace, its spec, the
// labels syncDown carries, and where it came from.
function consumerFrom(plan: PublishedPlan, svc: KubeObject, namespace: string): KubeObject {
  const spec = Object.fromEntries(Object.entries(svc as unknown as Record<string, unknown>).filter(([k]) => !notSpec.has(k)));
  const labels = Object.fromEntries(Object.entries(svc.metadata.labels ?? {}).filter(([k]) => keyMatches(plan.published.syncDown?.labels, k)));
  return {
    ...spec,
    apiVersion: apiVersionOf(plan.kcp),
    kind: plan.kcp.kind,
    metadata: {
      name: svc.metadata.name ?? '',
      ...(plan.kcp.namespaced ? { namespace } : {}),
      ...(Object.keys(labels).length === 0 ? {} : { labels }),
      annotations: { [adoptedFromAnnotation]: nameOf(svc), [adoptedUidAnnotation]: svc.metadata.uid ?? '' },
    },
  };
}

// The back-reference onto the service object: an apply of the agent's labels and the reference
// alone, at the resourceVersion that was checked (a concurrent claim makes it a Conflict), never
// forcing fields another manager owns.
function writeBackReference(plan: PublishedPlan, ctx: ControllerContext, svc: KubeObject, source: SourceIdentity): Observable<Action> {
  const metadata = { name: svc.metadata.name ?? '', ...(plan.service.namespaced ? { namespace: svc.metadata.namespace ?? '' } : {}), resourceVersion: svc.metadata.resourceVersion ?? '', labels: { ...agentLabels(plan.agentName, plan.published.name) } };
  const object = withBackReference({ apiVersion: apiVersionOf(plan.service), kind: plan.service.kind, metadata }, source);
  return apply(ctx.sinks, { cluster: serviceCluster, resource: plan.service, object, current: svc, force: false }).pipe(
    map((o) => {
      if (E.isLeft(o)) return error(new Error(`adopt: writing the back-reference onto ${plan.service.plural} ${nameOf(svc)} failed: ${o.left.message}`));
      ctx.logger.info({ published: plan.published.name, workspace: source.cluster, object: `${source.namespace}/${source.name}` }, `adopted ${plan.service.plural} ${nameOf(svc)} from the service cluster`);
      return done();
    }),
  );
}

interface Env {
  readonly fleet: FleetView;
  readonly informers: Informers;
}

function adoptOne(plan: PublishedPlan, rule: AdoptRule, env: Env, waitMs: number, req: ReconcileRequest, ctx: ControllerContext): Observable<Action> | Action {
  const svc = req.object;
  if (svc === undefined) return done();
  const namespace = plan.kcp.namespaced ? (rule.into.namespace ?? defaultAdoptNamespace) : '';
  const name = svc.metadata.name ?? '';
  const into = installationCluster(rule.into.installation, rule.into.workspace);
  const target = `${into}/${namespace === '' ? '' : `${namespace}/`}${name}`;
  const here = `${plan.service.plural} ${nameOf(svc)} on the service cluster`;
  // The workspace of that logical cluster in the rule's installation only: `root` is in every kcp.
  const installation = rule.into.installation ?? defaultInstallation;
  const ws = env.fleet.clusters().find((c) => isConsumer(c) && installationOf(c.name) === installation && logicalOf(c) === rule.into.workspace);
  if (claimsOwner(svc)) {
    const ref = readBackReference(svc);
    const mine = ref?.resource === resourceId(plan.kcp) && ref.namespace === namespace && ref.name === name && (ref.cluster === into || ref.cluster === ws?.name);
    if (mine) return done();
    const owner = ref === undefined ? 'a back-reference that does not verify' : `a back-reference to ${ref.cluster}/${ref.namespace === '' ? '' : `${ref.namespace}/`}${ref.name} (uid ${ref.uid})`;
    return terminal(new Error(`adopt refused: ${here} carries ${owner}: it belongs to another consumer object and is not adopted into ${target}`));
  }
  if (ws === undefined) {
    ctx.logger.debug({ published: plan.published.name, workspace: rule.into.workspace }, 'adopt: the workspace has not bound the APIExport (yet)');
    return requeueAfter(waitMs);
  }
  const store = env.informers.informer(ws, plan.kcp, { ...syncWatches(plan).primary }).store;
  if (!store.synced(ws.name)) return requeueAfter(waitMs);
  const existing = store.get(objectKey(ws.name, namespace, name));
  if (existing !== undefined) {
    const a = existing.metadata.annotations ?? {};
    // Made by an adoption of this very object that stopped before its back-reference: finish it.
    if (a[adoptedFromAnnotation] === nameOf(svc) && a[adoptedUidAnnotation] === svc.metadata.uid) return writeBackReference(plan, ctx, svc, sourceIdentity(ws.name, plan.kcp, existing));
    const made = a[adoptedFromAnnotation] === undefined ? 'made in the workspace' : `adopted from ${a[adoptedFromAnnotation]}`;
    return terminal(new Error(`adopt refused: ${here} would be adopted as ${target}, but that object exists already (uid ${existing.metadata.uid ?? ''}, ${made}); nothing was changed on either side`));
  }
  return create(ctx.sinks, { cluster: ws.name, resource: plan.kcp, object: consumerFrom(plan, svc, namespace) }).pipe(
    concatMap((o): Observable<Action> => {
      // Taken between the cache's view and the create: the next look sees it and decides.
      if (E.isLeft(o)) return of(o.left.type === 'AlreadyExists' ? requeueAfter(waitMs) : error(new Error(`adopt: creating ${target} for ${here} failed: ${o.left.message}`)));
      const made = o.right.object;
      if (made === undefined) return of(error(new Error(`adopt: creating ${target} returned no object`)));
      return writeBackReference(plan, ctx, svc, sourceIdentity(ws.name, plan.kcp, made));
    }),
  );
}

function adoptController(plan: PublishedPlan, rule: AdoptRule, index: number, options: AdoptOptions): Controller<KubeObject> {
  const where = `published "${plan.published.name}": adopt[${index}]`;
  if (plan.service.namespaced !== plan.kcp.namespaced) throw new ConfigError(`${where}: not with a projection that changes the scope (the adopted object would need a namespace on one side only)`);
  if (!plan.kcp.namespaced && rule.into.namespace !== undefined) throw new ConfigError(`${where}.into.namespace: ${plan.kcp.plural} are cluster-scoped in kcp; leave it out`);
  const waitMs = options.waitMs ?? 2_000;
  let env: Env | undefined;
  const w = syncWatches(plan);
  return controller<KubeObject>({
    name: `${plan.agentName}.${plan.published.name}.adopt-${index}`,
    fieldManager: plan.agentName,
    provider: options.provider,
    resource: plan.service,
    select: { ...(rule.from.namespace === undefined ? {} : { namespace: rule.from.namespace }), ...(rule.from.labelSelector === undefined ? {} : { labelSelector: rule.from.labelSelector }), clusterSelector: isService },
    // Kept open for its cache (the sync controller's primary watch): a consumer object in the way is seen.
    inputs: (ic) => {
      env = { fleet: ic.fleet, informers: ic.informers };
      return [ic.fleetWatch(plan.kcp, { ...w.primary, clusterSelector: isConsumer }).pipe(ignoreElements())];
    },
    reconcile: (req, ctx) => (env === undefined ? error(new Error(`${where}: reconciled before its inputs were built`)) : adoptOne(plan, rule, env, waitMs, req, ctx)),
    writes: [
      { resource: plan.kcp, verbs: ['create'], clusterSelector: isConsumer },
      { resource: plan.service, verbs: ['apply'], clusterSelector: isService },
    ],
    requiredClusters: [serviceCluster],
    watches: [{ resource: plan.kcp, clusterSelector: isConsumer }],
  });
}

/**
 * The adoption controllers of one published resource, one per `adopt` rule (none without). Each
 * watches the service objects its rule selects; an object that no consumer object owns gets a
 * consumer object of the same name in the rule's workspace and namespace, made from its spec (the
 * labels `syncDown` lists come along; status follows by the sync), annotated with where it came
 * from ({@link adoptedFromAnnotation}); then the service object gets the agent's labels and the
 * back-reference to it, and the sync controller syncs the pair as any other, in place. Refused,
 * with an error naming both objects and nothing written: a service object whose back-reference
 * names another consumer object (another workspace's copy included), and one whose consumer object
 * would land where an object exists already (made in the workspace, or adopted from another
 * service object of the same name). A workspace that has not bound the APIExport is waited for.
 * Deleting the adopted consumer object deletes the service object, as for every copy: adoption
 * hands the object to the workspace.
 *
 * @example
 * ```ts
 * const controllers = plans.flatMap((plan: PublishedPlan) => adoptControllers(plan, { provider }));
 * ```
 * @param plan - the published resource, as preflight resolved it.
 * @param options - the shared provider and the wait.
 * @returns the controllers, for `run`/`main` with the agent's other controllers.
 * @throws ConfigError when a rule does not fit the resource's scope in kcp.
 */
export function adoptControllers(plan: PublishedPlan, options: AdoptOptions): readonly Controller<KubeObject>[] {
  return (plan.published.adopt ?? []).map((rule, i) => adoptController(plan, rule, i, options));
}
