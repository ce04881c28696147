// Adds a finalizer, conflict-safe, and never to an object already being deleted: a finalizer added
// after the deletionTimestamp would hold the object for a cleanup that was never going to run.
import type { Observable, OperatorFunction } from 'rxjs';
import type { ObjectKey } from '../core/key.js';
import type { KubeObject } from '../core/object.js';
import type { ResourceDescriptor } from '../core/resource.js';
import { readModifyWrite } from './conflict-retry.js';
import type { SinkContext } from './context.js';
import type { SinkOperatorOptions } from './operator.js';
import { writeEach } from './operator.js';
import type { WriteOutcome } from './result.js';
import { refusal } from './result.js';

/**
 * One finalizer to add or remove.
 *
 * @example
 * ```ts
 * const w: FinalizerWrite = { key: objectKey(cluster, 'default', 'src'), resource: configMaps, finalizer: 'rollouts.demo.rxfleet.dev/cleanup' };
 * ```
 */
export interface FinalizerWrite<T extends KubeObject = KubeObject> {
  /** The object, with the cluster to write to. */
  readonly key: ObjectKey;
  /** The resource (group, version, kind) of the object. */
  readonly resource: ResourceDescriptor<T>;
  /** A qualified name, e.g. `example.com/cleanup`. */
  readonly finalizer: string;
  /**
   * The object as last seen (e.g. from a cache): decided on first, saving the GET, so adding a
   * finalizer costs one PUT (none when it is there). A stale one gets a 409 and a fresh read.
   */
  readonly current?: T | undefined;
  /** Validate on the server and report what would change, persisting nothing (`dryRun=All`); default false. */
  readonly dryRun?: boolean;
}

/**
 * Adds a finalizer to an object unless it is there already (`changed: false`). An object with a
 * `deletionTimestamp` is refused with a `Terminating` error; the check is repeated on every read of
 * the conflict-retry loop, and the PUT carries the read resourceVersion, so a deletion that starts
 * between the read and the write makes the write conflict instead of slipping the finalizer in.
 * Requests: GET then PUT, or the PUT alone when `current` is given.
 *
 * @example
 * ```ts
 * import { ensureFinalizer } from 'rxfleet/sinks';
 * ensureFinalizer(ctx, { key, resource: rollouts, finalizer: 'rollouts.demo.rxfleet.dev/cleanup', current: req.object })
 *   .subscribe((o) => E.isLeft(o) && o.left.type === 'Terminating' && cleanUpNow());
 * ```
 * @param ctx - the sink context.
 * @param write - the object and the finalizer.
 * @returns one outcome, then completes; never errors.
 */
export function ensureFinalizer<T extends KubeObject>(ctx: SinkContext, write: FinalizerWrite<T>): Observable<WriteOutcome<T>> {
  const { key, finalizer } = write;
  return readModifyWrite(
    ctx,
    write.resource,
    key,
    (current) => {
      const finalizers = current.metadata.finalizers ?? [];
      if (finalizers.includes(finalizer)) return { type: 'unchanged' };
      if (current.metadata.deletionTimestamp !== undefined) {
        return {
          type: 'refuse',
          error: refusal('Terminating', key, `will not add finalizer ${finalizer}: the object is being deleted (deletionTimestamp ${current.metadata.deletionTimestamp})`),
        };
      }
      return { type: 'write', object: { ...current, metadata: { ...current.metadata, finalizers: [...finalizers, finalizer] } } };
    },
    { ...(write.dryRun === undefined ? {} : { dryRun: write.dryRun }), current: write.current },
  );
}

/**
 * The operator form of {@link ensureFinalizer}.
 *
 * @example
 * ```ts
 * sources.pipe(map(toFinalizerWrite), ensureFinalizerEach(ctx)).subscribe(report);
 * ```
 * @param ctx - the sink context.
 * @param config - concurrency.
 * @returns an operator from writes to outcomes.
 */
export function ensureFinalizerEach<T extends KubeObject>(ctx: SinkContext, config?: SinkOperatorOptions): OperatorFunction<FinalizerWrite<T>, WriteOutcome<T>> {
  return writeEach((w: FinalizerWrite<T>) => ensureFinalizer(ctx, w), config);
}
