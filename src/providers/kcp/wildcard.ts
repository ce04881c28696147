// Splitting one wildcard watch (`<endpoint>/clusters/*`) by logical cluster: objects go into a
// store keyed by their own logical cluster, and a relist of the wildcard becomes a relist of every
// logical cluster the endpoint served, so objects of a workspace that vanished get their deletes.
import type { ClusterName } from '../../core/cluster.js';
import { clusterName } from '../../core/cluster.js';
import type { KubeObject } from '../../core/object.js';
import type { WatchEvent } from '../../streams/events.js';
import type { StoreWriter } from '../../streams/store.js';
import type { APIBinding } from './types.js';
import { logicalClusterOf } from './types.js';

/**
 * One object event of one logical cluster, after the store has applied it.
 *
 * @example
 * ```ts
 * const ev: ClusterObjectEvent<Widget> = { logical: clusterName('2x9k'), event: { type: 'applied', object: w } };
 * ```
 */
export interface ClusterObjectEvent<T extends KubeObject> {
  readonly logical: ClusterName;
  readonly event: Extract<WatchEvent<T>, { readonly type: 'applied' | 'deleted' }>;
}

/**
 * Writes the events of one endpoint's wildcard watch into a store shared by every endpoint, keyed
 * by each object's `kcp.io/cluster`. Objects without the annotation are ignored (kcp always sets it).
 * A listing's objects come out as `applied` at its end (after the deletes it implies), when the
 * store already holds them; live events come out as they are applied.
 *
 * @example
 * ```ts
 * const split = wildcardSplitter(store);
 * watch(wildcard, widgets).pipe(mergeMap((ev) => split.apply(ev))).subscribe(({ logical, event }) => {
 *   console.log(logical, event.type);
 * });
 * ```
 * @param store - the resource's store (shared across endpoints: a logical cluster lives on one shard).
 * @returns the splitter of one endpoint: `apply` per event, `clusters()` it has objects for, `drop()` to forget them all.
 */
export function wildcardSplitter<T extends KubeObject>(
  store: StoreWriter<T>,
): { apply(ev: WatchEvent<T>): ClusterObjectEvent<T>[]; clusters(): ReadonlySet<ClusterName>; drop(): ClusterObjectEvent<T>[] } {
  const known = new Set<ClusterName>();
  let listing: Set<ClusterName> | undefined;
  const out = (logical: ClusterName, evs: readonly WatchEvent<T>[]): ClusterObjectEvent<T>[] =>
    evs.flatMap((event) => (event.type === 'applied' || event.type === 'deleted' ? [{ logical, event }] : []));
  const start = (logical: ClusterName): void => {
    if (listing === undefined || listing.has(logical)) return;
    listing.add(logical);
    store.apply(logical, { type: 'initStarted' });
  };
  const logicalOf = (obj: T): ClusterName | undefined => {
    const l = logicalClusterOf(obj);
    return l === undefined ? undefined : clusterName(l);
  };
  return {
    apply(ev) {
      switch (ev.type) {
        case 'initStarted':
          listing = new Set();
          return [];
        case 'initDone': {
          const done = listing ?? new Set<ClusterName>();
          listing = undefined;
          const res: ClusterObjectEvent<T>[] = [];
          // Every cluster seen before or in this listing ends its listing: the store emits one
          // delete per object missing from it (a whole workspace's objects when it is gone).
          for (const logical of new Set([...known, ...done])) {
            if (!done.has(logical)) store.apply(logical, { type: 'initStarted' });
            res.push(...out(logical, store.apply(logical, { type: 'initDone' })));
            // Listed objects go out only now, once the store holds them: a reconciler woken by one
            // must find it with lookup (a relist is a resync, as in toKeyedEvents).
            for (const object of store.byIndex('cluster', logical)) res.push({ logical, event: { type: 'applied', object } });
            if (!done.has(logical)) known.delete(logical);
          }
          for (const logical of done) known.add(logical);
          return res;
        }
        case 'initApply':
        case 'applied':
        case 'deleted': {
          const logical = logicalOf(ev.object);
          if (logical === undefined) return [];
          start(logical);
          known.add(logical);
          return out(logical, store.apply(logical, ev));
        }
      }
    },
    clusters: () => known,
    drop() {
      const res: ClusterObjectEvent<T>[] = [];
      for (const logical of known) {
        for (const object of store.byIndex('cluster', logical)) res.push({ logical, event: { type: 'deleted', object } });
        store.dropCluster(logical);
      }
      known.clear();
      return res;
    },
  };
}

/**
 * Whether a binding counts for engagement: for this export, not being deleted, and Bound (phase)
 * or Ready (condition).
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
  if (b.metadata.deletionTimestamp !== undefined) return false;
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
  | { readonly type: 'present'; readonly logical: ClusterName; readonly object: T }
  | { readonly type: 'absent'; readonly logical: ClusterName };

/**
 * Follows a wildcard watch of one endpoint and reports when a logical cluster gains its first
 * object that counts and when it loses its last one (deleted, no longer counting, or missing from a
 * relist).
 *
 * @example
 * ```ts
 * const tracker = presenceTracker<APIBinding>((b) => isBoundTo(b, 'widgets.example.com'));
 * watch(wildcard, apiBindings).pipe(mergeMap((ev) => tracker.apply(ev)));
 * ```
 * @param counts - whether an object makes its cluster present.
 * @returns the tracker: `apply` per event; `present()` lists the clusters present now; `drop()` makes all absent.
 */
export function presenceTracker<T extends KubeObject>(
  counts: (obj: T) => boolean,
): {
  apply(ev: WatchEvent<T>): PresenceTransition<T>[];
  present(): readonly ClusterName[];
  drop(): PresenceTransition<T>[];
} {
  // logical cluster → names of its objects that count.
  let present = new Map<ClusterName, Set<string>>();
  let listing: Map<ClusterName, Set<string>> | undefined;
  let last = new Map<ClusterName, T>();
  const put = (m: Map<ClusterName, Set<string>>, obj: T, logical: ClusterName): void => {
    const name = obj.metadata.name ?? '';
    const set = m.get(logical) ?? new Set<string>();
    if (counts(obj)) set.add(name);
    else set.delete(name);
    if (set.size === 0) m.delete(logical);
    else m.set(logical, set);
  };
  const diff = (before: ReadonlyMap<ClusterName, ReadonlySet<string>>, after: ReadonlyMap<ClusterName, ReadonlySet<string>>): PresenceTransition<T>[] => {
    const res: PresenceTransition<T>[] = [];
    for (const logical of before.keys()) if (!after.has(logical)) res.push({ type: 'absent', logical });
    for (const logical of after.keys()) {
      const object = last.get(logical);
      if (!before.has(logical) && object !== undefined) res.push({ type: 'present', logical, object });
    }
    return res;
  };
  return {
    apply(ev) {
      if (ev.type === 'initStarted') {
        listing = new Map();
        return [];
      }
      if (ev.type === 'initDone') {
        const next = listing ?? new Map<ClusterName, Set<string>>();
        listing = undefined;
        const res = diff(present, next);
        present = next;
        return res;
      }
      const l = logicalClusterOf(ev.object);
      if (l === undefined) return [];
      const logical = clusterName(l);
      if (ev.type === 'initApply') {
        last.set(logical, ev.object);
        put((listing ??= new Map<ClusterName, Set<string>>()), ev.object, logical);
        return [];
      }
      const next = new Map([...present].map(([k, v]): [ClusterName, Set<string>] => [k, new Set(v)]));
      if (ev.type === 'applied') {
        last.set(logical, ev.object);
        put(next, ev.object, logical);
      } else {
        const set = next.get(logical);
        set?.delete(ev.object.metadata.name ?? '');
        if (set?.size === 0) next.delete(logical);
      }
      const res = diff(present, next);
      present = next;
      if (!present.has(logical)) last.delete(logical);
      return res;
    },
    present: () => [...present.keys()],
    drop() {
      const res = [...present.keys()].map((logical): PresenceTransition<T> => ({ type: 'absent', logical }));
      present = new Map();
      last = new Map();
      return res;
    },
  };
}
