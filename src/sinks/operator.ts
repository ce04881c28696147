// Turns any sink into an operator for the end of a pipeline: writes in, one outcome per write out,
// a bounded number in flight. Sinks never error, so neither does the operator.
import type { Observable, OperatorFunction } from 'rxjs';
import { mergeMap } from 'rxjs';
import { ConfigError } from '../core/config-error.js';
import type { KubeObject } from '../core/object.js';
import type { WriteOutcome } from './result.js';

/**
 * Settings of the operator form of a sink.
 *
 * @example
 * ```ts
 * writes.pipe(applyEach(ctx, { concurrency: 8 }));
 * ```
 */
export interface SinkOperatorOptions {
  /** Writes in flight at once, across all clusters (default 4). Outcomes arrive as writes finish. */
  readonly concurrency?: number;
}

/** The default number of writes in flight. @example `writeEach(run, { concurrency: defaultSinkConcurrency })` */
export const defaultSinkConcurrency = 4;

/**
 * Makes an operator from a sink function. Use it for your own composite writes; every built-in
 * sink already has an `…Each` operator made with it.
 *
 * @example
 * ```ts
 * import { writeEach, apply } from 'rxfleet/sinks';
 * desired.pipe(writeEach((w: ApplyWrite<ConfigMap>) => apply(ctx, w), { concurrency: 2 })).subscribe(report);
 * ```
 * @param sink - performs one write and emits its outcome.
 * @param config - concurrency.
 * @returns an operator from writes to outcomes.
 * @throws ConfigError when concurrency is not a positive integer.
 */
export function writeEach<W, T extends KubeObject>(
  sink: (write: W) => Observable<WriteOutcome<T>>,
  config: SinkOperatorOptions = {},
): OperatorFunction<W, WriteOutcome<T>> {
  const concurrency = config.concurrency ?? defaultSinkConcurrency;
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new ConfigError(`sink concurrency must be a positive integer, got ${concurrency}`);
  return mergeMap(sink, concurrency);
}
