// `RunOptions.clusterRateLimit` at work: every engaged cluster's client gets its own token bucket
// (one per engagement, dropped when the cluster leaves), the work queue asks each cluster's bucket
// before starting its keys (so a throttled cluster's keys wait in its lane, not in a worker), and
// waits and 429 pauses are counted per cluster.
import type { Registry } from 'prom-client';
import { Counter } from 'prom-client';
import type { SchedulerLike } from 'rxjs';
import { concat, map, NEVER, Observable } from 'rxjs';
import type { ClientRateLimit } from '../client/rate-limited-client.js';
import { checkClientRateLimit, rateLimitedClient } from '../client/rate-limited-client.js';
import type { ClusterName } from '../core/cluster.js';
import { ConfigError } from '../core/config-error.js';
import type { Cluster, FleetEvent, Provider } from '../streams/cluster.js';
import { engaged } from '../streams/cluster.js';
import type { RateLimit, TokenBucket } from '../core/token-bucket.js';

/**
 * The client-side rate limit of a run's clusters: one limit for every cluster, or a function
 * choosing each cluster's (by its labels, say) where `undefined` leaves that cluster unlimited.
 *
 * @example
 * ```ts
 * const every: ClusterRateLimitOption = { qps: 20, burst: 40 };
 * const small: ClusterRateLimitOption = (c: Cluster) => (c.labels?.['size'] === 'small' ? { qps: 5, burst: 10 } : undefined);
 * ```
 */
export type ClusterRateLimitOption = ClientRateLimit | ((cluster: Cluster) => ClientRateLimit | undefined);

/**
 * The run's per-cluster limiters.
 *
 * @example
 * ```ts
 * const limits = clusterRateLimits({ qps: 5, burst: 10 }, undefined, { scheduler, registry });
 * const fleet = createFleet(limits.provider(provider));
 * reconcile(fn, { clusterGate: (c: ClusterName) => limits.delayMs(c) });
 * ```
 */
export interface ClusterRateLimits {
  /** The provider's events with every engaged cluster's client rate-limited; a cluster's bucket goes when it leaves. */
  provider(p: Provider): Provider;
  /** Milliseconds until `cluster` may send its next request (0: now, and for a cluster without a limit). */
  delayMs(cluster: ClusterName): number;
  /** Clusters with a bucket now (at most the engaged clusters). */
  size(): number;
}

/** Where the limiters report. @example `{ scheduler: asyncScheduler, registry: metrics.registry }` */
export interface ClusterRateLimitParts {
  /** Timers and clock of every bucket. */
  readonly scheduler: SchedulerLike;
  /** Registers the throttling counters here, when given. */
  readonly registry?: Registry;
}

// The same counter when several controllers share a registry: prom-client refuses a second one.
function counter(registry: Registry, name: string, help: string, labelNames: readonly string[]): Counter {
  const found = registry.getSingleMetric(name);
  return found instanceof Counter ? found : new Counter({ name, help, labelNames, registers: [registry] });
}

interface Counters {
  throttled(cluster: ClusterName, waitedMs: number, granted: boolean): void;
  paused(cluster: ClusterName): void;
  forget(cluster: ClusterName): void;
}

function throttleCounters(registry: Registry): Counters {
  const requests = counter(registry, 'rxfleet_client_throttled_requests_total', "Requests that waited for their cluster's client-side rate limit, by result (sent, or timeout: given up unsent).", ['cluster', 'result']);
  const seconds = counter(registry, 'rxfleet_client_throttled_seconds_total', "Time requests waited for their cluster's client-side rate limit.", ['cluster']);
  const pauses = counter(registry, 'rxfleet_client_rate_limit_pauses_total', "429 Retry-After answers that paused the cluster's client-side rate limit.", ['cluster']);
  return {
    throttled(cluster, waitedMs, granted) {
      requests.inc({ cluster, result: granted ? 'sent' : 'timeout' });
      seconds.inc({ cluster }, waitedMs / 1000);
    },
    paused(cluster) {
      pauses.inc({ cluster });
    },
    forget(cluster) {
      requests.remove({ cluster, result: 'sent' });
      requests.remove({ cluster, result: 'timeout' });
      seconds.remove({ cluster });
      pauses.remove({ cluster });
    },
  };
}

/**
 * Resolves the run's client-side rate limit: `RunOptions.clusterRateLimit`, or the deprecated
 * `sinks.rateLimit` of the controller (which, under `run`, now limits every request of the
 * cluster, not only the sinks'). `undefined` when neither is set: rate limiting is off by default.
 *
 * @example
 * ```ts
 * const limits = clusterRateLimits(options.clusterRateLimit, c.sinks?.rateLimit, { scheduler, registry: metrics.registry });
 * const fleet = createFleet(limits === undefined ? provider : limits.provider(provider));
 * ```
 * @param option - the run's option.
 * @param sinksRateLimit - the controller's `sinks.rateLimit` (deprecated).
 * @param parts - scheduler and metrics registry.
 * @returns the limiters, or `undefined`.
 * @throws ConfigError when both are set, or a fixed limit is out of range (a function's limits are checked per cluster, when it engages).
 */
export function clusterRateLimits(option: ClusterRateLimitOption | undefined, sinksRateLimit: RateLimit | undefined, parts: ClusterRateLimitParts): ClusterRateLimits | undefined {
  if (option !== undefined && sinksRateLimit !== undefined) {
    throw new ConfigError('run: give the client-side rate limit once: `clusterRateLimit` replaces the deprecated `sinks.rateLimit` (remove it from the controller)');
  }
  const chosen = option ?? sinksRateLimit;
  if (chosen === undefined) return undefined;
  const where = option === undefined ? 'controller: sinks.rateLimit' : 'run: clusterRateLimit';
  if (typeof chosen !== 'function') checkClientRateLimit(chosen, where);
  const limitOf = (c: Cluster): ClientRateLimit | undefined => {
    if (typeof chosen !== 'function') return chosen;
    const l = chosen(c);
    return l === undefined ? undefined : checkClientRateLimit(l, `${where} for cluster ${c.name}`);
  };
  const counters = parts.registry === undefined ? undefined : throttleCounters(parts.registry);
  // Per engaged cluster: the provider's Cluster, the one handed on, and its bucket.
  const engagedNow = new Map<ClusterName, { readonly source: Cluster; readonly limited: Cluster; readonly bucket: TokenBucket | undefined }>();
  const drop = (name: ClusterName): void => {
    const was = engagedNow.get(name);
    engagedNow.delete(name);
    if (was?.bucket !== undefined) counters?.forget(name);
  };
  // A request still waiting when its cluster has left reports into nothing: a series written for a
  // departed cluster would stay in /metrics forever.
  const current = (name: ClusterName, bucket: TokenBucket): boolean => engagedNow.get(name)?.bucket === bucket;
  const limit = (cluster: Cluster): Cluster => {
    const known = engagedNow.get(cluster.name);
    // The same engagement twice is still one (the fleet ignores the repeat only if it is the same object).
    if (known?.source === cluster) return known.limited;
    drop(cluster.name);
    const l = limitOf(cluster);
    if (l === undefined) {
      engagedNow.set(cluster.name, { source: cluster, limited: cluster, bucket: undefined });
      return cluster;
    }
    // Filled right below; the hooks only run once requests do. Series are labelled with the fleet
    // name (a client may name its cluster otherwise).
    const mine: { bucket?: TokenBucket } = {};
    const name = cluster.name;
    const client = rateLimitedClient(cluster.client, l, {
      scheduler: parts.scheduler,
      hooks: {
        onThrottled: (_client, waitedMs, granted) => {
          if (mine.bucket !== undefined && current(name, mine.bucket)) counters?.throttled(name, waitedMs, granted);
        },
        onPaused: () => {
          if (mine.bucket !== undefined && current(name, mine.bucket)) counters?.paused(name);
        },
      },
    });
    mine.bucket = client.bucket;
    const limited: Cluster = { ...cluster, client };
    engagedNow.set(cluster.name, { source: cluster, limited, bucket: client.bucket });
    return limited;
  };
  return {
    provider: (p) =>
      new Observable<FleetEvent>((subscriber) => {
        // Never completing (as the fleet reads a provider anyway), so buckets and series go only when the run lets go.
        const events = concat(p, NEVER)
          .pipe(
            map((e) => {
              if (e.type === 'engaged') return engaged(limit(e.cluster));
              if (e.type === 'disengaged') drop(e.cluster);
              return e;
            }),
          )
          .subscribe(subscriber);
        return () => {
          events.unsubscribe();
          for (const name of [...engagedNow.keys()]) drop(name);
        };
      }),
    delayMs: (cluster) => engagedNow.get(cluster)?.bucket?.delayMs() ?? 0,
    size: () => [...engagedNow.values()].filter((e) => e.bucket !== undefined).length,
  };
}
