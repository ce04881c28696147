// /metrics of a run of several controllers: the fleet's series (and the process's) from one
// registry, each controller's queue, reconcile and write series from its own, merged family by
// family so every metric name appears once with one HELP and one TYPE, as Prometheus requires.
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
 * One exposition of the fleet registry followed by the controllers' registries merged by family.
 * The controllers' series differ by their `controller` label, so merging never adds two series.
 *
 * @example
 * ```ts
 * const source = combinedMetrics(fleetRegistry, [publisherRegistry, syncRegistry]);
 * const text = await source.metrics();
 * ```
 * @param fleet - the run's shared series, served as they are (process metrics included).
 * @param controllers - one registry per controller, holding the same families.
 * @returns what /metrics serves.
 */
export function combinedMetrics(fleet: Registry, controllers: readonly Registry[]): MetricsSource {
  return {
    contentType: fleet.contentType,
    async metrics() {
      const perController = await Promise.all(controllers.map((r) => r.getMetricsAsJSON()));
      const [shared, merged] = await Promise.all([fleet.metrics(), AggregatorRegistry.aggregate(perController).metrics()]);
      return `${shared.trimEnd()}\n${merged}`;
    },
  };
}
