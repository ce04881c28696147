// Cross-cluster ownership. Owner references cannot cross clusters (nor kcp workspaces), so a
// target written to another cluster carries a back-reference to its source instead: a label with a
// short hash of the source's identity (label values are limited to 63 characters of [A-Za-z0-9-_.],
// and selecting by label is cheap on the server), plus annotations holding the full identity.
import { produce } from 'immer';
import type { ClusterName } from '../core/cluster.js';
import { clusterName } from '../core/cluster.js';
import type { KubeObject } from '../core/object.js';
import type { ResourceDescriptor } from '../core/resource.js';
import { resourceId } from '../core/resource.js';
import { ConfigError } from '../core/config-error.js';

// From getBuiltinModule, not `import`: see client/h2-pool.ts.
const { createHash } = process.getBuiltinModule('node:crypto');

/** The label holding the source's hash; select a source's targets with `<label>=<hash>`. @example `client.list(configMaps, { labelSelector: sourceLabel })` */
export const sourceLabel = 'rxfleet.dev/source';
/** Annotation: the source's cluster in the fleet. @example `obj.metadata.annotations?.[sourceClusterAnnotation]` */
export const sourceClusterAnnotation = 'rxfleet.dev/source-cluster';
/** Annotation: the source's resource (`plural` or `plural.group`). @example `obj.metadata.annotations?.[sourceResourceAnnotation]` */
export const sourceResourceAnnotation = 'rxfleet.dev/source-resource';
/** Annotation: the source's namespace (`''` when cluster-scoped). @example `obj.metadata.annotations?.[sourceNamespaceAnnotation]` */
export const sourceNamespaceAnnotation = 'rxfleet.dev/source-namespace';
/** Annotation: the source's name. @example `obj.metadata.annotations?.[sourceNameAnnotation]` */
export const sourceNameAnnotation = 'rxfleet.dev/source-name';
/** Annotation: the source's uid, which tells a source from a later one with the same name. @example `obj.metadata.annotations?.[sourceUidAnnotation]` */
export const sourceUidAnnotation = 'rxfleet.dev/source-uid';

/**
 * Who a target belongs to: one incarnation (uid) of one object in one cluster.
 *
 * @example
 * ```ts
 * const src: SourceIdentity = { cluster: clusterName('root:hub'), resource: 'configmaps', namespace: 'default', name: 'app', uid: 'u-1' };
 * ```
 */
export interface SourceIdentity {
  /** The fleet name of the cluster the source lives in. */
  readonly cluster: ClusterName;
  /** `resourceId` of the source's resource. */
  readonly resource: string;
  /** The source's namespace; `''` when its resource is cluster-scoped. */
  readonly namespace: string;
  /** The source's `metadata.name`. */
  readonly name: string;
  /** The source's `metadata.uid`, which tells it apart from a later object of the same name. */
  readonly uid: string;
}

/**
 * The identity of a source object as read from a cluster.
 *
 * @example
 * ```ts
 * const src = sourceIdentity(clusterName('root:hub'), configMaps, cm);
 * ```
 * @param cluster - the cluster the source lives in.
 * @param r - its resource.
 * @param obj - the source (it must have been read from the server: it needs a uid).
 * @returns the identity.
 * @throws ConfigError when the object has no name or uid (it was never stored).
 */
export function sourceIdentity(cluster: ClusterName, r: ResourceDescriptor, obj: KubeObject): SourceIdentity {
  const { name, uid, namespace } = obj.metadata;
  if (name === undefined || name === '' || uid === undefined || uid === '') {
    throw new ConfigError('a source needs metadata.name and metadata.uid: pass the object as read from the server');
  }
  return Object.freeze({ cluster, resource: resourceId(r), namespace: r.namespaced ? (namespace ?? '') : '', name, uid });
}

/**
 * The label value for a source: 20 hex characters (80 bits) of a SHA-256 of its identity. Short
 * enough for a label value, long enough that two sources never share it by accident.
 *
 * @example
 * ```ts
 * sourceHash(src); // 'a3f9…' (20 characters)
 * ```
 * @param source - the source.
 * @returns the hash.
 */
export function sourceHash(source: SourceIdentity): string {
  const h = createHash('sha256');
  h.update(JSON.stringify([source.cluster, source.resource, source.namespace, source.name, source.uid]));
  return h.digest('hex').slice(0, 20);
}

/**
 * The label selector of every target of one source.
 *
 * @example
 * ```ts
 * client.listAll(configMaps, { labelSelector: sourceSelector(src) });
 * ```
 * @param source - the source.
 * @returns `rxfleet.dev/source=<hash>`.
 */
export function sourceSelector(source: SourceIdentity): string {
  return `${sourceLabel}=${sourceHash(source)}`;
}

/**
 * The labels and annotations of a back-reference, to merge into a target's metadata.
 *
 * @example
 * ```ts
 * const { labels, annotations } = backReference(src);
 * ```
 * @param source - the source.
 * @returns the label and annotation maps.
 */
export function backReference(source: SourceIdentity): {
  /** The `rxfleet.dev/source` label with the source's hash. */
  readonly labels: Readonly<Record<string, string>>;
  /** The five `rxfleet.dev/source-*` annotations holding the full identity. */
  readonly annotations: Readonly<Record<string, string>>;
} {
  return {
    labels: { [sourceLabel]: sourceHash(source) },
    annotations: {
      [sourceClusterAnnotation]: source.cluster,
      [sourceResourceAnnotation]: source.resource,
      [sourceNamespaceAnnotation]: source.namespace,
      [sourceNameAnnotation]: source.name,
      [sourceUidAnnotation]: source.uid,
    },
  };
}

/**
 * A copy of a target (typically the desired object of an `apply`) carrying a back-reference to its
 * source; other labels and annotations are kept.
 *
 * @example
 * ```ts
 * apply(ctx, { cluster: west, resource: configMaps, object: withBackReference(desired, sourceIdentity(hub, configMaps, src)) });
 * ```
 * @param target - the target object.
 * @param source - its source.
 * @returns the target with the back-reference added.
 */
export function withBackReference<T extends KubeObject>(target: T, source: SourceIdentity): T {
  const ref = backReference(source);
  return produce(target, (draft) => {
    draft.metadata.labels = { ...draft.metadata.labels, ...ref.labels };
    draft.metadata.annotations = { ...draft.metadata.annotations, ...ref.annotations };
  });
}

/**
 * Reads a target's back-reference. Targets whose label does not match their annotations (edited
 * by hand, or half-written) have none: a sweep must never act on a reference it cannot trust.
 *
 * @example
 * ```ts
 * const src = readBackReference(target);
 * if (src !== undefined) console.log(`${target.metadata.name} belongs to ${src.cluster}/${src.name}`);
 * ```
 * @param target - an object that may be a target.
 * @returns the source identity, or `undefined`.
 */
export function readBackReference(target: KubeObject): SourceIdentity | undefined {
  const a = target.metadata.annotations ?? {};
  const cluster = a[sourceClusterAnnotation];
  const res = a[sourceResourceAnnotation];
  const namespace = a[sourceNamespaceAnnotation];
  const name = a[sourceNameAnnotation];
  const uid = a[sourceUidAnnotation];
  if (cluster === undefined || cluster === '' || res === undefined || namespace === undefined || name === undefined || uid === undefined) return undefined;
  let id: SourceIdentity;
  try {
    id = Object.freeze({ cluster: clusterName(cluster), resource: res, namespace, name, uid });
  } catch {
    return undefined;
  }
  return target.metadata.labels?.[sourceLabel] === sourceHash(id) ? id : undefined;
}
