// A JSON merge patch of an object or of its status subresource. Through the status subresource the
// server ignores everything but status, so a status writer cannot change desired state and spec
// writers never race status writers. One request per patch: no read first unless asked for.
import type { Observable, OperatorFunction } from 'rxjs';
import { concatMap, of } from 'rxjs';
import type { ObjectKey } from '../core/key.js';
import type { KubeObject } from '../core/object.js';
import type { ResourceDescriptor } from '../core/resource.js';
import { E } from '../internal/fp.js';
import type { SinkContext } from './context.js';
import type { SinkOperatorOptions } from './operator.js';
import { writeEach } from './operator.js';
import { changeOf, describe, explainStatus404, known } from './read.js';
import type { WriteOutcome } from './result.js';
import { refusal, writeFailed, written } from './result.js';
import { send } from './send.js';

/**
 * One merge patch.
 *
 * @example
 * ```ts
 * const w: PatchWrite<Widget> = { key: objectKey(cluster, 'default', 'w'), resource: widgets, subresource: 'status', patch: { status: { ready: true } } };
 * ```
 */
export interface PatchWrite<T extends KubeObject = KubeObject> {
  /** The object, with the cluster to write to. */
  readonly key: ObjectKey;
  /** The resource (group, version, kind) of the object. */
  readonly resource: ResourceDescriptor<T>;
  /** A JSON merge patch (RFC 7386) of the object: `null` removes a field. */
  readonly patch: unknown;
  /** `status` to patch through the status subresource (only `status` in the patch is written); absent patches the object. */
  readonly subresource?: 'status';
  /** The object as last seen (e.g. from a cache): `changed` is told against it, else it is `'unknown'` (see `apply`). */
  readonly current?: T | undefined;
  /** Read the object (one GET) first when `current` is not given, so `changed` is known: two requests. Default false. */
  readonly readFirst?: boolean;
  /** Validate on the server and report what would change, persisting nothing (`dryRun=All`); default false. */
  readonly dryRun?: boolean;
}

/**
 * Merge-patches an object, or its status through the status subresource (`subresource:
 * 'status'`): one PATCH (429 retries aside), nothing else. With `subresource: 'status'`, a
 * resource without a status subresource gives a `NoStatusSubresource` error and a missing object
 * `NotFound` (both told from the server's 404, without a read). `changed` is known when `current`
 * is given or `readFirst` asked for, else `'unknown'`.
 *
 * @example
 * ```ts
 * import { patch } from 'rxfleet/sinks';
 * patch(ctx, { key: req.key, resource: widgets, subresource: 'status', patch: { status: { ready: true } }, current: req.object }).subscribe(report);
 * ```
 * @param ctx - the sink context.
 * @param write - the object, its resource, the patch and the subresource.
 * @returns one outcome, then completes; never errors.
 */
export function patch<T extends KubeObject>(ctx: SinkContext, write: PatchWrite<T>): Observable<WriteOutcome<T>> {
  const { key, resource, subresource } = write;
  const dryRun = write.dryRun ?? false;
  const before = known(ctx, resource, key, write.current, write.readFirst);
  const what = `patch ${subresource === undefined ? '' : `${subresource} of `}${describe(resource, key)}`;
  return before.pipe(
    concatMap((b) => {
      if (E.isLeft(b)) return of(writeFailed<T>('patch', key, b.left, 0, subresource));
      if (b.right === null) return of(writeFailed<T>('patch', key, refusal('NotFound', key, `${describe(resource, key)} not found`), 0, subresource));
      const opts = {
        type: 'merge' as const,
        fieldManager: ctx.fieldManager,
        dryRun,
        ...(subresource === undefined ? {} : { subresource }),
        ...(resource.namespaced ? { namespace: key.namespace } : {}),
      };
      return send(ctx, key.cluster, what, (c) => c.patch(resource, key.name, write.patch, opts)).pipe(
        concatMap(({ result, attempts }) => {
          if (E.isRight(result)) return of(written('patch', key, { changed: changeOf(b.right, result.right, dryRun), object: result.right, attempts, dryRun, subresource }));
          if (subresource === 'status' && result.left.type === 'NotFound') return of(writeFailed<T>('patch', key, explainStatus404(resource, key, result.left), attempts, subresource));
          return of(writeFailed<T>('patch', key, result.left, attempts, subresource));
        }),
      );
    }),
  );
}

/**
 * The operator form of {@link patch}.
 *
 * @example
 * ```ts
 * statuses.pipe(patchEach(ctx, { concurrency: 2 })).subscribe(report);
 * ```
 * @param ctx - the sink context.
 * @param config - concurrency.
 * @returns an operator from writes to outcomes.
 */
export function patchEach<T extends KubeObject>(ctx: SinkContext, config?: SinkOperatorOptions): OperatorFunction<PatchWrite<T>, WriteOutcome<T>> {
  return writeEach((w: PatchWrite<T>) => patch(ctx, w), config);
}
