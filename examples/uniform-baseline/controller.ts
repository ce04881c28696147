// uniform-baseline: the same baseline in every cluster of the fleet — a namespace, a ConfigMap of
// settings and an RBAC Role — created where missing and reverted where someone changed it.
// One key per cluster (the ConfigMap's); a change to either object, or a cluster joining, wakes it.
import type { Observable } from 'rxjs';
import { map, toArray } from 'rxjs';
import type { Action, ConfigMap, Controller, KubeObject, Provider, ReconcileInput } from 'rxfleet';
import { configMaps, controller, done, error, isLeft, isRight, namespaces, objectKey, resource } from 'rxfleet';
import { enqueue, mapToKeys } from 'rxfleet/operators';
import type { WriteOutcome } from 'rxfleet/sinks';
import { apply, thenWrite } from 'rxfleet/sinks';

/** RBAC Roles (rbac.authorization.k8s.io/v1). */
export interface Role extends KubeObject {
  readonly rules?: readonly { readonly apiGroups: readonly string[]; readonly resources: readonly string[]; readonly verbs: readonly string[] }[];
}
export const roles = resource<Role>({ group: 'rbac.authorization.k8s.io', version: 'v1', plural: 'roles', kind: 'Role', namespaced: true });

/** The name of the baseline ConfigMap and Role. */
export const BASELINE = 'rxfleet-baseline';

export interface BaselineOptions {
  readonly provider: Provider;
  /** Where the baseline lives in each cluster (created if missing). */
  readonly namespace: string;
  /** The settings every cluster must carry. */
  readonly settings?: Readonly<Record<string, string>>;
}

/** The desired ConfigMap and Role: the fields this controller owns (server-side apply, forced). */
export function desiredBaseline(namespace: string, settings: Readonly<Record<string, string>>): { configMap: ConfigMap; role: Role } {
  return {
    configMap: { metadata: { name: BASELINE, namespace, labels: { 'app.kubernetes.io/managed-by': 'uniform-baseline' } }, data: settings },
    role: {
      metadata: { name: BASELINE, namespace, labels: { 'app.kubernetes.io/managed-by': 'uniform-baseline' } },
      rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch'] }],
    },
  };
}

const firstFailure = (outcomes: readonly WriteOutcome[]): Action => {
  const failed = outcomes.find(isLeft);
  return failed === undefined ? done() : error(failed.left);
};

/** Builds the controller. */
export function baselineController(options: BaselineOptions): Controller<ConfigMap> {
  const { namespace } = options;
  const settings = options.settings ?? { tier: 'standard', 'log-level': 'info', owner: 'platform-team' };
  const only = `metadata.name=${BASELINE}`;
  return controller({
    name: 'uniform-baseline',
    provider: options.provider,
    resource: configMaps,
    select: { namespace, fieldSelector: only },
    inputs: ({ fleetWatch, fleet }): Observable<ReconcileInput<ConfigMap>>[] => [
      // A change to the Role wakes the cluster's key, like a change to the ConfigMap does.
      fleetWatch(roles, { namespace, fieldSelector: only }).pipe(mapToKeys(configMaps, (ev) => [objectKey(ev.key.cluster, namespace, BASELINE)])),
      // A cluster that joins without a baseline has no ConfigMap event to wake it: enqueue its key.
      fleet.engagements.pipe(map(({ cluster }) => enqueue(objectKey(cluster.name, namespace, BASELINE), configMaps))),
    ],
    reconcile: (req, ctx) => {
      const want = desiredBaseline(namespace, settings);
      const cluster = req.cluster;
      // The namespace first: the objects in it are written only once it is (a failed write ends
      // the chain). The cached ConfigMap is what was there: `changed` is then known for it (one
      // request each, no read; the other two report changed: 'unknown').
      return apply(ctx.sinks, { cluster, resource: namespaces, object: { metadata: { name: namespace } } }).pipe(
        thenWrite(() => apply(ctx.sinks, { cluster, resource: configMaps, object: want.configMap, current: req.object ?? null })),
        thenWrite(() => apply(ctx.sinks, { cluster, resource: roles, object: want.role })),
        toArray(),
        map((outcomes: readonly WriteOutcome[]) => {
          const changed = outcomes.flatMap((o) => (isRight(o) && o.right.changed === true ? [`${o.right.key.name} (${o.right.verb})`] : []));
          if (changed.length > 0) ctx.logger.info({ changed }, 'baseline restored');
          return firstFailure(outcomes);
        }),
      );
    },
  });
}
