// Which logical clusters an endpoint serves: a wildcard watch of the objects that make a workspace
// part of the fleet (APIBindings of an export, LogicalClusters still initializing) followed per
// logical cluster, so that a workspace is present from its first such object to its last.
import type { ClusterName } from '../../core/cluster.js';
import { clusterName } from '../../core/cluster.js';
import type { KubeObject } from '../../core/object.js';
import type { WatchEvent } from '../../streams/events.js';
import type { APIBinding } from './types.js';
import { logicalClusterOf } from './types.js';

/**
 * Whether a binding counts for engagement: for this export, and Bound (phase) or Ready
 * (condition). A binding being deleted still counts: kcp deletes the workspace's objects of the
 * export first and waits for their finalizers, which only a controller still serving the workspace
 * can remove (before, unbinding a workspace whose objects carried a controller's finalizer hung
 * for ever). The workspace leaves the fleet when the binding is gone.
 *
 * @example
 * ```ts
 * isBoundTo(binding, 'widgets.example.com'); // true once status.phase is Bound
 * ```
 * @param b - the APIBinding.
 * @param exportName - the APIExport's name.
 * @returns true when the binding engages its cluster.
 */
export function isBoundTo(b: APIBinding, exportName: string): boolean {
  const ref = b.spec?.reference?.export?.name;
  if (ref !== undefined && ref !== exportName) return false;
  return b.status?.phase === 'Bound' || (b.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
}

/**
 * A change of whether a logical cluster has an object that counts (a bound APIBinding, an
 * initializing LogicalCluster) on one endpoint; `object` is the latest one seen.
 *
 * @example
 * ```ts
 * const t: PresenceTransition<APIBinding> = { type: 'present', logical: clusterName('2x9k'), object: binding };
 * ```
 */
export type PresenceTransition<T extends KubeObject> =
  | {
      /** The logical cluster gained its first object that counts. */
      readonly type: 'present';
      /** The logical cluster. */
      readonly logical: ClusterName;
      /** The latest object that counts there (a hint for naming: it may carry `kcp.io/path`). */
      readonly object: T;
    }
  | {
      /** The logical cluster lost its last object that counts. */
      readonly type: 'absent';
      /** The logical cluster. */
      readonly logical: ClusterName;
    };

/**
 * Which logical clusters one endpoint's wildcard watch shows as present, fed event by event.
 *
 * @example
 * ```ts
 * const t: PresenceTracker<APIBinding> = presenceTracker((b: APIBinding) => isBoundTo(b, 'widgets'));
 * ```
 */
export interface PresenceTracker<T extends KubeObject> {
  /** Applies one event of the wildcard watch; returns the transitions it causes (a listing's at its end). */
  apply(ev: WatchEvent<T>): PresenceTransition<T>[];
  /** The logical clusters present now. */
  present(): readonly ClusterName[];
  /** Makes every present cluster absent (the endpoint went away) and returns those transitions. */
  drop(): PresenceTransition<T>[];
}

/**
 * Follows a wildcard watch of one endpoint and reports when a logical cluster gains its first
 * object that counts and when it loses its last one (deleted, no longer counting, or missing from a
 * relist).
 *
 * @example
 * ```ts
 * const tracker = presenceTracker<APIBinding>((b: APIBinding) => isBoundTo(b, 'widgets.example.com'));
 * watchEvents(wildcard, apiBindings).pipe(mergeMap((ev) => tracker.apply(ev)));
 * ```
 * @param counts - whether an object makes its cluster present.
 * @returns the tracker: `apply` per event; `present()` lists the clusters present now; `drop()` makes all absent.
 */
export function presenceTracker<T extends KubeObject>(counts: (obj: T) => boolean): PresenceTracker<T> {
  // logical cluster → names of its objects that count. A change edits it in place: O(1) per event
  // however many clusters are present (a copy per event was O(clusters), 10,000 Sets per binding
  // change on a large fleet).
  let present = new Map<ClusterName, Set<string>>();
  // The listing in progress, and the latest object of each of its clusters (the hint of a cluster
  // that becomes present at its end). Nothing is kept per cluster once a listing ended: a
  // transition carries the object of its own event, so no cluster's object outlives its event.
  let listing: Map<ClusterName, Set<string>> | undefined;
  let hints = new Map<ClusterName, T>();
  const put = (m: Map<ClusterName, Set<string>>, obj: T, logical: ClusterName): void => {
    const name = obj.metadata.name ?? '';
    const set = m.get(logical) ?? new Set<string>();
    if (counts(obj)) set.add(name);
    else set.delete(name);
    if (set.size === 0) m.delete(logical);
    else m.set(logical, set);
  };
  return {
    apply(ev) {
      if (ev.type === 'initStarted') {
        listing = new Map();
        hints = new Map();
        return [];
      }
      if (ev.type === 'initDone') {
        const next = listing ?? new Map<ClusterName, Set<string>>();
        const res: PresenceTransition<T>[] = [];
        for (const logical of present.keys()) if (!next.has(logical)) res.push({ type: 'absent', logical });
        for (const logical of next.keys()) {
          const object = hints.get(logical);
          if (!present.has(logical) && object !== undefined) res.push({ type: 'present', logical, object });
        }
        listing = undefined;
        hints = new Map();
        present = next;
        return res;
      }
      const l = logicalClusterOf(ev.object);
      if (l === undefined) return [];
      const logical = clusterName(l);
      if (ev.type === 'initApply') {
        hints.set(logical, ev.object);
        put((listing ??= new Map<ClusterName, Set<string>>()), ev.object, logical);
        return [];
      }
      const was = present.has(logical);
      if (ev.type === 'applied') put(present, ev.object, logical);
      else {
        const set = present.get(logical);
        set?.delete(ev.object.metadata.name ?? '');
        if (set?.size === 0) present.delete(logical);
      }
      const is = present.has(logical);
      if (!was && is) return [{ type: 'present', logical, object: ev.object }];
      return was && !is ? [{ type: 'absent', logical }] : [];
    },
    present: () => [...present.keys()],
    drop() {
      const res = [...present.keys()].map((logical): PresenceTransition<T> => ({ type: 'absent', logical }));
      present = new Map();
      hints = new Map();
      return res;
    },
  };
}
