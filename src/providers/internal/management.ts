// The management watch of a discovering provider, with its health turned into reports: a watch that
// keeps failing (RBAC answers 403, the management cluster is unreachable) is reported once per
// distinct cause and once more when it recovers, instead of retrying silently. The retrying itself
// stays the watch state machine's (watchSignals); this only reads its health snapshots.
import type { Observable, OperatorFunction } from 'rxjs';
import { defer, filter, map, tap } from 'rxjs';
import type { Cluster, Selection } from '../../streams/cluster.js';
import type { KubeErrorType } from '../../core/errors.js';
import type { KubeObject } from '../../core/object.js';
import type { ResourceDescriptor } from '../../core/resource.js';
import type { WatchEvent } from '../../streams/events.js';
import type { WatchHealth, WatchSignal } from '../../streams/watch-health.js';
import { watchSignals } from '../../streams/watch-signals.js';
import { clusterListerWatcher } from '../../streams/watch-source.js';
import type { ManagementWatchOptions } from '../../streams/watched.js';
import type { Reporter } from './report.js';

/** What to do about a failure, by its tag: appended to the reason so the fix is one read away. */
const hints: Partial<Record<KubeErrorType, string>> = {
  Forbidden: "the controller's identity may not list/watch it (grant it RBAC: get, list, watch)",
  Unauthorized: 'the management cluster rejects the credentials',
  ClusterUnreachable: 'the management cluster cannot be reached',
  Tls: 'TLS to the management cluster failed',
  NotFound: 'the resource is not served (is its CRD installed?)',
};

function where(health: WatchHealth, namespace: string | undefined): string {
  const scope = namespace === undefined ? '' : ` in namespace "${namespace}"`;
  return `watch of ${health.resource}${scope} on management cluster "${health.cluster}"`;
}

/**
 * Reports the health of one management watch through `say`, as `source` reports: `failing` when it
 * backs off with an error tag not yet reported since it last worked (its first list failing
 * included), `recovered` once it works again. Working again means data came through after the
 * failure: a completed list, an event or a line on an open watch (a bookmark on a quiet watch); a
 * watch request that is merely opened does not count, so retries do not flap. Passes every signal
 * on unchanged.
 *
 * @example
 * ```ts
 * watchSignals(source, { cluster: hub.name, resource: secrets }).pipe(reportManagementHealth(say, 'fleet'));
 * ```
 * @param say - the provider's reporter.
 * @param namespace - the namespace watched, for the reason (undefined: all).
 * @returns the operator.
 */
export function reportManagementHealth<T extends KubeObject>(say: Reporter, namespace: string | undefined): OperatorFunction<WatchSignal<T>, WatchSignal<T>> {
  return (signals) =>
    defer(() => {
      // Tags reported since the watch last worked; non-empty means "failing".
      const reported = new Set<KubeErrorType>();
      let failedAt = 0;
      let last: WatchHealth | undefined;
      const recover = (health: WatchHealth): void => {
        if (reported.size === 0) return;
        const causes = [...reported].join(', ');
        reported.clear();
        say({ type: 'source', state: 'recovered', management: health.cluster, resource: health.resource, reason: `${where(health, namespace)} works again (it failed with ${causes})` });
      };
      return signals.pipe(
        tap((s) => {
          if (s.type === 'event') {
            if (last !== undefined) recover(last);
            return;
          }
          const h = s.health;
          last = h;
          if (h.state === 'backingOff' && h.lastError !== undefined) {
            failedAt = Math.max(failedAt, h.nextAttemptAt ?? failedAt);
            const err = h.lastError;
            if (reported.has(err.type)) return;
            reported.add(err.type);
            const hint = hints[err.type];
            const state = h.synced ? 'clusters already engaged stay engaged' : 'no cluster can be discovered from it';
            say({
              type: 'source',
              state: 'failing',
              management: h.cluster,
              resource: h.resource,
              error: err.type,
              reason: `${where(h, namespace)} is failing (${err.type}${hint === undefined ? '' : `: ${hint}`}): ${err.message}; ${state} until it recovers, retrying with backoff`,
            });
            return;
          }
          if (h.state === 'connected' && h.lastEventAt !== undefined && h.lastEventAt >= failedAt) recover(h);
        }),
      );
    });
}

/**
 * The events of a provider's management watch, its health reported through `say` (see
 * {@link reportManagementHealth}). Cold, never errors, like `watchEvents`.
 *
 * @example
 * ```ts
 * managementWatch(hub, secrets, { namespace: 'fleet' }, say).pipe(objectChanges());
 * ```
 * @param cluster - the management cluster.
 * @param resource - what to watch.
 * @param options - the provider's `managementWatch` settings (timings, backoff, `listerWatcherFor`) and the selection.
 * @param say - the provider's reporter.
 * @returns the cold event stream.
 */
export function managementWatch<T extends KubeObject>(cluster: Cluster, resource: ResourceDescriptor<T>, options: ManagementWatchOptions & Selection, say: Reporter): Observable<WatchEvent<T>> {
  const { listerWatcherFor = clusterListerWatcher, ...config } = options;
  return watchSignals(listerWatcherFor(cluster, resource), { ...config, cluster: cluster.name, resource }).pipe(
    reportManagementHealth(say, config.namespace),
    filter((s): s is Extract<WatchSignal<T>, { type: 'event' }> => s.type === 'event'),
    map((s) => s.event),
  );
}
