// Deciding, before an apply is sent, whether a cache proves it needless. Two things must hold: the
// proof of apply-proof.ts on the cached object, and the cache must have seen this context's own
// last apply of the object (a cache a write ahead of is stale, and re-applying what it shows could
// undo that write). Own writes are remembered by the resourceVersion the server answered with;
// resourceVersions are compared as the decimal etcd revisions Kubernetes and kcp give out, and a
// version that is not one proves nothing.
import type { Observable } from 'rxjs';
import { defaultIfEmpty, defer, map, of, take, timer, race } from 'rxjs';
import type { ClusterName } from '../core/cluster.js';
import type { ObjectKey } from '../core/key.js';
import type { KubeObject } from '../core/object.js';
import type { ResourceDescriptor } from '../core/resource.js';
import { apiVersionOf, resourceId } from '../core/resource.js';
import type { ApplyProof } from './apply-proof.js';
import { applyChangesNothing } from './apply-proof.js';
import type { SinkContext } from './context.js';

/**
 * Where `apply` looks for the object it is about to apply, to send nothing when the object already
 * is as applied (see {@link applyChangesNothing}). The runtime gives the controller's sinks one
 * over its own watches; the objects must keep the field manager's Apply entry of
 * `metadata.managedFields` (`WatchConfig.keepManagedFieldsOf`).
 *
 * @example
 * ```ts
 * const cache: SinkCache = { get: (cluster, resource, key) => informers.informer(fleet.get(cluster)!, resource).store.get(key) };
 * ```
 */
export interface SinkCache {
  /**
   * The cached object, or `undefined` when the cache holds none it can vouch for (not watched, not
   * yet listed, not in the cache).
   */
  get<T extends KubeObject>(cluster: ClusterName, resource: ResourceDescriptor<T>, key: ObjectKey): T | undefined;
  /**
   * When the cache watches the object's resource there but has not listed yet: a stream that emits
   * once it has (or once its watch fails), so `apply` decides from a listed cache rather than send
   * what a moment later it could have proven needless; `undefined` when there is nothing to wait
   * for. `apply` waits at most 10 s (`cacheListWaitMs`).
   */
  listed?(cluster: ClusterName, resource: ResourceDescriptor, key: ObjectKey): Observable<unknown> | undefined;
}

/**
 * The longest `apply` waits for a cache that watches its object to list (see {@link SinkCache}):
 * then it sends, as without a cache.
 *
 * @example
 * ```ts
 * cacheListWaitMs; // 10_000
 * ```
 */
export const cacheListWaitMs = 10_000;

// Own applies remembered per context, at most this many objects: beyond it the oldest is
// forgotten, and its cluster's highest forgotten version is kept instead (a cache older than it
// proves nothing in that cluster), so forgetting never lets a stale cache through.
const REMEMBERED = 50_000;

interface Memory {
  readonly versions: Map<string, string>;
  readonly forgotten: Map<ClusterName, string>;
}

const memories = new WeakMap<SinkContext, Memory>();

function memoryOf(ctx: SinkContext): Memory {
  let m = memories.get(ctx);
  if (m === undefined) memories.set(ctx, (m = { versions: new Map(), forgotten: new Map() }));
  return m;
}

const memoryKey = (r: ResourceDescriptor, key: ObjectKey, subresource: string | undefined): string =>
  JSON.stringify([key.cluster, resourceId(r), key.namespace, key.name, subresource ?? '']);
const decimal = /^(0|[1-9][0-9]*)$/;

/**
 * Whether resourceVersion `a` is at least `b`, both decimal etcd revisions; `undefined` when either
 * is not one (then nothing is proven).
 *
 * @example
 * ```ts
 * atLeast('120', '99'); // true
 * ```
 * @param a - a resourceVersion.
 * @param b - another.
 * @returns the comparison, or undefined.
 */
export function atLeast(a: string | undefined, b: string): boolean | undefined {
  if (a === undefined || !decimal.test(a) || !decimal.test(b)) return undefined;
  return a.length !== b.length ? a.length > b.length : a >= b;
}

/**
 * Remembers the resourceVersion the server answered a sent apply with, so the cache must show it
 * (or later) before it may prove a later apply of the object needless.
 *
 * @example
 * ```ts
 * rememberApplied(ctx, configMaps, key, undefined, '4312');
 * ```
 * @param ctx - the sink context.
 * @param r - the resource.
 * @param key - the object.
 * @param subresource - `status` or undefined.
 * @param resourceVersion - the answer's resourceVersion.
 */
export function rememberApplied(ctx: SinkContext, r: ResourceDescriptor, key: ObjectKey, subresource: string | undefined, resourceVersion: string | undefined): void {
  const m = memoryOf(ctx);
  const k = memoryKey(r, key, subresource);
  m.versions.delete(k);
  // Not a revision: nothing the cache shows can be compared with it, so the cluster proves nothing.
  m.versions.set(k, resourceVersion ?? 'unknown');
  if (m.versions.size <= REMEMBERED) return;
  const first = m.versions.entries().next();
  if (first.done === true) return;
  const [oldest, version] = first.value;
  m.versions.delete(oldest);
  const cluster = (JSON.parse(oldest) as [ClusterName])[0];
  const before = m.forgotten.get(cluster);
  if (before === undefined || atLeast(version, before) !== false) m.forgotten.set(cluster, version);
}

function seenOwnWrites(ctx: SinkContext, r: ResourceDescriptor, key: ObjectKey, subresource: string | undefined, cached: KubeObject): ApplyProof {
  const m = memories.get(ctx);
  if (m === undefined) return { proven: true };
  const rv = cached.metadata.resourceVersion;
  for (const [what, version] of [
    ['this controller’s last apply of it', m.versions.get(memoryKey(r, key, subresource))],
    ['a forgotten apply in its cluster', m.forgotten.get(key.cluster)],
  ] as const) {
    if (version !== undefined && atLeast(rv, version) !== true) return { proven: false, reason: `the cache (resourceVersion ${rv ?? 'none'}) has not seen ${what} (${version})` };
  }
  return { proven: true };
}

/**
 * Whether an apply can be left unsent: the context's cache holds the object, that object proves
 * the apply would change nothing, and it is no older than this context's own last apply of it.
 * Returns the object it proved it with, or why not. (The caller's `current` is not used: it tells
 * `changed` only, and nothing says how it was come by.)
 *
 * @example
 * ```ts
 * const v = unsentApply(ctx, configMaps, key, desired, undefined);
 * ```
 * @param ctx - the sink context (its field manager and cache).
 * @param r - the resource.
 * @param key - the object.
 * @param applied - the object the apply would send.
 * @param subresource - `status` or undefined.
 * @returns the cached object when proven, else the reason.
 */
export function unsentApply<T extends KubeObject>(
  ctx: SinkContext,
  r: ResourceDescriptor<T>,
  key: ObjectKey,
  applied: { readonly metadata: object },
  subresource: 'status' | undefined,
): { readonly object: T } | { readonly reason: string } {
  const cached = ctx.cache?.get(key.cluster, r, key);
  if (cached === undefined) return { reason: 'no cached object' };
  const proof = applyChangesNothing({ applied, cached, fieldManager: ctx.fieldManager, apiVersion: apiVersionOf(r), subresource });
  if (!proof.proven) return { reason: proof.reason };
  const seen = seenOwnWrites(ctx, r, key, subresource, cached);
  return seen.proven ? { object: cached } : { reason: seen.reason };
}

/**
 * {@link unsentApply} once the cache has listed: waits (at most {@link cacheListWaitMs}, on the
 * context's scheduler) for a cache that watches the object's resource but has not listed yet.
 *
 * @example
 * ```ts
 * unsentApplyListed(ctx, configMaps, key, desired, undefined).subscribe(console.log);
 * ```
 * @param ctx - the sink context.
 * @param r - the resource.
 * @param key - the object.
 * @param applied - the object the apply would send.
 * @param subresource - `status` or undefined.
 * @returns one verdict, then completes.
 */
export function unsentApplyListed<T extends KubeObject>(
  ctx: SinkContext,
  r: ResourceDescriptor<T>,
  key: ObjectKey,
  applied: { readonly metadata: object },
  subresource: 'status' | undefined,
): Observable<{ readonly object: T } | { readonly reason: string }> {
  return defer(() => {
    const listed = ctx.cache?.listed?.(key.cluster, r, key);
    // Listed already (every apply after the first list): decided now, with no wait to set up.
    if (listed === undefined) return of(unsentApply(ctx, r, key, applied, subresource));
    return race(listed.pipe(take(1), defaultIfEmpty(undefined)), timer(cacheListWaitMs, ctx.scheduler)).pipe(
      take(1),
      map(() => unsentApply(ctx, r, key, applied, subresource)),
    );
  });
}
