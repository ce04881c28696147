// The series of a run's shared fleet (src/runtime/metrics.ts keeps a controller's queue, reconciles
// and writes): every request the run sent (by verb, and by cluster), watch relists, interruptions
// (never routine renewals nor failed attempts: a healthy watch, or an unreachable cluster's, has
// none at any age), synced and healthy per cluster
// and resource, the engaged clusters, and provider reports.
// Per-cluster series are noted in the run's ClusterSeries, so they go when their cluster leaves.
import { Counter, Gauge } from 'prom-client';
import type { Registry } from 'prom-client';
import { watchFailing } from '../streams/watch-failing.js';
import type { ClusterSeries } from './cluster-series.js';
import type { ControllerMetrics } from './metrics.js';
import { requestSeries } from './request-series.js';

/** The fleet's part of {@link ControllerMetrics}. */
export type FleetSeries = Pick<ControllerMetrics, 'request' | 'watchHealth' | 'engaged' | 'report'>;

const nothing = (): void => undefined;

/** A fleet part that records nothing: a metrics object of the `reconcile` scope. */
export const idleFleetSeries: FleetSeries = { request: nothing, watchHealth: nothing, engaged: nothing, report: nothing };

/**
 * Registers the fleet's series and returns what records into them.
 *
 * @example
 * ```ts
 * const fleet = fleetSeries([new Registry()], new ClusterSeries());
 * fleet.engaged(3);
 * ```
 * @param registers - where the series go.
 * @param series - the run's per-cluster series, for removal when a cluster leaves.
 * @returns the recorder.
 */
export function fleetSeries(registers: Registry[], series: ClusterSeries): FleetSeries {
  const relists = new Counter({ name: 'rxfleet_watch_relists_total', help: 'Lists made after the first one (410 Gone).', labelNames: ['cluster', 'resource'], registers });
  const interruptions = new Counter({
    name: 'rxfleet_watch_interruptions_total',
    help: 'Open watches that failed or ended before their timeoutSeconds (cut, errors, inactivity); routine renewals and attempts that never opened (counted in rxfleet_requests_total) are not counted.',
    labelNames: ['cluster', 'resource'],
    registers,
  });
  const synced = new Gauge({ name: 'rxfleet_watch_synced', help: '1 once the watch delivered a full list.', labelNames: ['cluster', 'resource'], registers });
  const healthy = new Gauge({ name: 'rxfleet_watch_healthy', help: '0 while the watch fails: since a failure, until a list or event comes through (its cluster is unhealthy on /readyz).', labelNames: ['cluster', 'resource'], registers });
  const engaged = new Gauge({ name: 'rxfleet_engaged_clusters', help: 'Clusters engaged in the fleet.', registers });
  const reports = new Counter({ name: 'rxfleet_provider_reports_total', help: 'Provider reports by provider and type (skipped, waiting, error, source, engaged…).', labelNames: ['provider', 'type'], registers });
  const requests = requestSeries(registers, series);
  engaged.set(0);
  return {
    request(cluster, verb, result) {
      requests(cluster, verb, result);
    },
    watchHealth(h, previous) {
      const labels = { cluster: h.cluster, resource: h.resource };
      // A new engagement starts counting from 0 again: count the growth, never a negative step.
      const grow = (now: number, before: number | undefined): number => Math.max(0, now - (before === undefined || before > now ? 0 : before));
      const r = grow(h.relists, previous?.relists);
      const i = grow(h.interruptions, previous?.interruptions);
      if (r > 0) {
        relists.inc(labels, r);
        series.note(relists, 'relists', labels);
      }
      if (i > 0) {
        interruptions.inc(labels, i);
        series.note(interruptions, 'interruptions', labels);
      }
      synced.set(labels, h.synced ? 1 : 0);
      series.note(synced, 'synced', labels);
      healthy.set(labels, watchFailing(h) ? 0 : 1);
      series.note(healthy, 'healthy', labels);
    },
    engaged(count) {
      engaged.set(count);
    },
    report(r) {
      reports.inc({ provider: r.provider, type: r.type === 'source' ? `source_${r.state}` : r.type });
    },
  };
}
