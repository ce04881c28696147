// Server-side apply: the controller states the fields it wants, under its one field manager, and
// the server merges and tracks ownership. Idempotent. One request per apply: whether it changed
// anything is told from what the caller knew before, never from a read of its own.
import type { Observable, OperatorFunction } from 'rxjs';
import { concatMap, map, of } from 'rxjs';
import type { ClusterName } from '../core/cluster.js';
import type { ObjectKey } from '../core/key.js';
import type { ApplyConfiguration, KubeObject } from '../core/object.js';
import type { ResourceDescriptor } from '../core/resource.js';
import { E } from '../internal/fp.js';
import type { SinkContext } from './context.js';
import type { SinkOperatorOptions } from './operator.js';
import { writeEach } from './operator.js';
import { changeOf, describe, explainStatus404, keyFor, known } from './read.js';
import type { WriteOutcome } from './result.js';
import { refusal, writeFailed, written } from './result.js';
import { send } from './send.js';
import { rememberApplied, unsentApplyListed } from './apply-cache.js';

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
  /**
   * `status` to apply through the status subresource: only `object.status` is written (the server
   * ignores spec and metadata there, so a status writer never clobbers desired state). On a
   * resource without a status subresource the outcome is a `NoStatusSubresource` error.
   */
  readonly subresource?: 'status';
}

/**
 * Server-side applies an object to a cluster of the fleet under the context's field manager,
 * forcing ownership of the fields it states unless `force: false`.
 *
 * When the context's cache proves the apply would change nothing (this field manager owns exactly
 * the stated fields and each already holds the stated value; see `applyChangesNothing`), it sends
 * nothing and reports `changed: false`, `sent: false`. Otherwise it sends one PATCH (429 retries
 * aside), nothing else. `changed` compares the answer with what
 * was there before (the server does not bump the resourceVersion for an apply that changes
 * nothing), so it is known only when the caller says what was there: `current`, e.g. the cached
 * target, or `null` when known absent. Without it `changed` is `'unknown'`, unless `readFirst:
 * true` asks for a GET first (two requests per apply). With `subresource: 'status'` it applies
 * `object.status` through the status subresource (client-go's `ApplyStatus`).
 *
 * @example
 * ```ts
 * import { apply, sinkContext } from 'rxfleet/sinks';
 * const ctx = sinkContext({ clusters: fleet, fieldManager: 'rollouts.demo.rxfleet.dev' });
 * const desired: ConfigMap = { metadata: { name: 'a', namespace: 'default' }, data: { k: 'v' } };
 * apply(ctx, { cluster: clusterName('west'), resource: configMaps, object: desired })
 *   .subscribe((o) => console.log(E.isRight(o) ? o.right.changed : o.left.message));
 * apply(ctx, { cluster, resource: widgets, object: { metadata: { name: 'w', namespace: 'default' }, status: { ready: true } }, subresource: 'status' });
 * ```
 * @param ctx - the sink context.
 * @param write - target cluster, resource, desired fields and options.
 * @returns one outcome, then completes; never errors.
 */
export function apply<T extends KubeObject>(ctx: SinkContext, write: ApplyWrite<T>): Observable<WriteOutcome<T>> {
  const w = write;
  const { subresource } = w;
  const key = keyFor(w.cluster, w.resource, w.object);
  if (key.name === '' || (w.resource.namespaced && key.namespace === '')) {
    return of(writeFailed<T>('apply', key, refusal('Invalid', key, `apply needs metadata.name${w.resource.namespaced ? ' and metadata.namespace' : ''}`), 0, subresource));
  }
  const dryRun = w.dryRun ?? false;
  // The context's cache may prove the apply needless when it runs: then nothing is sent.
  if (dryRun || ctx.cache === undefined) return sendApply(ctx, w, key);
  return unsentApplyListed(ctx, w.resource, key, w.object, subresource).pipe(
    concatMap((unsent) => {
      if (!('object' in unsent)) return sendApply(ctx, w, key);
      ctx.onUnsent?.(key.cluster, 'apply');
      return of(written('apply', key, { changed: false, object: unsent.object, attempts: 0, dryRun, subresource }));
    }),
  );
}

function sendApply<T extends KubeObject>(ctx: SinkContext, w: ApplyWrite<T>, key: ObjectKey): Observable<WriteOutcome<T>> {
  const { subresource } = w;
  const dryRun = w.dryRun ?? false;
  const before = known(ctx, w.resource, key, w.current, w.readFirst);
  return before.pipe(
    concatMap((b) => {
      if (E.isLeft(b)) return of(writeFailed<T>('apply', key, b.left, 0, subresource));
      const opts = {
        fieldManager: ctx.fieldManager,
        force: w.force ?? true,
        dryRun,
        ...(subresource === undefined ? {} : { subresource }),
      };
      const what = `apply ${subresource === undefined ? '' : `${subresource} of `}${describe(w.resource, key)}`;
      return send(ctx, key.cluster, what, (c) => c.apply(w.resource, w.object, opts)).pipe(
        map(({ result, attempts }): WriteOutcome<T> => {
          if (E.isRight(result)) {
            if (!dryRun) rememberApplied(ctx, w.resource, key, subresource, result.right.metadata.resourceVersion);
            return written('apply', key, { changed: changeOf(b.right, result.right, dryRun), object: result.right, attempts, dryRun, subresource });
          }
          if (subresource === 'status' && result.left.type === 'NotFound') return writeFailed<T>('apply', key, explainStatus404(w.resource, key, result.left), attempts, subresource);
          return writeFailed<T>('apply', key, result.left, attempts, subresource);
        }),
      );
    }),
  );
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
export function applyEach<T extends KubeObject>(ctx: SinkContext, config?: SinkOperatorOptions): OperatorFunction<ApplyWrite<T>, WriteOutcome<T>> {
  return writeEach((w: ApplyWrite<T>) => apply(ctx, w), config);
}
