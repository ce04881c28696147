// Per engaged cluster, for as long as it is engaged: keep every watch the controller declared open
// (so caches outlive the queue's input during a drain) and turn their health into readiness,
// metrics and one log line per real state change.
import type { Logger } from 'pino';
import type { Observable } from 'rxjs';
import { defer, filter, finalize, from, ignoreElements, map, merge, mergeMap, NEVER, share, takeUntil, tap } from 'rxjs';
import type { KubeObject } from '../core/object.js';
import type { ResourceDescriptor } from '../core/resource.js';
import { resourceId } from '../core/resource.js';
import type { Cluster } from '../streams/cluster.js';
import type { Fleet } from '../streams/fleet.js';
import type { Informers } from '../streams/informers.js';
import type { WatchHealth } from '../streams/watch-health.js';
import { matchesSelector } from '../core/selector.js';
import type { ControllerSelection } from './controller.js';
import type { HealthTracker } from './health.js';
import { failingReason, unservedMessage } from './health.js';
import type { ControllerMetrics } from './metrics.js';
import { failing, newEpisode, sharedWatchLog } from './shared-watch-log.js';

/**
 * One watch a controller declared: a resource, its selection, and the clusters it applies to.
 *
 * @example
 * ```ts
 * const spec: WatchSpec = { resource: configMaps, options: { namespace: 'default' } };
 * ```
 */
export interface WatchSpec {
  readonly resource: ResourceDescriptor;
  readonly options: ControllerSelection<KubeObject>;
}

/**
 * Whether a declared watch applies to a cluster (its `clusterSelector`, default every cluster).
 *
 * @example
 * ```ts
 * selects({ resource: configMaps, options: { clusterSelector: { matchLabels: { role: 'hub' } } } }, cluster);
 * ```
 * @param spec - the watch.
 * @param cluster - the cluster.
 * @returns true when the watch runs in that cluster.
 */
export function selects(spec: WatchSpec, cluster: Cluster): boolean {
  const selector = spec.options.clusterSelector;
  if (selector === undefined) return true;
  return typeof selector === 'function' ? selector(cluster) : matchesSelector(selector, cluster.labels ?? {});
}

/** What the keeper needs from the run. @example `{ fleet, informers, specs, health, metrics, logger }` */
export interface KeeperParts {
  readonly fleet: Fleet;
  readonly informers: Informers;
  /** The declared watches; read when a cluster engages (every input has declared its watches by then) and at each `specsChanged`. */
  readonly specs: readonly WatchSpec[];
  /** Emits after `specs` changed while the run runs (a controller joined or left). */
  readonly specsChanged?: Observable<void>;
  readonly health: HealthTracker;
  readonly metrics: ControllerMetrics;
  readonly logger: Logger;
}

/**
 * Logs a watch's health change: one line per real change of its state, never one per retry. A
 * watch is "failing" once per failure episode, and "recovered" only once data flows again (a list
 * synced or a line arrived, which clears `failingSinceAt`), not when a retry merely opens a request;
 * the recovery line says how long it failed (`failedForMs`). Degraded is logged once each way.
 *
 * @example
 * ```ts
 * logTransition(log.child({ cluster: 'east' }), h, tracker.watchHealth(h)); // tracker: the run's HealthTracker
 * ```
 * @param clog - the cluster's logger.
 * @param h - the new snapshot.
 * @param before - the previous snapshot of the same watch, if any.
 * @param now - the clock `failingSinceAt` was read on, in ms (default `Date.now`, the watches' default scheduler).
 * @param unservedResourceHint - the cluster's `Cluster.unservedResourceHint`, for a watch answered 404.
 */
export function logTransition(clog: Logger, h: WatchHealth, before: WatchHealth | undefined, now: () => number = Date.now, unservedResourceHint?: string): void {
  if (h.synced && before?.synced !== true) clog.info({ resource: h.resource }, 'cache synced');
  if (newEpisode(h, before)) {
    const err = h.lastError;
    if (err?.type === 'NotFound' && !h.synced) clog.error({ resource: h.resource }, `cluster unhealthy: ${unservedMessage(h.resource, unservedResourceHint)}`);
    else clog.warn({ resource: h.resource, error: err?.type, reason: err?.message }, 'watch failing, retrying with backoff');
  }
  if (failing(before) && !failing(h)) {
    const since = before?.failingSinceAt;
    const failedForMs = since === undefined ? undefined : Math.max(0, now() - since);
    clog.info({ resource: h.resource, failedForMs }, failedForMs === undefined ? 'watch recovered' : `watch recovered after failing for ${Math.round(failedForMs / 1000)} s`);
  }
  // Degraded is its own, slower transition: once when it starts, once when it ends.
  if (h.degraded === true && before?.degraded !== true) {
    clog.error({ resource: h.resource, error: h.lastError?.type, failingSinceAt: h.failingSinceAt }, `cluster unhealthy: ${failingReason(h, unservedResourceHint)}`);
  }
  if (h.degraded !== true && before?.degraded === true) clog.info({ resource: h.resource }, 'watch no longer degraded: a list or event came through');
}

/**
 * Keeps every engaged cluster's declared watches open until the cluster leaves, and reports them.
 * Emits nothing; errors only if the provider does.
 *
 * @example
 * ```ts
 * const sub = keepClusters({ fleet, informers, specs, health, metrics, logger }).subscribe();
 * ```
 * @param parts - the fleet, the informers, the declared watches and where to report.
 * @returns the keeper, running while subscribed.
 */
export function keepClusters(parts: KeeperParts): Observable<never> {
  const { fleet, informers, specs, health, metrics, logger } = parts;
  return defer(() => {
    // Counted here, O(1) per change: reading fleet.clusters() per engagement rebuilds its list under churn.
    let kept = 0;
    // A watch shared by many clusters (a kcp endpoint's wildcard) is logged once, not per cluster.
    const sharedLog = sharedWatchLog(logger);
    return fleet.engagements.pipe(
      mergeMap(({ cluster, lifetime }) => {
        const selected = (): readonly WatchSpec[] => specs.filter((s) => selects(s, cluster));
        const idsOf = (list: readonly WatchSpec[]): readonly string[] => [...new Set(list.map((s) => resourceId(s.resource)))];
        let mine = selected();
        let ids = idsOf(mine);
        const clog = logger.child({ cluster: cluster.name });
        health.engage(cluster.name, ids, cluster.unservedResourceHint);
        kept += 1;
        metrics.engaged(kept);
        clog.info({ labels: cluster.labels ?? {}, ...(cluster.identity === undefined ? {} : { from: cluster.identity.from }), watches: ids }, 'cluster engaged');
        const keep = (s: WatchSpec): Observable<never> => {
          const inf = informers.informer(cluster, s.resource, s.options);
          return merge(
            inf.events.pipe(ignoreElements()),
            inf.health.pipe(
              tap((h) => {
                const before = health.watchHealth(h);
                metrics.watchHealth(h, before);
                if (h.shared === undefined) logTransition(clog, h, before, Date.now, cluster.unservedResourceHint);
                else sharedLog.transition(clog, h, before, Date.now, cluster.unservedResourceHint);
              }),
              ignoreElements(),
            ),
          );
        };
        // A controller that joins or leaves the run changes the declared watches: a new one is kept
        // from then on, a dropped one released (no log line per cluster: the run logs the change once).
        const changes = (parts.specsChanged ?? NEVER).pipe(
          map(() => {
            const before = mine;
            mine = selected();
            const next = idsOf(mine);
            // A dropped watch's series stay until the cluster leaves (bounded by the resources ever declared).
            ids = next;
            health.expect(cluster.name, ids);
            return { added: mine.filter((s) => !before.includes(s)), current: mine };
          }),
          share(),
        );
        const released = (s: WatchSpec): Observable<unknown> => changes.pipe(filter((c) => !c.current.includes(s)));
        const perWatch = merge(
          from(mine),
          changes.pipe(mergeMap((c) => from(c.added))),
        ).pipe(mergeMap((s) => keep(s).pipe(takeUntil(released(s)))));
        // NEVER keeps a cluster that no watch selects (e.g. a downstream target) tracked until its
        // lifetime ends; an empty merge would complete at once and report it disengaged.
        return merge(NEVER, perWatch).pipe(
          takeUntil(lifetime),
          finalize(() => {
            health.disengage(cluster.name);
            metrics.forget(cluster.name, ids);
            kept -= 1;
            metrics.engaged(kept);
            clog.info('cluster disengaged');
          }),
        );
      }),
    );
  });
}
