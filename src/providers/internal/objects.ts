// Watch events folded by object: the whole set after each listing, then one object per change
// (objectChanges), or a snapshot of every object after each change (snapshots) for providers that
// join several watches. Providers compute their desired clusters from these.
import type { OperatorFunction } from 'rxjs';
import { Observable, scan } from 'rxjs';
import type { ClusterName } from '../../core/cluster.js';
import { clusterName } from '../../core/cluster.js';
import type { KubeObject } from '../../core/object.js';
import type { WatchEvent } from '../../streams/events.js';
import type { Candidate, Desired } from './candidates.js';

/** `namespace/name` of an object. @example `objectId(secret) // 'fleet/east'` @param o - the object. @returns its id. */
export function objectId(o: KubeObject): string {
  return `${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`;
}

/**
 * The desired set of a snapshot of objects that each describe one cluster (a Cluster API Cluster, a
 * ClusterProfile): one candidate per object not being deleted, named `<namespace>/<name>`.
 *
 * @example
 * ```ts
 * desiredByObject(profiles, (p: KubeObject, id: string, name: ClusterName) => skipped(name, `ClusterProfile ${id}: not ready`));
 * ```
 * @param objects - the snapshot, by `namespace/name`.
 * @param candidate - the candidate of one object, given its id and cluster name.
 * @returns candidates by cluster name.
 */
export function desiredByObject<T extends KubeObject>(objects: ReadonlyMap<string, T>, candidate: (o: T, id: string, name: ClusterName) => Candidate): Desired {
  const out = new Map<ClusterName, Candidate>();
  for (const o of objects.values()) {
    if (o.metadata.deletionTimestamp !== undefined) continue;
    const id = objectId(o);
    const name = clusterName(id);
    out.set(name, candidate(o, id, name));
  }
  return out;
}

/**
 * One step of a watch folded by object id (`namespace/name`): the whole set after each complete
 * listing (so a relist that lost objects removes them), then one object set or gone per later
 * change. Nothing is emitted before the first listing is done, so a provider never disengages what
 * it has not seen; changes seen while a relist runs are covered by its result.
 *
 * @example
 * ```ts
 * const step: ObjectChange<Secret> = { type: 'gone', id: 'fleet/east' };
 * ```
 */
export type ObjectChange<T extends KubeObject> =
  | {
      /** A listing ended: these are all the objects now. */
      readonly type: 'listed';
      /** Every object, by `namespace/name`. */
      readonly all: ReadonlyMap<string, T>;
    }
  | {
      /** One object was added or changed. */
      readonly type: 'set';
      /** Its `namespace/name`. */
      readonly id: string;
      /** Its new state. */
      readonly object: T;
    }
  | {
      /** One object was deleted. */
      readonly type: 'gone';
      /** Its `namespace/name`. */
      readonly id: string;
    };

/**
 * Folds a watch into {@link ObjectChange}s: O(1) per event after the listing, whatever the number
 * of objects (the per-object path a provider needs to engage thousands of clusters without
 * rebuilding its desired set on every change).
 *
 * @example
 * ```ts
 * watchEvents(hub, namespaces).pipe(objectChanges()).subscribe((c: ObjectChange<Namespace>) => console.log(c.type)); // 'listed', then 'set' / 'gone'
 * ```
 * @returns the operator.
 */
export function objectChanges<T extends KubeObject>(): OperatorFunction<WatchEvent<T>, ObjectChange<T>> {
  return (source) =>
    new Observable<ObjectChange<T>>((subscriber) => {
      let listing: Map<string, T> | undefined;
      let listed = false;
      return source.subscribe({
        next: (ev) => {
          switch (ev.type) {
            case 'initStarted':
              listing = new Map<string, T>();
              return;
            case 'initApply':
              listing?.set(objectId(ev.object), ev.object);
              return;
            case 'initDone': {
              const all = listing ?? new Map<string, T>();
              listing = undefined;
              listed = true;
              subscriber.next({ type: 'listed', all });
              return;
            }
            case 'applied':
              if (listed && listing === undefined) subscriber.next({ type: 'set', id: objectId(ev.object), object: ev.object });
              return;
            case 'deleted':
              if (listed && listing === undefined) subscriber.next({ type: 'gone', id: objectId(ev.object) });
              return;
          }
        },
        error: (err: unknown) => {
          subscriber.error(err);
        },
        complete: () => {
          subscriber.complete();
        },
      });
    });
}

/**
 * Folds a watch into snapshots of every object, by `namespace/name`: one after each complete
 * listing and one after each later change (see {@link objectChanges}). Each snapshot is a new
 * map (O(objects) per change): for providers that join several watches; a provider with one
 * candidate per object folds {@link objectChanges} instead.
 *
 * @example
 * ```ts
 * watchEvents(management, secrets, { namespace: 'fleet' })
 *   .pipe(snapshots(), map((all: ReadonlyMap<string, Secret>) => [...all.keys()]))
 *   .subscribe((ids) => console.log(ids)); // ['fleet/east-kubeconfig', ...]: after the listing, then after each change
 * ```
 * @returns the operator.
 */
export function snapshots<T extends KubeObject>(): OperatorFunction<WatchEvent<T>, ReadonlyMap<string, T>> {
  return (source) =>
    source.pipe(
      objectChanges<T>(),
      scan((all: ReadonlyMap<string, T>, c: ObjectChange<T>): ReadonlyMap<string, T> => {
        switch (c.type) {
          case 'listed':
            return c.all;
          case 'set':
            return new Map(all).set(c.id, c.object);
          case 'gone': {
            const next = new Map(all);
            next.delete(c.id);
            return next;
          }
        }
      }, new Map<string, T>()),
    );
}
