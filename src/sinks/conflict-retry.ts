// The read-modify-write loop behind `update` and the finalizer sinks: read (or start from the
// caller's `current`), compute the new object, PUT it with the resourceVersion it came with, and on
// 409 Conflict wait, read again and recompute (client-go's retry.RetryOnConflict). Waits follow the context's conflict backoff, on its scheduler.
import type { Observable } from 'rxjs';
import { concatMap, of, timer } from 'rxjs';
import type { ObjectKey } from '../core/key.js';
import type { KubeObject } from '../core/object.js';
import type { ResourceDescriptor } from '../core/resource.js';
import { E } from '../internal/fp.js';
import { backoffDelay } from '../streams/backoff.js';
import type { SinkContext } from './context.js';
import { describe, readOrNull } from './read.js';
import type { WriteOutcome, WriteRefusal } from './result.js';
import { refusal, writeFailed, written } from './result.js';
import { send } from './send.js';

/**
 * What a read-modify-write step decides about the object it was given.
 *
 * @example
 * ```ts
 * const m: Mutation<ConfigMap> = { type: 'write', object: { ...cm, data: { n: '1' } } };
 * ```
 */
export type Mutation<T extends KubeObject> =
  | {
      /** Replace the object with `object` (sent with the resourceVersion just read). */
      readonly type: 'write';
      /** The new object. */
      readonly object: T;
    }
  | {
      /** Already as wanted: write nothing, report success with `changed: false`. */
      readonly type: 'unchanged';
    }
  | {
      /** Give up without writing: the outcome is a Left with `error`. */
      readonly type: 'refuse';
      /** Why; the sink adds the verb, the key and the attempts. */
      readonly error: WriteRefusal;
    };

/**
 * Settings of one read-modify-write.
 *
 * @example
 * ```ts
 * const o: ReadModifyWriteOptions<ConfigMap> = { missing: 'unchanged', dryRun: false, current: cached };
 * ```
 */
export interface ReadModifyWriteOptions<T extends KubeObject = KubeObject> {
  /**
   * The object as last seen (e.g. from a cache): the first round starts from it instead of a GET,
   * so a write that goes through costs one PUT. A stale one is safe: the PUT carries its
   * resourceVersion, so the server refuses it (409) and the next round reads the latest.
   */
  readonly current?: T | undefined;
  /** What a missing object means: an error (default) or nothing to do. */
  readonly missing?: 'fail' | 'unchanged';
  /** Validate the PUT on the server without persisting it (`dryRun=All`); default false. */
  readonly dryRun?: boolean;
  /** `status` to replace the status subresource; absent replaces the object itself. */
  readonly subresource?: 'status';
}

/**
 * Reads, mutates and updates one object (an `update`: a PUT of the whole object), retrying on
 * Conflict up to the context's attempts. Requests: a GET then a PUT per round; with
 * `options.current`, the first round sends only the PUT. The outcome's `verb` is `update`;
 * `attempts` counts PUTs sent (429 retries included); a step that decides `unchanged` writes
 * nothing.
 *
 * @example
 * ```ts
 * readModifyWrite(ctx, configMaps, key, (cm) => ({ type: 'write', object: bump(cm) }));
 * ```
 * @param ctx - the sink context.
 * @param r - the resource.
 * @param key - the object, with its cluster.
 * @param step - decides the new object from the current one; called again after each Conflict.
 * @param options - missing-object policy, dry run, subresource.
 * @returns one outcome, then completes; never errors.
 */
export function readModifyWrite<T extends KubeObject>(
  ctx: SinkContext,
  r: ResourceDescriptor<T>,
  key: ObjectKey,
  step: (current: T) => Mutation<T>,
  options: ReadModifyWriteOptions<T> = {},
): Observable<WriteOutcome<T>> {
  const dryRun = options.dryRun ?? false;
  const verb = 'update';
  const { subresource } = options;
  const writeOpts = {
    fieldManager: ctx.fieldManager,
    dryRun,
    ...(r.namespaced ? { namespace: key.namespace } : {}),
    ...(options.subresource === undefined ? {} : { subresource: options.subresource }),
  };
  const { current: first } = options;
  const round = (n: number, sent: number): Observable<WriteOutcome<T>> =>
    (n === 1 && first !== undefined ? of(E.right(first)) : readOrNull(ctx, r, key)).pipe(
      concatMap((read) => {
        if (E.isLeft(read)) return of(writeFailed<T>(verb, key, read.left, sent, subresource));
        const current = read.right;
        if (current === null) {
          return of(
            options.missing === 'unchanged'
              ? written<T>(verb, key, { changed: false, object: undefined, attempts: sent, dryRun, subresource })
              : writeFailed<T>(verb, key, refusal('NotFound', key, `${describe(r, key)} not found`), sent, subresource),
          );
        }
        const m = step(current);
        if (m.type === 'refuse') return of(writeFailed<T>(verb, key, m.error, sent, subresource));
        if (m.type === 'unchanged') return of(written(verb, key, { changed: false, object: current, attempts: sent, dryRun, subresource }));
        // The PUT carries the resourceVersion read (or given): the server refuses it if anyone wrote since.
        const next: T = { ...m.object, metadata: { ...m.object.metadata, resourceVersion: current.metadata.resourceVersion } };
        return send(ctx, key.cluster, `${verb}${subresource === undefined ? '' : ` ${subresource} of`} ${describe(r, key)}`, (c) => c.update(r, next, writeOpts)).pipe(
          concatMap(({ result, attempts }) => {
            const total = sent + attempts;
            if (E.isRight(result)) return of(written(verb, key, { changed: true, object: result.right, attempts: total, dryRun, subresource }));
            if (result.left.type === 'Conflict' && n < ctx.conflictRetry.attempts) {
              return timer(backoffDelay(ctx.conflictRetry.backoff, n - 1, ctx.random), ctx.scheduler).pipe(concatMap(() => round(n + 1, total)));
            }
            return of(writeFailed<T>(verb, key, result.left, total, subresource));
          }),
        );
      }),
    );
  return round(1, 0);
}
