// Writes that depend on each other: the next one is made only when every outcome before it
// succeeded, so a status never says what a failed write did not do.
import type { Observable, OperatorFunction } from 'rxjs';
import { concat, defer, EMPTY, tap } from 'rxjs';
import type { KubeObject } from '../core/object.js';
import { E } from '../internal/fp.js';
import type { WriteOutcome } from './result.js';

/**
 * Makes the write `next` after the outcomes of the source, only if none of them failed: a failed
 * outcome passes on and ends the chain, and `next` is never called (nothing is sent). Chain it for
 * writes that depend on the one before (a namespace, then the objects in it; an object, then its
 * status), and end with `toAction()`, which answers the failure.
 *
 * @example
 * ```ts
 * const reconcile: ControllerReconciler<Widget> = (req, ctx) =>
 *   apply(ctx.sinks, { cluster: req.cluster, resource: configMaps, object: settings }).pipe(
 *     thenWrite(() => apply(ctx.sinks, { cluster: req.cluster, resource: widgets, object: status, subresource: 'status' })),
 *     toAction(),
 *   );
 * ```
 * @param next - makes the next write; called once, after the source completes with no failure.
 * @returns an operator passing the source's outcomes, then (if all succeeded) `next`'s.
 */
export function thenWrite<S extends WriteOutcome, U extends KubeObject>(next: () => Observable<WriteOutcome<U>>): OperatorFunction<S, S | WriteOutcome<U>> {
  return (source) =>
    defer(() => {
      let failed = false;
      const seen = source.pipe(
        tap((o) => {
          if (E.isLeft(o)) failed = true;
        }),
      );
      return concat(seen, defer(() => (failed ? EMPTY : next())));
    });
}
