// Delete, with preconditions (so a sweep never deletes a newer object that took the same name)
// and a propagation policy. An object that is already gone is what a delete wants: success.
import type { Observable, OperatorFunction } from 'rxjs';
import { map } from 'rxjs';
import type { DeleteOptions } from '../client/client.js';
import type { ObjectKey } from '../core/key.js';
import type { KubeObject } from '../core/object.js';
import type { ResourceDescriptor } from '../core/resource.js';
import { E } from '../internal/fp.js';
import type { SinkContext } from './context.js';
import type { SinkOperatorOptions } from './operator.js';
import { writeEach } from './operator.js';
import { describe } from './read.js';
import type { WriteOutcome } from './result.js';
import { writeFailed, written } from './result.js';
import { send } from './send.js';

/**
 * One delete.
 *
 * @example
 * ```ts
 * const w: DeleteWrite = { key, resource: configMaps, preconditions: { uid }, propagationPolicy: 'Foreground' };
 * ```
 */
export interface DeleteWrite<T extends KubeObject = KubeObject> {
  /** The object, with the cluster to delete it from. */
  readonly key: ObjectKey;
  /** The resource (group, version, kind) of the object. */
  readonly resource: ResourceDescriptor<T>;
  /** Delete only this incarnation (uid) or this version; a mismatch is a Conflict. */
  readonly preconditions?: {
    /** Expected `metadata.uid`: a recreated object of the same name is left alone. */
    readonly uid?: string;
    /** Expected `metadata.resourceVersion`: an object changed since it was read is left alone. */
    readonly resourceVersion?: string;
  };
  /** How dependents are garbage-collected: before the object (`Foreground`), after it (`Background`), or not at all (`Orphan`); absent uses the resource's default, usually `Background`. */
  readonly propagationPolicy?: 'Foreground' | 'Background' | 'Orphan';
  /** Seconds the object gets to terminate before it is removed (0: at once); absent uses the object's own default. */
  readonly gracePeriodSeconds?: number;
  /** Whether an already-missing object is success with `changed: false` (default true). */
  readonly notFoundIsSuccess?: boolean;
  /** Validate the deletion on the server without deleting anything (`dryRun=All`); default false. */
  readonly dryRun?: boolean;
}

// A DELETE answers with the object when finalizers hold it, or with a Status when it is gone.
function isPending(v: KubeObject | { readonly kind?: string }): v is KubeObject {
  return v.kind !== 'Status' && 'metadata' in v && v.metadata.deletionTimestamp !== undefined;
}

/**
 * Deletes an object. `object` in the outcome is the object when deletion waits on finalizers (it
 * now has a `deletionTimestamp`), and `undefined` when it is gone.
 *
 * @example
 * ```ts
 * import { deleteObject } from 'rxfleet/sinks';
 * deleteObject(ctx, { key, resource: configMaps, preconditions: { uid: target.metadata.uid ?? '' } }).subscribe(report);
 * ```
 * @param ctx - the sink context.
 * @param write - the object, preconditions and policy.
 * @returns one outcome, then completes; never errors.
 */
export function deleteObject<T extends KubeObject>(ctx: SinkContext, write: DeleteWrite<T>): Observable<WriteOutcome<T>> {
  const { key, resource } = write;
  const dryRun = write.dryRun ?? false;
  const opts: DeleteOptions = {
    dryRun,
    ...(resource.namespaced ? { namespace: key.namespace } : {}),
    ...(write.preconditions === undefined ? {} : { preconditions: write.preconditions }),
    ...(write.propagationPolicy === undefined ? {} : { propagationPolicy: write.propagationPolicy }),
    ...(write.gracePeriodSeconds === undefined ? {} : { gracePeriodSeconds: write.gracePeriodSeconds }),
  };
  return send(ctx, key.cluster, `delete ${describe(resource, key)}`, (c) => c.delete(resource, key.name, opts)).pipe(
    map(({ result, attempts }) => {
      if (E.isRight(result)) {
        return written<T>('delete', key, { changed: true, object: isPending(result.right) ? result.right : undefined, attempts, dryRun });
      }
      if (result.left.type === 'NotFound' && (write.notFoundIsSuccess ?? true)) return written<T>('delete', key, { changed: false, object: undefined, attempts, dryRun });
      return writeFailed<T>('delete', key, result.left, attempts);
    }),
  );
}

/**
 * The operator form of {@link deleteObject}.
 *
 * @example
 * ```ts
 * orphans.pipe(deleteEach(ctx, { concurrency: 2 })).subscribe(report);
 * ```
 * @param ctx - the sink context.
 * @param config - concurrency.
 * @returns an operator from writes to outcomes.
 */
export function deleteEach<T extends KubeObject>(ctx: SinkContext, config?: SinkOperatorOptions): OperatorFunction<DeleteWrite<T>, WriteOutcome<T>> {
  return writeEach((w: DeleteWrite<T>) => deleteObject(ctx, w), config);
}
