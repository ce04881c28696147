// fanout-status: a Rollout on the hub cluster is copied to every member cluster its selector
// matches; each member's status comes back onto the hub object, cluster by cluster; deleting the
// hub object deletes the copies first (a finalizer, since owner references cannot cross clusters).
import type { Observable } from 'rxjs';
import { concat, concatMap, defer, from, map, mergeMap, of, toArray } from 'rxjs';
import { resourceId } from 'rxfleet/client';
import type { Action, ApplyConfiguration, Cluster, Controller, ControllerContext, Provider, ReconcileInput } from 'rxfleet';
import { controller, done, error, isLeft, objectKey, toAction } from 'rxfleet';
import { mapToKeys, withFinalizer } from 'rxfleet/operators';
import type { WriteOutcome } from 'rxfleet/sinks';
import { apply, finalizerWrites, patch, readBackReference, deleteTargets, sourceIdentity, withBackReference } from 'rxfleet/sinks';
import type { ClusterStatus, Rollout } from './rollout.js';
import { rollouts } from './rollout.js';

export const FINALIZER = 'demo.rxfleet.dev/copies';
export const isHub = (c: Cluster): boolean => c.labels?.role === 'hub';
export const isMember = (c: Cluster): boolean => c.labels?.role === 'member';

export interface FanoutOptions {
  readonly provider: Provider;
  readonly namespace: string;
}

function matches(r: Rollout, c: Cluster): boolean {
  const want = r.spec.clusterSelector?.matchLabels ?? {};
  return isMember(c) && Object.entries(want).every(([k, v]) => c.labels?.[k] === v);
}

/** Copies to targets, removes copies from members that stopped matching, then writes the hub status. */
function sync(hub: Rollout, clusterOfHub: Cluster['name'], ctx: ControllerContext): Observable<Action> {
  const id = sourceIdentity(clusterOfHub, rollouts, hub);
  const members = ctx.fleet.clusters().filter(isMember);
  const targets = members.filter((c) => matches(hub, c));
  const others = members.filter((c) => !matches(hub, c)).map((c) => c.name);
  const { name = '', namespace = '' } = hub.metadata;
  const copy = (c: Cluster): Observable<ClusterStatus> =>
    apply(ctx.sinks, {
      cluster: c.name,
      resource: rollouts,
      object: withBackReference<ApplyConfiguration<Rollout>>({ metadata: { name, namespace }, spec: { image: hub.spec.image, replicas: hub.spec.replicas ?? 1 } }, id),
    }).pipe(
      map((o): ClusterStatus => {
        if (isLeft(o)) return { cluster: c.name, phase: `Failed: ${o.left.type}` };
        const s = o.right.object?.status;
        // A copy reports Ready only for the generation it was given: a new spec is Progressing until the member catches up.
        const current = s?.observedGeneration !== undefined && s.observedGeneration === o.right.object?.metadata.generation;
        return { cluster: c.name, phase: current ? (s.phase ?? 'Pending') : 'Progressing', ...(s?.image === undefined ? {} : { image: s.image }) };
      }),
    );
  return concat(
    deleteTargets(ctx.sinks, { source: id, targets: [rollouts], clusters: others }).pipe(toArray()),
    from(targets).pipe(mergeMap(copy, 4), toArray()),
  ).pipe(
    toArray(),
    concatMap(([removed = [], statuses = []]) => {
      const clusters = (statuses as ClusterStatus[]).sort((a, b) => a.cluster.localeCompare(b.cluster));
      const ready = clusters.filter((s) => s.phase === 'Ready').length;
      return patch(ctx.sinks, {
        key: objectKey(clusterOfHub, namespace, name),
        resource: rollouts,
        subresource: 'status', patch: { status: { clusters, ready, total: clusters.length, observedGeneration: hub.metadata.generation ?? 0 } },
      }).pipe(concatMap((st) => from([...(removed as WriteOutcome[]), st]).pipe(toAction())));
    }),
  );
}

/** The hub-side controller. */
export function fanoutController(options: FanoutOptions): Controller<Rollout> {
  const { namespace } = options;
  return controller({
    name: 'fanout-status',
    provider: options.provider,
    resource: rollouts,
    select: { namespace, clusterSelector: isHub },
    inputs: ({ fleetWatch, fleet, informers }): Observable<ReconcileInput<Rollout>>[] => [
      // A copy's status (or its deletion) wakes the hub object it points back to.
      fleetWatch(rollouts, { namespace, clusterSelector: isMember }).pipe(
        mapToKeys(rollouts, (ev) => {
          const src = readBackReference(ev.object);
          return src?.resource === resourceId(rollouts) ? [objectKey(src.cluster, src.namespace, src.name)] : [];
        }),
      ),
      // A member joining the fleet may be a new target of every hub Rollout.
      fleet.engagements.pipe(
        mergeMap(({ cluster }) => (isMember(cluster) ? fleet.clusters().filter(isHub) : [])),
        mergeMap((hub) => informers.informer(hub, rollouts, { namespace }).store.list().map((r) => ({ type: 'enqueue' as const, key: objectKey(hub.name, namespace, r.metadata.name ?? ''), resource: rollouts }))),
      ),
    ],
    reconcile: (req, ctx) =>
      withFinalizer<Rollout>({
        finalizer: FINALIZER,
        writes: finalizerWrites(ctx.sinks, rollouts),
        apply: (r) => (r.object === undefined ? done() : sync(r.object, r.cluster, ctx)),
        cleanup: (r) =>
          r.object === undefined
            ? done()
            : deleteTargets(ctx.sinks, { source: sourceIdentity(r.cluster, rollouts, r.object), targets: [rollouts], clusters: ctx.fleet.clusters().filter(isMember).map((c) => c.name) }).pipe(toAction()),
      })(req, ctx),
  });
}

/**
 * Stands in for each member's own workload controller: marks a copy Ready for the generation it
 * carries. In a real fleet this runs in the member clusters (or is the Deployment controller).
 */
export function memberAgent(options: FanoutOptions): Controller<Rollout> {
  const { namespace } = options;
  return controller({
    name: 'member-agent',
    provider: options.provider,
    resource: rollouts,
    select: { namespace, clusterSelector: isMember },
    reconcile: (req, ctx) => {
      const r = req.object;
      if (r === undefined || r.metadata.deletionTimestamp !== undefined || r.status?.observedGeneration === r.metadata.generation) return done();
      return defer(() =>
        patch(ctx.sinks, { key: req.key, resource: rollouts, subresource: 'status', patch: { status: { phase: 'Ready', image: r.spec.image, observedGeneration: r.metadata.generation ?? 0 } } }),
      ).pipe(concatMap((o) => of(isLeft(o) && o.left.type !== 'NotFound' ? error(o.left) : done())));
    },
  });
}
