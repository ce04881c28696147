// What sinks know about an object around a write: its key, whether a write changed it, and what a
// 404 from a status write means; plus the one read the read-modify-write sinks make (readOrNull, public in rxfleet/sinks).
import { sameJsonContent } from '../core/json-equal.js';
import type { Observable } from 'rxjs';
import { map, of } from 'rxjs';
import type { ClusterName } from '../core/cluster.js';
import type { KubeError } from '../core/errors.js';
import type { ObjectKey } from '../core/key.js';
import { objectKey } from '../core/key.js';
import type { KubeObject } from '../core/object.js';
import type { ResourceDescriptor } from '../core/resource.js';
import { resourceId } from '../core/resource.js';
import type { Either } from '../internal/fp.js';
import { E } from '../internal/fp.js';
import type { SinkContext } from './context.js';
import { refusal } from './result.js';
import type { WriteChange, WriteRefusal } from './result.js';
import { send } from './send.js';

/**
 * The key of an object about to be written to a cluster.
 *
 * @example
 * ```ts
 * keyFor(cluster, configMaps, { metadata: { namespace: 'default', name: 'a' } });
 * ```
 * @param cluster - the target cluster.
 * @param r - its resource (cluster-scoped resources get namespace `''`).
 * @param obj - the object.
 * @returns the key.
 */
export function keyFor(cluster: ClusterName, r: ResourceDescriptor, obj: KubeObject): ObjectKey {
  return objectKey(cluster, r.namespaced ? (obj.metadata.namespace ?? '') : '', obj.metadata.name ?? '');
}

/**
 * `<resource> <namespace>/<name>`, for messages.
 *
 * @example
 * ```ts
 * describe(configMaps, key); // 'configmaps default/a'
 * ```
 * @param r - the resource.
 * @param key - the object.
 * @returns the words.
 */
export function describe(r: ResourceDescriptor, key: ObjectKey): string {
  return `${resourceId(r)} ${key.namespace === '' ? '' : `${key.namespace}/`}${key.name}`;
}

/**
 * Reads an object; a missing object is `null`, not an error.
 *
 * @example
 * ```ts
 * import { readOrNull } from 'rxfleet/sinks';
 * readOrNull(ctx, configMaps, key).subscribe((r: Either<KubeError, ConfigMap | null>) => E.isRight(r) && r.right === null && console.log('absent'));
 * ```
 * @param ctx - the sink context.
 * @param r - the resource.
 * @param key - the object.
 * @returns the object, `null`, or the read's error.
 */
export function readOrNull<T extends KubeObject>(ctx: SinkContext, r: ResourceDescriptor<T>, key: ObjectKey): Observable<Either<KubeError, T | null>> {
  const opts = r.namespaced ? { namespace: key.namespace } : {};
  return send(ctx, key.cluster, `read ${describe(r, key)}`, (c) => c.get(r, key.name, opts)).pipe(
    map(({ result }) => (E.isLeft(result) && result.left.type === 'NotFound' ? E.right(null) : result)),
  );
}

/**
 * What is known of an object before a write: the caller's `current` when given, else a read when
 * asked for (`readFirst`), else nothing (`undefined`: the write's `changed` will be `'unknown'`).
 *
 * @example
 * ```ts
 * known(ctx, configMaps, key, undefined, false); // emits E.right(undefined), sends nothing
 * ```
 * @param ctx - the sink context.
 * @param r - the resource.
 * @param key - the object.
 * @param current - the caller's view of the object (`null`: absent).
 * @param readFirst - whether to read it when `current` is not given.
 * @returns the object, `null` (absent), `undefined` (unknown), or the read's error.
 */
export function known<T extends KubeObject>(
  ctx: SinkContext,
  r: ResourceDescriptor<T>,
  key: ObjectKey,
  current: T | null | undefined,
  readFirst: boolean | undefined,
): Observable<Either<KubeError, T | null | undefined>> {
  if (current !== undefined || readFirst !== true) return of(E.right(current));
  return readOrNull(ctx, r, key);
}

/**
 * Whether a write changed the object, from what was known before it: its content, meaning
 * everything but `resourceVersion` and `managedFields`. An unchanged resourceVersion settles it
 * cheaply (the server does not bump it for a write that changes nothing). A changed one is not
 * proof: kcp rewrites an object on the first identical apply after its creation (new
 * resourceVersion, same content), and a `before` taken from a store may lack managedFields or be
 * older than the last write; so the content is compared. Dry runs never bump the resourceVersion,
 * so they always compare content. With nothing known before, the answer alone cannot tell.
 *
 * @example
 * ```ts
 * changeOf(before, after, false); // true, false, or 'unknown' when before is undefined
 * ```
 * @param before - the object before the write (`null`: it did not exist; `undefined`: not known).
 * @param after - the server's answer.
 * @param dryRun - whether the write was a dry run.
 * @returns true when something changed (or would have), false when not, else 'unknown'.
 */
export function changeOf(before: KubeObject | null | undefined, after: KubeObject, dryRun: boolean): WriteChange {
  if (before === undefined) return 'unknown';
  if (before === null) return true;
  if (!dryRun && before.metadata.resourceVersion === after.metadata.resourceVersion) return false;
  return !(sameJsonContent(before, after, NOT_METADATA) && sameJsonContent(before.metadata, after.metadata, VOLATILE_METADATA));
}

// The content a write's `changed` compares: everything but the metadata's bookkeeping.
const NOT_METADATA: ReadonlySet<string> = new Set(['metadata']);
const VOLATILE_METADATA: ReadonlySet<string> = new Set(['managedFields', 'resourceVersion']);

/**
 * Explains a 404 from a status write without another request. The server answers 404 both when
 * the object is missing and when the resource has no status subresource; only the first names the
 * object (its Status carries `details.name`), the second is the router's generic "the server could
 * not find the requested resource", which names nothing.
 *
 * @example
 * ```ts
 * explainStatus404(widgets, key, err).type; // 'NoStatusSubresource' or 'NotFound'
 * ```
 * @param r - the resource.
 * @param key - the object.
 * @param err - the 404 of the status write.
 * @returns the error to report.
 */
export function explainStatus404(r: ResourceDescriptor, key: ObjectKey, err: KubeError): KubeError | WriteRefusal {
  if (err.details?.name === key.name) return err;
  return {
    ...refusal('NoStatusSubresource', key, `${resourceId(r)} has no status subresource (the server has no /status endpoint for it: ${err.message})`),
    ...(err.code === undefined ? {} : { code: err.code }),
    ...(err.request === undefined ? {} : { request: err.request }),
  };
}
