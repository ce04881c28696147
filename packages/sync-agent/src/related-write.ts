// The write of a related copy, guarded against a writer the cache has not seen yet. Two consumer
// objects of one namespace can name the same related object at the same instant: both find it
// absent in the cache, and a plain apply by the second would overwrite the first's copy (its
// contents and its back-reference) before any ownership check could see it. So the write states
// what the cache saw: absent is a create (refused by the server when someone made it meanwhile),
// present is an apply carrying the cached resourceVersion (refused when anyone wrote since). Either
// refusal is a Conflict: the next reconcile reads the object as it now is, and its ownership check
// decides.
import type { Observable } from 'rxjs';
import { map } from 'rxjs';
import type { KubeObject, ResourceDescriptor } from 'rxfleet';
import type { ClusterName } from 'rxfleet';
import { E } from 'rxfleet/fp';
import type { SinkContext, WriteOutcome } from 'rxfleet/sinks';
import { apply, create, refusal, writeFailed } from 'rxfleet/sinks';

/**
 * One guarded write of a related copy.
 *
 * @example
 * ```ts
 * const w: GuardedWrite = { cluster: req.cluster, resource: secrets, object: desired, current: cached };
 * ```
 */
export interface GuardedWrite {
  /** Where the copy goes. */
  readonly cluster: ClusterName;
  /** Its resource (Secrets or ConfigMaps). */
  readonly resource: ResourceDescriptor;
  /** The copy as it should be. */
  readonly object: KubeObject;
  /** The copy as the cache holds it, `undefined` when the cache holds none. */
  readonly current: KubeObject | undefined;
}

/**
 * Writes a related copy only over what the cache saw: a create when it saw nothing, else an apply
 * with the cached `resourceVersion` as precondition. When the server finds someone else's write
 * in between (AlreadyExists, or a stale resourceVersion), nothing is written and the outcome is a
 * Conflict, so the key is reconciled again from the object as it now is. One request either way.
 *
 * @example
 * ```ts
 * const action$ = guardedWrite(ctx.sinks, { cluster: req.cluster, resource: secrets, object: desired, current: undefined }).pipe(toAction());
 * ```
 * @param sinks - the controller's sinks.
 * @param w - the write.
 * @returns one outcome, then completes.
 */
export function guardedWrite(sinks: SinkContext, w: GuardedWrite): Observable<WriteOutcome> {
  if (w.current === undefined) {
    return create(sinks, {
      cluster: w.cluster,
      resource: w.resource,
      object: w.object,
    }).pipe(
      map((o) =>
        E.isLeft(o) && o.left.type === 'AlreadyExists'
          ? writeFailed('create', o.left.key, refusal('Conflict', o.left.key, 'made by another writer since the cache was read; read again before writing'), o.left.attempts)
          : o,
      ),
    );
  }
  const rv = w.current.metadata.resourceVersion;
  const object: KubeObject =
    rv === undefined
      ? w.object
      : {
          ...w.object,
          metadata: { ...w.object.metadata, resourceVersion: rv },
        };
  return apply(sinks, {
    cluster: w.cluster,
    resource: w.resource,
    object,
    current: w.current,
  });
}
