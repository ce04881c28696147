// Schemas follow live. When the publisher moves the APIExport to a new APIResourceSchema, kcp
// re-binds each consumer workspace to it, but a watch of the APIExport's virtual workspace that is
// already open keeps serving objects through the schema it was opened with: a field the CRD gained
// is pruned from every event, so it never reaches the service copy (until the agent restarts). The
// provider's watches are built by a `listerWatcherFor` (its supported extension point): this one
// passes every call through, reads the APIBinding events the provider's presence watch already
// receives, and when a binding names another schema for a published resource, ends that resource's
// open watch with a 410 Gone, so the informer lists it again through the schema now bound. No
// request is added; one list follows the moves of a coalescing window.
import type { Observable } from 'rxjs';
import type { SchedulerLike } from 'rxjs';
import { Subject, asyncScheduler, auditTime, from, map, merge, share, take, tap } from 'rxjs';
import type { KubeObject, ResourceDescriptor } from 'rxfleet';
import { E } from 'rxfleet/fp';
import type { Cluster, ListerWatcher } from 'rxfleet/streams';
import { clusterListerWatcher } from 'rxfleet/streams';

type Json = Readonly<Record<string, unknown>>;
const isMap = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

// What a watch line says when its resourceVersion is too old: the informer lists again.
const gone = JSON.stringify({
  type: 'ERROR',
  object: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Expired', code: 410, message: 'the APIExport moved to a new schema: listing again through it' },
});

/**
 * The `listerWatcherFor` of the agent's APIExport provider (`managementWatch.listerWatcherFor`).
 *
 * @example
 * ```ts
 * const follow = schemaFollower(plans.map((p: PublishedPlan) => p.kcp));
 * apiExportProvider({ management, exportName, managementWatch: { listerWatcherFor: follow.listerWatcherFor } });
 * ```
 */
export interface SchemaFollower {
  /** Builds a watch's list and watch calls: the client's, with the behaviour above. */
  readonly listerWatcherFor: <T extends KubeObject>(cluster: Cluster, resource: ResourceDescriptor<T>) => ListerWatcher<T>;
  /** Emits each time a binding moved to another schema of a published resource. */
  readonly moves: Observable<void>;
  /**
   * Follows these resources from now on instead (the published set changed while the agent runs);
   * watches opened later read it.
   */
  follow(published: readonly ResourceDescriptor[]): void;
}

// A line the watch machine will judge itself: here a bad one is only not read.
const parsed = (line: string): unknown => {
  try {
    return JSON.parse(line) as unknown;
  } catch {
    return undefined;
  }
};

const groupResource = (r: { readonly group: string; readonly plural: string }): string => `${r.plural}.${r.group}`;

/**
 * The schemas of `published` in each binding, as one string: equal while no binding moved.
 *
 * @example
 * ```ts
 * boundSchemas(binding, new Set(['databases.db.example.dev'])); // '[["databases.db.example.dev","<schema uid>"]]'
 * ```
 * @param binding - an APIBinding (any shape).
 * @param published - `<plural>.<group>` of each published resource in kcp.
 * @returns the bound schemas of those resources.
 */
export function boundSchemas(binding: unknown, published: ReadonlySet<string>): string {
  const status = isMap(binding) && isMap(binding.status) ? binding.status : {};
  const bound = Array.isArray(status.boundResources) ? (status.boundResources as unknown[]) : [];
  const mine = bound.flatMap((b) => {
    if (!isMap(b)) return [];
    const id = `${String(b.resource)}.${typeof b.group === 'string' ? b.group : ''}`;
    const schema = isMap(b.schema) ? `${String(b.schema.name)}/${String(b.schema.UID)}` : '';
    return published.has(id) ? [[id, schema]] : [];
  });
  return JSON.stringify(mine.sort());
}

/**
 * Options of {@link schemaFollower}.
 *
 * @example
 * ```ts
 * const o: SchemaFollowerOptions = { coalesceMs: 1_000 };
 * ```
 */
export interface SchemaFollowerOptions {
  /**
   * Moves within this long after the first are answered by one list: a rollout rebinds every
   * workspace one by one, and each list reads the published resource of all of them. Default 1,000 ms.
   */
  readonly coalesceMs?: number;
  /** Drives the coalescing. Default `asyncScheduler`. */
  readonly scheduler?: SchedulerLike;
}

/**
 * A {@link SchemaFollower} for the resources consumers see in kcp.
 *
 * @example
 * ```ts
 * const follow = schemaFollower([plan.kcp]);
 * ```
 * @param published - the resources in kcp (`PublishedPlan.kcp`).
 * @param options - how moves are coalesced.
 * @returns the follower.
 */
export function schemaFollower(published: readonly ResourceDescriptor[], options: SchemaFollowerOptions = {}): SchemaFollower {
  let ids: ReadonlySet<string> = new Set(published.map(groupResource));
  const seen = new Map<string, string>();
  const moved = new Subject<void>();
  // At most one list per window: the first move opens it, the end of it relists (auditTime).
  const relist = moved.pipe(auditTime(options.coalesceMs ?? 1_000, options.scheduler ?? asyncScheduler), share());
  // A binding seen for the first time (listed, added) is recorded; one that names other schemas than before moved.
  const record = (binding: unknown, announce: boolean): void => {
    const meta = isMap(binding) && isMap(binding.metadata) ? binding.metadata : {};
    const key = `${String(meta.annotations === undefined ? '' : (meta.annotations as Json)['kcp.io/cluster'])}/${String(meta.name)}`;
    const now = boundSchemas(binding, ids);
    const before = seen.get(key);
    seen.set(key, now);
    if (announce && before !== undefined && before !== now) moved.next();
  };
  return {
    moves: moved.asObservable(),
    follow: (next) => {
      ids = new Set(next.map(groupResource));
    },
    listerWatcherFor: <T extends KubeObject>(cluster: Cluster, resource: ResourceDescriptor<T>): ListerWatcher<T> => {
      const base = clusterListerWatcher(cluster, resource);
      if (resource.group === 'apis.kcp.io' && resource.plural === 'apibindings') {
        return {
          list: (opts) =>
            from(base.list(opts)).pipe(
              tap((r) => {
                if (E.isRight(r)) for (const b of r.right.items) record(b, false);
              }),
            ),
          watch: (opts) =>
            base.watch(opts).pipe(
              tap((line) => {
                const ev = parsed(line);
                if (isMap(ev) && (ev.type === 'ADDED' || ev.type === 'MODIFIED')) record(ev.object, ev.type === 'MODIFIED');
              }),
            ),
        };
      }
      if (!ids.has(groupResource(resource))) return base;
      return {
        list: (opts) => base.list(opts),
        watch: (opts) =>
          merge(
            base.watch(opts),
            relist.pipe(
              take(1),
              map(() => gone),
            ),
          ),
      };
    },
  };
}
