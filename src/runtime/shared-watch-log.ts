// The log lines of a watch shared by many clusters (a kcp endpoint's wildcard watch read by 10,000
// workspaces): one line per state change of that watch, naming it and how many clusters read it,
// not one per cluster. A flapping shared watch is rate-limited on top (log-limiter), its held-back
// episodes counted in the next line.
import type { Logger } from 'pino';
import type { WatchHealth } from '../streams/watch-health.js';
import { failingReason, unservedMessage } from './health.js';
import type { LogLimiter } from './log-limiter.js';
import { createLogLimiter } from './log-limiter.js';

/** Shared watches whose last episode is remembered at most (the least recent is forgotten first). */
const maxWatches = 1_000;

/**
 * Logs the transitions of shared watches, once per watch.
 *
 * @example
 * ```ts
 * const shared = sharedWatchLog(logger);
 * if (h.shared !== undefined) shared.transition(clog, h, before);
 * ```
 */
export interface SharedWatchLog {
  /**
   * Logs `h` (a view's health, `h.shared` set) against `before`: `cache synced` per cluster on
   * `clog` as for any watch; failing, recovered and degraded once per episode of the shared watch on
   * the run's logger, with `watch` (its name: the wildcard URL) and `clusters` (how many read it).
   */
  transition(clog: Logger, h: WatchHealth, before: WatchHealth | undefined, now?: () => number, unservedResourceHint?: string): void;
}

/**
 * Whether a watch is inside a failure episode: from its first failure to the next list or line from
 * the server (`failingSinceAt`); a retry that merely opens a request is still inside it.
 * `backingOff` without `failingSinceAt` counts too, for snapshots that do not carry it.
 *
 * @example
 * ```ts
 * failing({ ...h, state: 'backingOff' }); // true
 * ```
 * @param h - a health snapshot.
 * @returns true while it fails.
 */
export function failing(h: WatchHealth | undefined): boolean {
  return h !== undefined && (h.failingSinceAt !== undefined || h.state === 'backingOff');
}

/**
 * Whether `h` starts a failure episode after `before` (also when `failingSinceAt` changed: a
 * recovery in between was not seen).
 *
 * @example
 * ```ts
 * if (newEpisode(h, before)) log.warn('watch failing');
 * ```
 * @param h - the new snapshot.
 * @param before - the previous one of the same watch.
 * @returns true when a new episode starts.
 */
export function newEpisode(h: WatchHealth, before: WatchHealth | undefined): boolean {
  return failing(h) && (!failing(before) || (h.failingSinceAt !== undefined && before?.failingSinceAt !== undefined && h.failingSinceAt !== before.failingSinceAt));
}

/**
 * Creates the shared-watch log of a run.
 *
 * @example
 * ```ts
 * const shared = sharedWatchLog(pino(), createLogLimiter({ windowMs: 30_000 }));
 * ```
 * @param logger - the run's logger (the lines name the watch, not a cluster).
 * @param limiter - the rate limit of each shared watch's failure lines (default 30 s window).
 * @returns the log.
 */
export function sharedWatchLog(logger: Logger, limiter: LogLimiter = createLogLimiter()): SharedWatchLog {
  // Per shared watch, resource and kind of line: the episode last logged (its failingSinceAt), so
  // that the thousands of views of one snapshot make one line.
  const seen = new Map<string, string>();
  const once = (key: string, episode: string): boolean => {
    if (seen.get(key) === episode) return false;
    seen.delete(key);
    seen.set(key, episode);
    if (seen.size > maxWatches) {
      const oldest = seen.keys().next();
      if (oldest.done !== true) seen.delete(oldest.value);
    }
    return true;
  };
  return {
    transition(clog, h, before, now = Date.now, unservedResourceHint) {
      const shared = h.shared;
      if (shared === undefined) return;
      if (h.synced && before?.synced !== true) clog.info({ resource: h.resource }, 'cache synced');
      const key = `${shared.watch}\u0000${h.resource}`;
      const fields = { watch: shared.watch, resource: h.resource, clusters: shared.clusters };
      const episode = String(h.failingSinceAt ?? h.nextAttemptAt ?? '');
      if (newEpisode(h, before) && once(`${key}\u0000failing`, episode)) {
        const admitted = limiter.admit(`${key}\u0000failing`);
        const err = h.lastError;
        if (admitted.type === 'log') {
          const repeated = admitted.repeated === 0 ? {} : { repeated: admitted.repeated };
          if (err?.type === 'NotFound' && !h.synced) {
            logger.error({ ...fields, ...repeated, cluster: h.cluster }, `${shared.clusters} clusters unhealthy, their shared watch answered 404: ${unservedMessage(h.resource, unservedResourceHint)}`);
          } else {
            logger.warn({ ...fields, ...repeated, error: err?.type, reason: err?.message }, `shared watch failing, retrying with backoff: ${shared.clusters} clusters read it`);
          }
        }
      }
      if (failing(before) && !failing(h) && once(`${key}\u0000recovered`, String(before?.failingSinceAt ?? ''))) {
        const since = before?.failingSinceAt;
        const failedForMs = since === undefined ? undefined : Math.max(0, now() - since);
        logger.info({ ...fields, failedForMs }, `shared watch recovered${failedForMs === undefined ? '' : ` after failing for ${Math.round(failedForMs / 1000)} s`}: ${shared.clusters} clusters read it`);
      }
      if (h.degraded === true && before?.degraded !== true && once(`${key}\u0000degraded`, episode)) {
        logger.error({ ...fields, error: h.lastError?.type, failingSinceAt: h.failingSinceAt, cluster: h.cluster }, `${shared.clusters} clusters unhealthy, their shared watch is degraded: ${failingReason(h, unservedResourceHint)}`);
      }
      if (h.degraded !== true && before?.degraded === true && once(`${key}\u0000undegraded`, String(before.failingSinceAt ?? ''))) {
        logger.info(fields, 'shared watch no longer degraded: a list or event came through');
      }
    },
  };
}
