/**
 * rxfleet/fp: fp-ts' Either, which every client call and sink write returns. `E` is fp-ts' own
 * module (`E.left`, `E.right`, `E.map`, `E.match`…), re-exported so that one fp-ts serves rxfleet
 * and its user; `isLeft` and `isRight` are also in the root. fp-ts' `pipe` and `flow` are not
 * re-exported: next to rxjs they would shadow its `pipe`.
 *
 * @example
 * ```ts
 * import { E } from 'rxfleet/fp';
 * const message = E.match((e: KubeError) => e.message, () => 'ok')(await cluster.client.get(configMaps, 'default', 'settings'));
 * ```
 * @packageDocumentation
 * @module rxfleet/fp
 */
// First: fails clearly on an unsupported Node before anything else loads.
import '../internal/require-node.js';
export { E } from '../internal/fp.js';
export type { Either, Left, Right } from '../internal/fp.js';
