// Server-side apply: the controller states the fields it wants, under its one field manager, and
// the server merges and tracks ownership. Idempotent. One request per apply: whether it changed
// anything is told from what the caller knew before, never from a read of its own.
import type { Observable, OperatorFunction } from 'rxjs';
import { concatMap, of } from 'rxjs';
import type { ClusterName } from '../core/cluster.js';
import type { ApplyConfiguration, KubeObject } from '../core/object.js';
import type { ResourceDescriptor } from '../core/resource.js';
import { E } from '../internal/fp.js';
import type { SinkContext } from './context.js';
import type { SinkOperatorConfig } from './operator.js';
import { writeEach } from './operator.js';
import { changeOf, describe, explainStatus404, keyFor, known } from './read.js';
import type { WriteOutcome } from './result.js';
import { refusal, writeFailed, written } from './result.js';
import { send } from './send.js';

/**
 * One server-side apply.
 *
 * @example
 * ```ts
 * const w: ApplyWrite<ConfigMap> = { cluster: clusterName('west'), resource: configMaps, object: { metadata: { name: 'a', namespace: 'default' }, data: { k: 'v' } } };
 * ```
 */
export interface ApplyWrite<T extends KubeObject = KubeObject> {
  /** The cluster to write to: not necessarily the one the event came from (fan-out). */
  readonly cluster: ClusterName;
  /** The resource (group, version, kind) of the object. */
  readonly resource: ResourceDescriptor<T>;
  /** The fields this controller wants set, with `metadata.name` (and namespace when namespaced). */
  readonly object: ApplyConfiguration<T>;
  /**
   * The object as last seen (e.g. from a cache), or `null` when known to be absent: `changed` is
   * then told by comparing the answer with it. Without it (and without `readFirst`), `changed` is
   * `'unknown'`.
   */
  readonly current?: T | null | undefined;
  /**
   * Read the object (one GET) before applying when `current` is not given, so `changed` is always
   * true or false: two requests instead of one. Default false.
   */
  readonly readFirst?: boolean;
  /** Take ownership of fields another manager owns (default true: a controller owns its desired state). */
  readonly force?: boolean;
  /** Validate and report what would change, persist nothing. */
  readonly dryRun?: boolean;
}

/**
 * Runs a server-side apply, for `apply` and `applyStatus`.
 *
 * @example
 * ```ts
 * serverSideApply(ctx, write, 'applyStatus', 'status');
 * ```
 * @param ctx - the sink context.
 * @param w - the write.
 * @param verb - which sink is reporting.
 * @param subresource - `status`, or undefined for the object itself.
 * @returns one outcome.
 */
export function serverSideApply<T extends KubeObject>(
  ctx: SinkContext,
  w: ApplyWrite<T>,
  verb: 'apply' | 'applyStatus',
  subresource: 'status' | undefined,
): Observable<WriteOutcome<T>> {
  const key = keyFor(w.cluster, w.resource, w.object);
  if (key.name === '' || (w.resource.namespaced && key.namespace === '')) {
    return of(writeFailed<T>(verb, key, refusal('Invalid', key, `${verb} needs metadata.name${w.resource.namespaced ? ' and metadata.namespace' : ''}`), 0));
  }
  const dryRun = w.dryRun ?? false;
  const before = known(ctx, w.resource, key, w.current, w.readFirst);
  return before.pipe(
    concatMap((b) => {
      if (E.isLeft(b)) return of(writeFailed<T>(verb, key, b.left, 0));
      const opts = {
        fieldManager: ctx.fieldManager,
        force: w.force ?? true,
        dryRun,
        ...(subresource === undefined ? {} : { subresource }),
      };
      return send(ctx, key.cluster, `${verb} ${describe(w.resource, key)}`, (c) => c.apply(w.resource, w.object, opts)).pipe(
        concatMap(({ result, attempts }) => {
          if (E.isRight(result)) return of(written(verb, key, { changed: changeOf(b.right, result.right, dryRun), object: result.right, attempts, dryRun }));
          if (subresource === 'status' && result.left.type === 'NotFound') return of(writeFailed<T>(verb, key, explainStatus404(w.resource, key, result.left), attempts));
          return of(writeFailed<T>(verb, key, result.left, attempts));
        }),
      );
    }),
  );
}

/**
 * Server-side applies an object to a cluster of the fleet under the context's field manager,
 * forcing ownership of the fields it states unless `force: false`.
 *
 * It sends one PATCH (429 retries aside), nothing else. `changed` compares the answer with what
 * was there before (the server does not bump the resourceVersion for an apply that changes
 * nothing), so it is known only when the caller says what was there: `current`, e.g. the cached
 * target, or `null` when known absent. Without it `changed` is `'unknown'`, unless `readFirst:
 * true` asks for a GET first (two requests per apply).
 *
 * @example
 * ```ts
 * import { apply, sinkContext } from 'rxfleet/sinks';
 * const ctx = sinkContext({ fleet, fieldManager: 'rollouts.demo.rxfleet.dev' });
 * const desired: ConfigMap = { metadata: { name: 'a', namespace: 'default' }, data: { k: 'v' } };
 * apply(ctx, { cluster: clusterName('west'), resource: configMaps, object: desired })
 *   .subscribe((o) => console.log(E.isRight(o) ? o.right.changed : o.left.message));
 * ```
 * @param ctx - the sink context.
 * @param write - target cluster, resource, desired fields and options.
 * @returns one outcome, then completes; never errors.
 */
export function apply<T extends KubeObject>(ctx: SinkContext, write: ApplyWrite<T>): Observable<WriteOutcome<T>> {
  return serverSideApply(ctx, write, 'apply', undefined);
}

/**
 * The operator form of {@link apply}: applies each write, a bounded number at once.
 *
 * @example
 * ```ts
 * desired.pipe(applyEach(ctx, { concurrency: 8 })).subscribe(report);
 * ```
 * @param ctx - the sink context.
 * @param config - concurrency.
 * @returns an operator from writes to outcomes.
 */
export function applyEach<T extends KubeObject>(ctx: SinkContext, config?: SinkOperatorConfig): OperatorFunction<ApplyWrite<T>, WriteOutcome<T>> {
  return writeEach((w: ApplyWrite<T>) => apply(ctx, w), config);
}
