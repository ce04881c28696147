// Parsing one line of a watch stream. Kept apart from the transport so the watch state machine can
// be tested on plain strings.
import type { ClusterName } from '../core/cluster.js';
import type { KubeError } from '../core/errors.js';
import { fromStatus, kubeError } from '../core/errors.js';
import type { KubeObject } from '../core/object.js';
import type { Either } from '../internal/fp.js';
import { E } from '../internal/fp.js';
import { keptManagedFields, splitManagedFieldsText } from './managed-fields-cut.js';

/**
 * One decoded watch event as the server sent it. ERROR events are not here: they decode to a
 * {@link KubeError} (a 410 becomes `Gone`).
 *
 * @example
 * ```ts
 * const ev: RawWatchEvent = { type: 'ADDED', object: { metadata: { name: 'a', resourceVersion: '7' } } };
 * ```
 */
export interface RawWatchEvent<T extends KubeObject = KubeObject> {
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK';
  readonly object: T;
}

const types = new Set(['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK']);

/**
 * Options of {@link parseWatchLine}.
 *
 * @example
 * ```ts
 * const opts: WatchLineOptions = { dropManagedFields: true };
 * ```
 */
export interface WatchLineOptions {
  /**
   * Cut the object's `metadata.managedFields` out of the line before parsing it (never built, never
   * garbage). Default false. Where the cut is not certain the line is parsed whole; strip after.
   */
  readonly dropManagedFields?: boolean;
  /**
   * With `dropManagedFields`: keep these field managers' server-side apply entries (operation
   * `Apply`) of what is cut, so a cache can prove their applies needless. Default none.
   */
  readonly keepApplyEntriesOf?: readonly string[];
}

/**
 * Decodes one line of a watch response.
 *
 * @example
 * ```ts
 * parseWatchLine(clusterName('east'), '{"type":"ERROR","object":{"kind":"Status","code":410,"reason":"Expired"}}');
 * // Left({ type: 'Gone', ... })
 * ```
 * @param cluster - the cluster the line came from.
 * @param line - one line of the body.
 * @param options - {@link WatchLineOptions}.
 * @returns the event, or a `Decode` error for a line that is not a watch event, or the error an ERROR event carries.
 */
export function parseWatchLine<T extends KubeObject = KubeObject>(cluster: ClusterName, line: string, options: WatchLineOptions = {}): Either<KubeError, RawWatchEvent<T>> {
  let parsed: unknown;
  let kept: readonly unknown[] | undefined;
  try {
    const cut = options.dropManagedFields === true ? splitManagedFieldsText(line) : undefined;
    parsed = JSON.parse(cut?.line ?? line);
    if (cut !== undefined && options.keepApplyEntriesOf !== undefined) kept = keptManagedFields(cut.managedFields, options.keepApplyEntriesOf);
  } catch {
    return E.left(kubeError('Decode', cluster, `watch line is not JSON (${line.length} bytes)`));
  }
  if (typeof parsed !== 'object' || parsed === null) return E.left(kubeError('Decode', cluster, 'watch line is not an object'));
  const { type, object } = parsed as { type?: unknown; object?: unknown };
  if (type === 'ERROR') {
    const code = typeof object === 'object' && object !== null && typeof (object as { code?: unknown }).code === 'number' ? (object as { code: number }).code : 500;
    return E.left(fromStatus(cluster, code, object, { request: 'WATCH' }));
  }
  if (typeof type !== 'string' || !types.has(type)) return E.left(kubeError('Decode', cluster, `unknown watch event type ${JSON.stringify(type)}`));
  if (typeof object !== 'object' || object === null || typeof (object as { metadata?: unknown }).metadata !== 'object') {
    return E.left(kubeError('Decode', cluster, `watch event ${type} has no object metadata`));
  }
  if (kept !== undefined) (object as { metadata: Record<string, unknown> }).metadata.managedFields = kept;
  return E.right({ type: type as RawWatchEvent['type'], object: object as T });
}
