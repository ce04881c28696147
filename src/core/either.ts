// The two fp helpers a reconciler needs to read a client or sink result, under names that shadow
// nothing in rxjs (fp-ts' `pipe` and `flow` would). The rest of fp-ts' Either is `E`, in rxfleet/fp.
import type { Either, Left, Right } from '../internal/fp.js';
import { E } from '../internal/fp.js';

/**
 * Whether a result failed: narrows an `Either` to its `Left`, whose `left` is the error (a
 * {@link KubeError} from the client, a `WriteError` from a sink).
 *
 * @example
 * ```ts
 * const settings = async (client: ClusterClient): Promise<Action> => {
 *   const got = await client.get(configMaps, 'settings', { namespace: 'default' });
 *   if (isLeft(got)) return got.left.type === 'NotFound' ? done() : error(got.left);
 *   return done();
 * };
 * ```
 * @param result - a client or sink result.
 * @returns true for a `Left`.
 */
export const isLeft: <L, R>(result: Either<L, R>) => result is Left<L> = E.isLeft;

/**
 * Whether a result succeeded: narrows an `Either` to its `Right`, whose `right` is the value.
 *
 * @example
 * ```ts
 * const keysOf = async (client: ClusterClient): Promise<string[]> => {
 *   const got = await client.get(configMaps, 'settings', { namespace: 'default' });
 *   return isRight(got) ? Object.keys(got.right.data ?? {}) : [];
 * };
 * ```
 * @param result - a client or sink result.
 * @returns true for a `Right`.
 */
export const isRight: <L, R>(result: Either<L, R>) => result is Right<R> = E.isRight;
