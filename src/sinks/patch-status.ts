// A JSON merge patch of status, through the status subresource only: the server ignores spec there,
// so a status writer cannot change desired state, and spec writers never race status writers.
// One request per patch: no read first unless asked for.
import type { Observable, OperatorFunction } from 'rxjs';
import { concatMap, of } from 'rxjs';
import type { ObjectKey } from '../core/key.js';
import type { KubeObject } from '../core/object.js';
import type { ResourceDescriptor } from '../core/resource.js';
import { E } from '../internal/fp.js';
import type { SinkContext } from './context.js';
import type { SinkOperatorConfig } from './operator.js';
import { writeEach } from './operator.js';
import { changeOf, describe, explainStatus404, known } from './read.js';
import type { WriteOutcome } from './result.js';
import { refusal, writeFailed, written } from './result.js';
import { send } from './send.js';

/**
 * One status patch.
 *
 * @example
 * ```ts
 * const w: PatchWrite<Widget> = { key: objectKey(cluster, 'default', 'w'), resource: widgets, status: { ready: true } };
 * ```
 */
export interface PatchWrite<T extends KubeObject = KubeObject> {
  /** The object, with the cluster to write to. */
  readonly key: ObjectKey;
  /** The resource (group, version, kind) of the object. */
  readonly resource: ResourceDescriptor<T>;
  /** Merged into `status` (JSON merge patch: `null` removes a field). */
  readonly status: unknown;
  /** The object as last seen (e.g. from a cache): `changed` is told against it, else it is `'unknown'` (see `apply`). */
  readonly current?: T | undefined;
  /** Read the object (one GET) first when `current` is not given, so `changed` is known: two requests. Default false. */
  readonly readFirst?: boolean;
  /** Validate on the server and report what would change, persisting nothing (`dryRun=All`); default false. */
  readonly dryRun?: boolean;
}

/**
 * Merge-patches an object's status through the status subresource: one PATCH (429 retries aside),
 * nothing else. A resource without a status subresource gives a `NoStatusSubresource` error; a
 * missing object gives `NotFound` (both told from the server's 404, without a read). `changed`
 * is known when `current` is given or `readFirst` asked for, else `'unknown'`.
 *
 * @example
 * ```ts
 * import { patchStatus } from 'rxfleet/sinks';
 * patchStatus(ctx, { key: req.key, resource: widgets, status: { ready: true }, current: req.object }).subscribe(report);
 * ```
 * @param ctx - the sink context.
 * @param write - the object, its resource and the status patch.
 * @returns one outcome, then completes; never errors.
 */
export function patchStatus<T extends KubeObject>(ctx: SinkContext, write: PatchWrite<T>): Observable<WriteOutcome<T>> {
  const { key, resource } = write;
  const dryRun = write.dryRun ?? false;
  const before = known(ctx, resource, key, write.current, write.readFirst);
  return before.pipe(
    concatMap((b) => {
      if (E.isLeft(b)) return of(writeFailed<T>('patchStatus', key, b.left, 0));
      if (b.right === null) return of(writeFailed<T>('patchStatus', key, refusal('NotFound', key, `${describe(resource, key)} not found`), 0));
      const opts = { type: 'merge' as const, subresource: 'status', fieldManager: ctx.fieldManager, dryRun, ...(resource.namespaced ? { namespace: key.namespace } : {}) };
      return send(ctx, key.cluster, `patch status of ${describe(resource, key)}`, (c) => c.patch(resource, key.name, { status: write.status }, opts)).pipe(
        concatMap(({ result, attempts }) => {
          if (E.isRight(result)) return of(written('patchStatus', key, { changed: changeOf(b.right, result.right, dryRun), object: result.right, attempts, dryRun }));
          if (result.left.type === 'NotFound') return of(writeFailed<T>('patchStatus', key, explainStatus404(resource, key, result.left), attempts));
          return of(writeFailed<T>('patchStatus', key, result.left, attempts));
        }),
      );
    }),
  );
}

/**
 * The operator form of {@link patchStatus}.
 *
 * @example
 * ```ts
 * statuses.pipe(patchStatusEach(ctx, { concurrency: 2 })).subscribe(report);
 * ```
 * @param ctx - the sink context.
 * @param config - concurrency.
 * @returns an operator from writes to outcomes.
 */
export function patchStatusEach<T extends KubeObject>(ctx: SinkContext, config?: SinkOperatorConfig): OperatorFunction<PatchWrite<T>, WriteOutcome<T>> {
  return writeEach((w: PatchWrite<T>) => patchStatus(ctx, w), config);
}
