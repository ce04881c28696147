// A provider's reports, as the runtime shows them without any option: one log line each (warn for
// a problem, naming the source and the cause; debug for lifecycle, which the keeper already logs
// per cluster), /readyz detail through the health tracker, and a counter per provider and type.
import type { Logger } from 'pino';
import type { Observable } from 'rxjs';
import { ignoreElements, tap } from 'rxjs';
import type { ProviderReport } from '../streams/provider-report.js';
import type { HealthTracker } from './health.js';
import type { ControllerMetrics } from './metrics.js';

/**
 * The log fields and message of one report: where (cluster, candidate, or management cluster and
 * resource) and why, at the level its meaning calls for.
 *
 * @example
 * ```ts
 * const { level, fields, message } = describeReport({ type: 'skipped', provider: 'file', candidate: 'east.yaml', reason: 'file not found', at: 0 });
 * log[level](fields, message); // warn { provider: 'file', candidate: 'east.yaml', reason: 'file not found' } provider: skipped
 * ```
 * @param r - the report.
 * @returns level, fields and message.
 */
export function describeReport(r: ProviderReport): { readonly level: 'debug' | 'info' | 'warn'; readonly fields: Readonly<Record<string, unknown>>; readonly message: string } {
  const base = { provider: r.provider };
  switch (r.type) {
    case 'skipped':
      return { level: 'warn', fields: { ...base, candidate: r.candidate, reason: r.reason }, message: 'provider: candidate skipped' };
    case 'waiting':
      return { level: 'warn', fields: { ...base, cluster: r.cluster, reason: r.reason }, message: 'provider: cluster not answering' };
    case 'error':
      return { level: 'warn', fields: { ...base, reason: r.reason }, message: 'provider: discovery error' };
    case 'source':
      return r.state === 'failing'
        ? { level: 'warn', fields: { ...base, management: r.management, resource: r.resource, error: r.error, reason: r.reason }, message: 'provider: source failing' }
        : { level: 'info', fields: { ...base, management: r.management, resource: r.resource, reason: r.reason }, message: 'provider: source recovered' };
    case 'engaged':
      return { level: 'debug', fields: { ...base, cluster: r.cluster }, message: 'provider: engaged' };
    case 'discovered':
      return { level: 'info', fields: { ...base, clusters: r.clusters, candidates: r.candidates }, message: `provider: first discovery pass done, ${r.clusters} cluster(s) engaged of ${r.candidates} candidate(s)` };
    case 'reengaged':
    case 'disengaged':
      return { level: 'info', fields: { ...base, cluster: r.cluster, reason: r.reason }, message: `provider: ${r.type}` };
  }
}

/**
 * Follows a fleet's provider reports into logs, health and metrics while subscribed.
 *
 * @example
 * ```ts
 * followReports(fleet.reports, { log, health, metrics }).subscribe();
 * ```
 * @param reports - the fleet's reports.
 * @param to - where they go.
 * @returns a stream that emits nothing.
 */
export function followReports(reports: Observable<ProviderReport>, to: { readonly logger: Logger; readonly health: HealthTracker; readonly metrics: ControllerMetrics }): Observable<never> {
  return reports.pipe(
    tap((r) => {
      const { level, fields, message } = describeReport(r);
      to.logger[level](fields, message);
      to.health.provider(r);
      to.metrics.report(r);
    }),
    ignoreElements(),
  );
}
