// What every sink reports: a typed value per write, never an RxJS error. A failed write is a Left
// that names the cluster, the object and the verb, so one bad cluster cannot stop a merged stream.
import type { ClusterName } from '../core/cluster.js';
import type { KubeError, KubeErrorType } from '../core/errors.js';
import type { ObjectKey } from '../core/key.js';
import type { WriteVerb } from '../core/verb.js';
import { formatKey } from '../core/key.js';
import type { KubeObject } from '../core/object.js';
import type { Either } from '../internal/fp.js';
import { E } from '../internal/fp.js';

/**
 * The tags of {@link WriteError}: every {@link KubeErrorType}, plus the refusals sinks decide on
 * their own:
 *
 * - `NoStatusSubresource`: a status write to a resource that has no status subresource (the
 *   server answers 404 for the subresource while the object itself exists).
 * - `Terminating`: a finalizer would be added to an object that already has a
 *   `deletionTimestamp`; Kubernetes forbids it and it would hold the object forever.
 * - `RecipeFailed`: an `update` recipe threw; the exception is reported, not rethrown.
 *
 * @example
 * ```ts
 * const tag: WriteErrorType = 'NoStatusSubresource';
 * ```
 */
export type WriteErrorType = KubeErrorType | 'NoStatusSubresource' | 'Terminating' | 'RecipeFailed';

/**
 * A failed write. It carries the server's error fields (code, reason, Retry-After, causes) when
 * there was one, plus the write's cluster, key, verb and how many attempts were made.
 *
 * @example
 * ```ts
 * if (E.isLeft(outcome) && outcome.left.type === 'Conflict') {
 *   log.warn({ cluster: outcome.left.cluster, attempts: outcome.left.attempts }, outcome.left.message);
 * }
 * ```
 */
export interface WriteError extends Omit<KubeError, 'type'> {
  /** What kind of failure: a {@link KubeErrorType} from the server or client, or a sink's own refusal. */
  readonly type: WriteErrorType;
  /** The request verb of the write that failed (what was sent, or would have been). */
  readonly verb: WriteVerb;
  /** `status` when the write went to the status subresource; absent for the object itself. */
  readonly subresource?: 'status';
  /** The object the write was for (a failed listing names only the cluster, with an empty name). */
  readonly key: ObjectKey;
  /** How many times the write request was sent (0 when the sink refused before sending). */
  readonly attempts: number;
}

/**
 * Whether a write changed the object in the cluster: `true`, `false`, or `'unknown'` when nothing
 * the sink knew could tell. Sinks send no request just to find out: a server-side apply answers
 * with the object whether it changed or not, so `apply` knows only when told what was there before
 * (`current`, e.g. from a cache) or asked to read it first (`readFirst`).
 *
 * @example
 * ```ts
 * const c: WriteChange = outcome.right.changed;
 * if (c === 'unknown') log.debug('applied'); else if (c) log.info('changed');
 * ```
 */
export type WriteChange = boolean | 'unknown';

/**
 * A successful write.
 *
 * @example
 * ```ts
 * if (E.isRight(outcome) && outcome.right.changed === false) metrics.noop.inc({ cluster: outcome.right.cluster });
 * ```
 */
export interface WriteResult<T extends KubeObject = KubeObject> {
  /** The fleet name of the cluster written to (the same as `key.cluster`). */
  readonly cluster: ClusterName;
  /** The object written (with the server-chosen name after a `generateName` create). */
  readonly key: ObjectKey;
  /** The request verb sent: `apply`, `create`, `update`, `patch` or `delete`. */
  readonly verb: WriteVerb;
  /** `status` when the write went to the status subresource; absent for the object itself. */
  readonly subresource?: 'status';
  /**
   * Whether the object in the cluster changed (for dry runs: whether it would have), or
   * `'unknown'` when the sink had nothing to compare the answer with (see {@link WriteChange}).
   */
  readonly changed: WriteChange;
  /** The object as the server returned it; `undefined` when it is gone (a finished delete). */
  readonly object: T | undefined;
  /** How many times the write request was sent; 0 when nothing needed writing. */
  readonly attempts: number;
  /**
   * Whether any write request was sent (`attempts > 0`). `false` with `changed: false` is a write
   * the sink proved needless without asking the server, e.g. an `apply` the cache proved would
   * change nothing.
   */
  readonly sent: boolean;
  /** True when the write was a dry run: nothing was persisted. */
  readonly dryRun: boolean;
}

/**
 * The value a sink emits for one write.
 *
 * @example
 * ```ts
 * apply(ctx, write).subscribe((o) => (E.isLeft(o) ? log.error(o.left.message) : log.info(o.right)));
 * ```
 */
export type WriteOutcome<T extends KubeObject = KubeObject> = Either<WriteError, WriteResult<T>>;

/**
 * Builds a failed outcome from a client error, keeping its fields and message.
 *
 * @example
 * ```ts
 * writeFailed('apply', key, err, 1);
 * ```
 * @param verb - the request verb.
 * @param key - the object written.
 * @param error - the client's error, or a sink refusal built with {@link refusal}.
 * @param attempts - write requests sent.
 * @param subresource - `status` for a write to the status subresource.
 * @returns a frozen Left.
 */
export function writeFailed<T extends KubeObject>(
  verb: WriteVerb,
  key: ObjectKey,
  error: KubeError | WriteRefusal,
  attempts: number,
  subresource?: 'status',
): WriteOutcome<T> {
  return E.left(Object.freeze({ ...error, verb, ...(subresource === undefined ? {} : { subresource }), key, attempts }));
}

/**
 * The fields of a {@link WriteError} a sink decides before it knows the request: the sink adds the
 * verb, subresource, key and attempts.
 *
 * @example
 * ```ts
 * const r: WriteRefusal = refusal('Terminating', key, 'object is being deleted');
 * ```
 */
export type WriteRefusal = Omit<WriteError, 'verb' | 'subresource' | 'key' | 'attempts'>;

/**
 * A refusal decided by a sink (no request was wrong; the write itself must not happen).
 *
 * @example
 * ```ts
 * refusal('Terminating', key, 'object is being deleted');
 * ```
 * @param tag - the refusal.
 * @param key - the object concerned.
 * @param detail - why, in words.
 * @returns the error fields, with a message naming the cluster and the object.
 */
export function refusal(tag: WriteErrorType, key: ObjectKey, detail: string): WriteRefusal {
  return { type: tag, cluster: key.cluster, message: `cluster "${key.cluster}": ${formatKey(key)}: ${detail}` };
}

/**
 * Builds a successful outcome.
 *
 * @example
 * ```ts
 * written('apply', key, { changed: true, object, attempts: 1, dryRun: false });
 * ```
 * @param verb - the request verb.
 * @param key - the object written.
 * @param r - what happened, and `subresource: 'status'` for a write to the status subresource.
 * @returns a frozen Right.
 */
export function written<T extends KubeObject>(
  verb: WriteVerb,
  key: ObjectKey,
  r: { readonly changed: WriteChange; readonly object: T | undefined; readonly attempts: number; readonly dryRun?: boolean; readonly subresource?: 'status' | undefined },
): WriteOutcome<T> {
  const sub = r.subresource === undefined ? {} : { subresource: r.subresource };
  return E.right(Object.freeze({ cluster: key.cluster, key, verb, ...sub, changed: r.changed, object: r.object, attempts: r.attempts, sent: r.attempts > 0, dryRun: r.dryRun ?? false }));
}
