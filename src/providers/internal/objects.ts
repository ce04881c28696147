// Watch events folded into "every object now", the shape providers compute desired sets from.
import type { OperatorFunction } from 'rxjs';
import { filter, map, scan } from 'rxjs';
import type { ClusterName } from '../../core/cluster.js';
import { clusterName } from '../../core/cluster.js';
import type { KubeObject } from '../../core/object.js';
import type { WatchEvent } from '../../streams/events.js';
import type { Candidate, Desired } from './candidates.js';

interface Fold<T> {
  readonly ready: Map<string, T>;
  readonly listing: Map<string, T> | undefined;
  readonly emit: boolean;
}

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
 * Folds a watch into snapshots of every object, by `namespace/name`: one after each complete
 * listing (so a relist that lost objects removes them) and one after each later change. Nothing is
 * emitted before the first listing is done, so a provider never disengages what it has not seen.
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
      scan<WatchEvent<T>, Fold<T>>(
        (s, ev) => {
          switch (ev.type) {
            case 'initStarted':
              return { ready: s.ready, listing: new Map<string, T>(), emit: false };
            case 'initApply':
              s.listing?.set(objectId(ev.object), ev.object);
              return { ...s, emit: false };
            case 'initDone':
              return { ready: s.listing ?? new Map<string, T>(), listing: undefined, emit: true };
            case 'applied': {
              const ready = new Map(s.ready).set(objectId(ev.object), ev.object);
              return { ready, listing: s.listing, emit: s.listing === undefined };
            }
            case 'deleted': {
              const ready = new Map(s.ready);
              ready.delete(objectId(ev.object));
              return { ready, listing: s.listing, emit: s.listing === undefined };
            }
          }
        },
        { ready: new Map<string, T>(), listing: undefined, emit: false },
      ),
      filter((s) => s.emit),
      map((s): ReadonlyMap<string, T> => s.ready),
    );
}
