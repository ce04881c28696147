// The options every provider factory shares: the scheduler, and for providers that discover
// clusters, how they make first contact. Declared beside the provider contract (cluster.ts) so that
// a provider written outside rxfleet takes the same options as the built-in ones.
import type { ObservableInput, SchedulerLike } from 'rxjs';
import type { ClusterClientOptions } from '../client/client.js';
import type { Either } from '../internal/fp.js';
import type { Cluster } from './cluster.js';

/**
 * What every provider factory accepts for timing. Reports need no option: they travel in the
 * provider's stream (`createFleet(provider).reports`, logged by `run`/`main`).
 *
 * @example
 * ```ts
 * const opts: ProviderOptions = { scheduler: asyncScheduler };
 * ```
 */
export interface ProviderOptions {
  /** Drives every wait, poll and timeout, and stamps reports' `at`; default `asyncScheduler`. */
  readonly scheduler?: SchedulerLike;
}

/**
 * First contact with a built cluster: `Right` once it answers, `Left` (why not) otherwise.
 *
 * @example
 * ```ts
 * const probe: ContactProbe = (c) => c.client.raw({ method: 'GET', path: '/version' }).then((r) => (isRight(r) ? E.right(true) : E.left(r.left.message)));
 * ```
 */
export type ContactProbe = (cluster: Cluster) => ObservableInput<Either<string, unknown>>;

/**
 * Timing and first-contact options of a discovering provider.
 *
 * @example
 * ```ts
 * const opts: ContactOptions = { probe: true, probeTimeoutMs: 5_000, retryIntervalMs: 10_000 };
 * ```
 */
export interface ContactOptions extends ProviderOptions {
  /**
   * First contact before engaging: `true` sends `GET /version` (any answer but 401 counts),
   * `false` engages at once, or pass your own {@link ContactProbe}. A cluster that does not answer is
   * reported as `waiting` and retried; it never delays the others.
   */
  readonly probe?: boolean | ContactProbe;
  /** How long one probe may take (default 10 000). */
  readonly probeTimeoutMs?: number;
  /** How long to wait before probing a silent cluster again (default 30 000). */
  readonly retryIntervalMs?: number;
  /**
   * How the clients of the clusters it builds from kubeconfigs talk: transport options such as
   * `http2: false` (HTTP/1.1 connections of each cluster's own), `headersTimeoutMs` or `userAgent`.
   * Clusters handed over as a ready client keep theirs. Default: the client's defaults.
   *
   * @example
   * ```ts
   * kubeconfigFileProvider({ paths: ['fleet/'], client: { http2: false } });
   * ```
   */
  readonly client?: ClusterClientOptions;
}
