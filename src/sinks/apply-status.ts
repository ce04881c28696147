// Server-side apply of status, through the status subresource only: spec and metadata in the
// applied object are ignored by the server there, so a status writer can never clobber desired state.
import type { Observable, OperatorFunction } from 'rxjs';
import type { KubeObject } from '../core/object.js';
import type { ApplyWrite } from './apply.js';
import { serverSideApply } from './apply.js';
import type { SinkContext } from './context.js';
import type { SinkOperatorConfig } from './operator.js';
import { writeEach } from './operator.js';
import type { WriteOutcome } from './result.js';

/**
 * Server-side applies `object.status` through the status subresource, under the context's field
 * manager. On a resource without a status subresource the outcome is a `NoStatusSubresource`
 * error (a missing object stays `NotFound`); `changed` is decided as in `apply`.
 *
 * @example
 * ```ts
 * import { applyStatus } from 'rxfleet/sinks';
 * applyStatus(ctx, { cluster, resource: widgets, object: { metadata: { name: 'w', namespace: 'default' }, status: { ready: true } } })
 *   .subscribe((o) => E.isLeft(o) && console.log(o.left.type));
 * ```
 * @param ctx - the sink context.
 * @param write - target cluster, resource and the status to own.
 * @returns one outcome, then completes; never errors.
 */
export function applyStatus<T extends KubeObject>(ctx: SinkContext, write: ApplyWrite<T>): Observable<WriteOutcome<T>> {
  return serverSideApply(ctx, write, 'applyStatus', 'status');
}

/**
 * The operator form of {@link applyStatus}.
 *
 * @example
 * ```ts
 * statuses.pipe(applyStatusEach(ctx)).subscribe(report);
 * ```
 * @param ctx - the sink context.
 * @param config - concurrency.
 * @returns an operator from writes to outcomes.
 */
export function applyStatusEach<T extends KubeObject>(ctx: SinkContext, config?: SinkOperatorConfig): OperatorFunction<ApplyWrite<T>, WriteOutcome<T>> {
  return writeEach((w: ApplyWrite<T>) => applyStatus(ctx, w), config);
}
