// /metrics of a run of several controllers: the fleet's series (and the process's) from one
// registry, each controller's queue, reconcile and write series from its own (and any registry
// given in `RunOptions.metricsFrom`), merged family by family so every metric name appears once
// with one HELP and one TYPE, as Prometheus requires.
import type { Registry } from 'prom-client';
import { AggregatorRegistry } from 'prom-client';

/**
 * What the probe server serves on /metrics.
 *
 * @example
 * ```ts
 * const source: MetricsSource = registry;
 * ```
 */
export type MetricsSource = Pick<Registry, 'metrics' | 'contentType'>;

/**
 * One exposition of the fleet registry and the controllers' registries, merged by family: a family
 * in several (`rxfleet_write_requests_total` of the controllers and of `RunOptions.metricsFrom`)
 * appears once. Their series differ by their `controller` label, so merging never adds two series.
 *
 * @example
 * ```ts
 * const source = combinedMetrics(fleetRegistry, [publisherRegistry, syncRegistry]);
 * const text = await source.metrics();
 * ```
 * @param fleet - the run's shared series (process metrics included).
 * @param controllers - one registry per controller, and any other registry served beside them.
 * @returns what /metrics serves.
 */
export function combinedMetrics(fleet: Registry, controllers: readonly Registry[]): MetricsSource {
  return {
    contentType: fleet.contentType,
    async metrics() {
      const all = await Promise.all([fleet, ...controllers].map((r) => r.getMetricsAsJSON()));
      return AggregatorRegistry.aggregate(all).metrics();
    },
  };
}
