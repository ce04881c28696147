// A controller's reconcile context, made from the work queue's: what `run` and the testing
// harness both hand a controller's reconciler.
import type { ReconcileContext } from '../operators/types.js';
import type { SinkContext } from '../sinks/context.js';
import type { FleetView } from '../streams/cluster.js';
import type { ControllerContext } from './controller.js';

/**
 * The engine's reconcile context seen as a controller's: the same attempt, log and abort signal,
 * plus the fleet and the sinks.
 *
 * @example
 * ```ts
 * reconcile((req, ctx) => mine(req, controllerContext(ctx, fleet, sinks)), { lookup });
 * ```
 * @param ctx - the engine's context.
 * @param fleet - the live fleet.
 * @param sinks - the controller's sinks.
 * @returns the controller's context.
 */
export function controllerContext(ctx: ReconcileContext, fleet: FleetView, sinks: SinkContext): ControllerContext {
  // The engine's context computes log and signal lazily (getters): delegate, do not spread.
  return {
    fleet,
    sinks,
    attempt: ctx.attempt,
    get logger() {
      return ctx.logger;
    },
    get signal() {
      return ctx.signal;
    },
  };
}
