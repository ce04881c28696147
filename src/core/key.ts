// Object keys: the same namespace/name exists in many clusters, so every key carries its cluster.
import type { ClusterName } from './cluster.js';
import { clusterName } from './cluster.js';
import type { KubeObject } from './object.js';

/**
 * Identifies one object in the fleet. `namespace` is `''` for cluster-scoped objects.
 *
 * @example
 * ```ts
 * const k: ObjectKey = objectKey(clusterName('east'), 'default', 'settings');
 * ```
 */
export interface ObjectKey {
  /** The fleet cluster the object lives in. */
  readonly cluster: ClusterName;
  /** Namespace of the object; `''` for cluster-scoped objects. */
  readonly namespace: string;
  /** The object's `metadata.name`. */
  readonly name: string;
}

/**
 * Makes a frozen {@link ObjectKey}.
 *
 * @example
 * ```ts
 * objectKey(clusterName('east'), '', 'team-a'); // a cluster-scoped object
 * ```
 * @param cluster - the cluster.
 * @param namespace - the namespace, `''` for cluster-scoped objects.
 * @param name - the object name.
 * @returns the key.
 */
export function objectKey(cluster: ClusterName, namespace: string, name: string): ObjectKey {
  return Object.freeze({ cluster, namespace, name });
}

/**
 * The key of an object as found in a cluster.
 *
 * @example
 * ```ts
 * keyOf(clusterName('east'), { metadata: { namespace: 'default', name: 'a' } });
 * ```
 * @param cluster - the cluster the object was read from.
 * @param obj - the object.
 * @returns its key; missing namespace or name become `''`.
 */
export function keyOf(cluster: ClusterName, obj: KubeObject): ObjectKey {
  return objectKey(cluster, obj.metadata.namespace ?? '', obj.metadata.name ?? '');
}

/**
 * The string form of a key: `cluster://<cluster>/<namespace>/<name>`. The cluster part is
 * percent-encoded because provider names may contain `/` (`<namespace>/<name>` for Cluster API,
 * `<file>+<context>` when two kubeconfig files share a context name), which keeps the string unambiguous.
 *
 * @example
 * ```ts
 * formatKey(objectKey(clusterName('capi/prod'), 'default', 'a')); // 'cluster://capi%2Fprod/default/a'
 * ```
 * @param key - the key.
 * @returns its string form, usable as a Map key.
 */
export function formatKey(key: ObjectKey): string {
  return `cluster://${encodedCluster(key.cluster)}/${key.namespace}/${key.name}`;
}

// formatKey runs for every event and write (the engine's entry id, the store's lookups): the
// encoding of a cluster name is kept instead of made again each time (3x faster per key on a kcp
// name, whose `:` are encoded). Bounded: past `encodedCap` names the table starts over.
const encoded = new Map<string, string>();
const encodedCap = 4096;

function encodedCluster(cluster: string): string {
  let e = encoded.get(cluster);
  if (e === undefined) {
    if (encoded.size >= encodedCap) encoded.clear();
    e = encodeURIComponent(cluster);
    encoded.set(cluster, e);
  }
  return e;
}

/**
 * Parses the string form made by {@link formatKey}.
 *
 * @example
 * ```ts
 * parseKey('cluster://east/default/a'); // { cluster: 'east', namespace: 'default', name: 'a' }
 * parseKey('east/default/a');           // undefined
 * ```
 * @param s - a key string.
 * @returns the key, or `undefined` when the string is not a key.
 */
export function parseKey(s: string): ObjectKey | undefined {
  const m = /^cluster:\/\/([^/]+)\/([^/]*)\/([^/]+)$/.exec(s);
  if (m === null) return undefined;
  const [, cluster = '', namespace = '', name = ''] = m;
  try {
    return objectKey(clusterName(decodeURIComponent(cluster)), namespace, name);
  } catch {
    // Bad percent-encoding or a name clusterName refuses: not a key.
    return undefined;
  }
}
