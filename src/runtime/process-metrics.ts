// The process and Node runtime metrics operators expect beside a controller's own (what
// controller-runtime serves as process_* and go_*): CPU, RSS, heap, event-loop lag, GC,
// handles, from prom-client's default collectors, on the controller's registry; and V8's heap
// limit, which they lack, so that an alert can see the heap closing in on it.
import { getHeapStatistics } from 'node:v8';
import type { Registry } from 'prom-client';
import { collectDefaultMetrics, Gauge } from 'prom-client';

/** A series every set of default metrics has: its presence means they are registered already. */
const marker = 'process_cpu_user_seconds_total';

/**
 * Registers prom-client's default process and runtime metrics (`process_*`, `nodejs_*`: CPU, RSS,
 * heap, event-loop lag, GC, open handles) and `rxfleet_heap_size_limit_bytes` (V8's heap limit:
 * the process dies with "JavaScript heap out of memory" when `nodejs_heap_size_used_bytes` reaches
 * it; Node sizes it from the container's memory limit) on a registry, once: a registry shared by several
 * controllers gets them a single time. `run` and `main` call it unless
 * `RunOptions.metrics.processMetrics` is `false`.
 *
 * @example
 * ```ts
 * const registry = new Registry();
 * registerProcessMetrics(registry);
 * registerProcessMetrics(registry); // no-op: already there
 * ```
 * @param registry - the registry `/metrics` serves.
 * @returns whether they were registered by this call.
 */
export function registerProcessMetrics(registry: Registry): boolean {
  if (registry.getSingleMetric(marker) !== undefined) return false;
  collectDefaultMetrics({ register: registry });
  new Gauge({
    name: 'rxfleet_heap_size_limit_bytes',
    help: "V8's heap size limit: the process dies (JavaScript heap out of memory) when the heap used reaches it.",
    registers: [registry],
    collect() {
      this.set(getHeapStatistics().heap_size_limit);
    },
  });
  return true;
}
