// The stand-in service operator of the sync-agent example: a tiny rxfleet controller on the service
// cluster that does what a database operator does with each Database. It knows nothing of kcp or
// the agent: it marks the instance Provisioning, then Ready a moment later (requeueAfter), writes
// the connection Secret named by spec.connectionSecretName, and on deletion holds its own
// finalizer a moment (deprovisioning) before it removes the Secret and lets the object go.
import { createHash } from 'node:crypto';
import type { Observable } from 'rxjs';
import { concatMap, of } from 'rxjs';
import type { Action, ControllerContext, Controller, Provider, ReconcileRequest, Secret } from 'rxfleet';
import { controller, done, objectKey, requeueAfter, secrets, toAction } from 'rxfleet';
import { withFinalizer } from 'rxfleet/operators';
import { apply, finalizerWrites, patch, deleteObject } from 'rxfleet/sinks';
import type { Database, DatabaseStatus } from './api.js';
import { databasesIn } from './api.js';

/**
 * Options of {@link databaseOperator}.
 *
 * @example
 * ```ts
 * const options: DatabaseOperatorOptions = { provider, group: 'db.example.dev', readyAfterMs: 1_000 };
 * ```
 */
export interface DatabaseOperatorOptions {
  /** The service cluster (one cluster; `singleClusterProvider`). */
  readonly provider: Provider;
  /** The Database CRD's group. */
  readonly group: string;
  /** How long an instance stays Provisioning (default 1 s). */
  readonly readyAfterMs?: number;
  /** How long deprovisioning holds a deleted instance (default 1 s). */
  readonly deprovisionMs?: number;
}

const b64 = (s: string): string => Buffer.from(s, 'utf8').toString('base64');

/**
 * The endpoint the operator reports for an instance: its in-cluster address on the service side.
 *
 * @example
 * ```ts
 * endpointOf({ metadata: { name: 'a', namespace: 'ns' }, spec: { engine: 'postgres', size: 1 } }); // 'a.ns.svc:5432'
 * ```
 * @param db - the instance.
 * @returns `<name>.<namespace>.svc:<port>`.
 */
export function endpointOf(db: Database): string {
  return `${db.metadata.name ?? ''}.${db.metadata.namespace ?? ''}.svc:${db.spec.engine === 'mysql' ? 3306 : 5432}`;
}

/**
 * The connection Secret the operator writes for an instance (the password is derived from the
 * instance's uid: stable across reconciles, different for every instance).
 *
 * @example
 * ```ts
 * const s = connectionSecret(db, 'orders-db');
 * ```
 * @param db - the instance.
 * @param name - the Secret's name (spec.connectionSecretName).
 * @returns the Secret to apply.
 */
export function connectionSecret(db: Database, name: string): Secret {
  const password = createHash('sha256')
    .update(db.metadata.uid ?? '')
    .digest('hex')
    .slice(0, 24);
  return {
    metadata: { name, namespace: db.metadata.namespace ?? '', labels: { 'app.kubernetes.io/managed-by': 'database-operator' } },
    type: 'Opaque',
    data: { endpoint: b64(endpointOf(db)), username: b64(db.metadata.name ?? ''), password: b64(password) },
  };
}

// The status this reconcile wants, and how long until the next step (undefined: none).
function nextStatus(db: Database, now: number, readyAfterMs: number): { readonly status: DatabaseStatus; readonly againInMs?: number } {
  const observed = { endpoint: endpointOf(db), observedSize: db.spec.size, observedGeneration: db.metadata.generation ?? 0 };
  const since = db.status?.since;
  if (db.status?.phase === 'Ready') return { status: { ...observed, phase: 'Ready' } };
  if (since === undefined) return { status: { ...observed, phase: 'Provisioning', since: new Date(now).toISOString() }, againInMs: readyAfterMs };
  const left = Date.parse(since) + readyAfterMs - now;
  return left > 0 ? { status: { ...observed, phase: 'Provisioning' }, againInMs: left } : { status: { ...observed, phase: 'Ready' } };
}

const same = (want: DatabaseStatus, have: DatabaseStatus | undefined): boolean =>
  Object.entries(want).every(([k, v]) => (have as Record<string, unknown> | undefined)?.[k] === v);

function provision(req: ReconcileRequest<Database>, db: Database, options: DatabaseOperatorOptions, ctx: ControllerContext): Observable<Action> {
  const resource = databasesIn(options.group);
  const secretName = db.spec.connectionSecretName;
  const secret$ =
    secretName === undefined || secretName === ''
      ? of(done())
      : apply(ctx.sinks, { cluster: req.cluster, resource: secrets, object: connectionSecret(db, secretName) }).pipe(toAction());
  return secret$.pipe(
    concatMap((a) => {
      if (a.type !== 'done') return of(a);
      const { status, againInMs } = nextStatus(db, Date.now(), options.readyAfterMs ?? 1_000);
      const then = (): Action => (againInMs === undefined ? done() : requeueAfter(againInMs));
      // A merge patch of the operator's own fields: a field someone else wrote (status.message) stays.
      if (same(status, db.status)) return of(then());
      return patch(ctx.sinks, { key: req.key, resource, subresource: 'status', patch: { status: status }, current: db }).pipe(
        toAction(),
        concatMap((w) => of(w.type === 'done' ? then() : w)),
      );
    }),
  );
}

function deprovision(req: ReconcileRequest<Database>, db: Database, options: DatabaseOperatorOptions, ctx: ControllerContext): Observable<Action> {
  const left = Date.parse(db.metadata.deletionTimestamp ?? '') + (options.deprovisionMs ?? 1_000) - Date.now();
  if (left > 0) return of(requeueAfter(left));
  const secretName = db.spec.connectionSecretName;
  if (secretName === undefined || secretName === '') return of(done());
  const key = objectKey(req.cluster, db.metadata.namespace ?? '', secretName);
  return deleteObject(ctx.sinks, { key, resource: secrets, notFoundIsSuccess: true }).pipe(toAction());
}

/**
 * The stand-in database operator: one controller over the service cluster's Databases.
 *
 * @example
 * ```ts
 * const op = databaseOperator({ provider: singleClusterProvider({ name: 'service', kubeconfig: { file: 'service.kubeconfig' } }), group: 'db.example.dev' });
 * await main(op);
 * ```
 * @param options - the service cluster, the CRD's group and the timings.
 * @returns the controller.
 */
export function databaseOperator(options: DatabaseOperatorOptions): Controller<Database> {
  const resource = databasesIn(options.group);
  return controller({
    name: 'database-operator',
    provider: options.provider,
    resource,
    reconcile: (req, ctx) =>
      withFinalizer<Database>({
        finalizer: `${options.group}/deprovision`,
        writes: finalizerWrites(ctx.sinks, resource),
        apply: (r) => (r.object === undefined ? done() : provision(r, r.object, options, ctx)),
        cleanup: (r) => (r.object === undefined ? done() : deprovision(r, r.object, options, ctx)),
      })(req, ctx),
  });
}
