// Tenant safety: a per-cluster client writes only to its own logical cluster (its URL guarantees
// that), and refuses to write an object that says it belongs to another one. kcp itself would
// silently rewrite the `kcp.io/cluster` annotation and store the object here, which is how a
// reconciler that mixed up two tenants' objects would leak one tenant's data into another.
import type { ClusterClient } from '../../client/client.js';
import type { KubeError } from '../../core/errors.js';
import { kubeError } from '../../core/errors.js';
import type { KubeObject } from '../../core/object.js';
import type { ResourceDescriptor } from '../../core/resource.js';
import { resourceId } from '../../core/resource.js';
import type { Either } from '../../internal/fp.js';
import { E } from '../../internal/fp.js';
import { clusterAnnotation } from './types.js';

function annotationIn(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  // A JSON patch: look for an op that sets the annotation (or the whole annotations map).
  if (Array.isArray(value)) {
    for (const op of value as unknown[]) {
      if (typeof op !== 'object' || op === null) continue;
      const { path, value: v } = op as { path?: unknown; value?: unknown };
      if (path === '/metadata/annotations/kcp.io~1cluster' && typeof v === 'string') return v;
      if (path === '/metadata/annotations' && typeof v === 'object' && v !== null) {
        const a = (v as Record<string, unknown>)[clusterAnnotation];
        if (typeof a === 'string') return a;
      }
    }
    return undefined;
  }
  const meta = (value as { metadata?: unknown }).metadata;
  if (typeof meta !== 'object' || meta === null) return undefined;
  const ann = (meta as { annotations?: unknown }).annotations;
  if (typeof ann !== 'object' || ann === null) return undefined;
  const a = (ann as Record<string, unknown>)[clusterAnnotation];
  return typeof a === 'string' && a !== '' ? a : undefined;
}

/**
 * Returns a copy of an object without its `kcp.io/cluster` annotation: the explicit way to write an
 * object read in one workspace into another (through the other workspace's client), past
 * {@link tenantGuard}.
 *
 * @example
 * ```ts
 * const copy = retarget(sourceWidget); // from cluster A
 * await fleet.get(clusterB)!.client.create(widgets, { ...copy, metadata: { ...copy.metadata, resourceVersion: undefined, uid: undefined } });
 * ```
 * @param obj - the object.
 * @returns the same object without the annotation (the original when it had none).
 */
export function retarget<T extends KubeObject>(obj: T): T {
  const ann = obj.metadata.annotations;
  if (ann?.[clusterAnnotation] === undefined) return obj;
  const { [clusterAnnotation]: _dropped, ...rest } = ann;
  return { ...obj, metadata: { ...obj.metadata, annotations: rest } };
}

/**
 * Wraps a per-cluster client so that writes of objects (or patches) carrying a `kcp.io/cluster`
 * annotation for another logical cluster are refused with a `Forbidden` {@link KubeError} naming
 * both clusters, without sending anything. Objects without the annotation (built by the controller)
 * and objects of this cluster pass; reads, deletes and raw requests pass untouched.
 *
 * @example
 * ```ts
 * const guarded = tenantGuard(client, '2x9k');
 * const r = await guarded.apply(widgets, widgetFromOtherWorkspace, { fieldManager: 'me' });
 * // Left: 'cluster "2x9k": refusing to apply widgets.example.com default/w: the object belongs to logical cluster "7q1c" …'
 * ```
 * @param client - the client of `<endpoint>/clusters/<logical>`.
 * @param logical - the logical cluster that client writes to.
 * @returns the guarded client.
 */
export function tenantGuard(client: ClusterClient, logical: string): ClusterClient {
  const refuse = (verb: string, r: ResourceDescriptor, what: string, owner: string): KubeError =>
    kubeError(
      'Forbidden',
      client.cluster,
      `refusing to ${verb} ${resourceId(r)} ${what}: the object belongs to logical cluster "${owner}" (kcp.io/cluster) but this client writes to logical cluster "${logical}"; ` +
        `write it through the client of "${owner}", or call retarget(obj) to write it here on purpose`,
    );
  const check = (verb: string, r: ResourceDescriptor, body: unknown, what: string): Either<KubeError, undefined> => {
    const owner = annotationIn(body);
    return owner === undefined || owner === logical ? E.right(undefined) : E.left(refuse(verb, r, what, owner));
  };
  const label = (obj: KubeObject): string => `${obj.metadata.namespace === undefined ? '' : `${obj.metadata.namespace}/`}${obj.metadata.name ?? '(generated)'}`;
  return {
    ...client,
    async create(r, obj, opts) {
      const ok = check('create', r, obj, label(obj));
      return E.isLeft(ok) ? ok : client.create(r, obj, opts);
    },
    async update(r, obj, opts) {
      const ok = check('update', r, obj, label(obj));
      return E.isLeft(ok) ? ok : client.update(r, obj, opts);
    },
    async apply(r, obj, opts) {
      const ok = check('apply', r, obj, label(obj));
      return E.isLeft(ok) ? ok : client.apply(r, obj, opts);
    },
    async patch(r, name, patch, opts) {
      const ok = check('patch', r, patch, `${opts.namespace === undefined ? '' : `${opts.namespace}/`}${name}`);
      return E.isLeft(ok) ? ok : client.patch(r, name, patch, opts);
    },
  };
}
