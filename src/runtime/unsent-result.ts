// The write result that marks a write the cache proved needless. Its own module, free of
// prom-client, so that the pipeline (run-controller.ts, loaded by the root entry point) names it
// without loading the metrics library before a controller runs.

/**
 * The `result` that `ControllerMetrics.write` counts as a write left unsent (the cache proved
 * it needless), in `rxfleet_writes_unsent_total` rather than as a request.
 *
 * @example
 * ```ts
 * metrics.write(clusterName('east'), 'apply', unsentResult);
 * ```
 */
export const unsentResult = 'unsent';
