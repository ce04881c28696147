// Reading what is there before a write, so sinks can say whether a write changed anything and tell
// "no status subresource" from "no such object". Internal to the sinks.
import type { Observable } from 'rxjs';
import { map } from 'rxjs';
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
import type { WriteError } from './result.js';
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
 * Whether a write changed the object: its content, meaning everything but `resourceVersion` and
 * `managedFields`. An unchanged resourceVersion settles it cheaply (the server does not bump it for
 * a write that changes nothing). A changed one is not proof: kcp rewrites an object on the first
 * identical apply after its creation (new resourceVersion, same content), and a `before` taken from
 * a store may lack managedFields; so the content is compared. Dry runs never bump the
 * resourceVersion, so they always compare content.
 *
 * @example
 * ```ts
 * hasChanged(before, after, false);
 * ```
 * @param before - the object before the write (`null`: it did not exist).
 * @param after - the server's answer.
 * @param dryRun - whether the write was a dry run.
 * @returns true when something changed (or would have).
 */
export function hasChanged(before: KubeObject | null, after: KubeObject, dryRun: boolean): boolean {
  if (before === null) return true;
  if (!dryRun && before.metadata.resourceVersion === after.metadata.resourceVersion) return false;
  return canonical(comparable(before)) !== canonical(comparable(after));
}

function comparable(o: KubeObject): KubeObject {
  const { managedFields: _mf, resourceVersion: _rv, ...metadata } = o.metadata;
  return { ...o, metadata };
}

function canonical(v: unknown): string {
  return JSON.stringify(v, (_k, val: unknown) =>
    typeof val === 'object' && val !== null && !Array.isArray(val)
      ? Object.fromEntries(Object.entries(val).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : val,
  );
}

/**
 * Explains a 404 from a status write. The server answers 404 both when the object is missing and
 * when the resource has no status subresource; one read of the object tells them apart (it costs a
 * request only on this failure path).
 *
 * @example
 * ```ts
 * explainStatus404(ctx, widgets, key, err).subscribe((e: Pick<WriteError, 'type'>) => console.log(e.type)); // 'NoStatusSubresource' or 'NotFound'
 * ```
 * @param ctx - the sink context.
 * @param r - the resource.
 * @param key - the object.
 * @param err - the 404 of the status write.
 * @returns the error to report.
 */
export function explainStatus404(
  ctx: SinkContext,
  r: ResourceDescriptor,
  key: ObjectKey,
  err: KubeError,
): Observable<KubeError | Omit<WriteError, 'verb' | 'key' | 'attempts'>> {
  return readOrNull(ctx, r, key).pipe(
    map((found) => {
      if (E.isLeft(found)) return err;
      if (found.right === null) return err;
      return {
        ...refusal('NoStatusSubresource', key, `${resourceId(r)} has no status subresource (the object exists, its /status endpoint does not)`),
        ...(err.code === undefined ? {} : { code: err.code }),
        ...(err.request === undefined ? {} : { request: err.request }),
      };
    }),
  );
}
