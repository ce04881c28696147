// Provider health as data: why a candidate was skipped, when a cluster was engaged, re-engaged or
// disengaged and why, which cluster is not answering, which discovery source is failing. Reports
// travel in the provider's own stream (FleetEvent `report`), so the runtime logs them, serves them
// on /readyz and counts them without any option, and tests read them like any other event.
import type { ClusterName } from '../core/cluster.js';
import type { KubeErrorType } from '../core/errors.js';

/**
 * One thing a provider wants known. `at` is the scheduler's clock (ms), `provider` the provider's
 * name (e.g. `file`, `kubeconfig-secrets`).
 *
 * - `engaged`: a cluster joined the fleet.
 * - `reengaged`: a cluster was replaced by a new one (new client) because `reason` (its
 *   credentials or server changed); a `disengaged` FleetEvent preceded it.
 * - `disengaged`: a cluster left the fleet because `reason`.
 * - `skipped`: a candidate cannot be a cluster (malformed kubeconfig, missing Secret key, control
 *   plane not initialised...). Reported once per distinct reason; the others go on.
 * - `waiting`: a candidate that looks fine does not answer (first contact failed or timed out);
 *   it is retried on the provider's schedule and holds back no other cluster.
 * - `error`: the provider's own source has a problem (a kind command failed, a scan failed).
 * - `source`: the watch of the management cluster a provider discovers from (its Secrets,
 *   Namespaces, Cluster API `Cluster`s, ClusterProfiles) changed health. `state: 'failing'` when
 *   it backs off with an error (its first list included): `management` names the cluster,
 *   `resource` the resource (`resourceId`, e.g. `secrets`), `error` the {@link KubeErrorType}
 *   (`Forbidden` when RBAC refuses, `ClusterUnreachable`, `Unauthorized`...) and `reason` says it
 *   all in one line. Reported once per distinct tag while it keeps failing, not on every retry
 *   (the watch retries on its own backoff). `state: 'recovered'` once data flows again (a list
 *   completed, an event or a line arrived), once per failure episode.
 *
 * @example
 * ```ts
 * const r: ProviderReport = { type: 'skipped', provider: 'file', candidate: '/tmp/a.kubeconfig', reason: 'invalid kubeconfig: …', at: 0 };
 * const s: ProviderReport = { type: 'source', provider: 'kubeconfig-secrets', state: 'failing', management: clusterName('hub'), resource: 'secrets', error: 'Forbidden', reason: 'watch of secrets … is failing (Forbidden …)', at: 0 };
 * ```
 */
export type ProviderReport =
  | { readonly type: 'engaged'; readonly provider: string; readonly cluster: ClusterName; readonly at: number }
  | { readonly type: 'reengaged'; readonly provider: string; readonly cluster: ClusterName; readonly reason: string; readonly at: number }
  | { readonly type: 'disengaged'; readonly provider: string; readonly cluster: ClusterName; readonly reason: string; readonly at: number }
  | { readonly type: 'skipped'; readonly provider: string; readonly candidate: string; readonly reason: string; readonly at: number }
  | { readonly type: 'waiting'; readonly provider: string; readonly cluster: ClusterName; readonly reason: string; readonly at: number }
  | { readonly type: 'error'; readonly provider: string; readonly reason: string; readonly at: number }
  | {
      readonly type: 'source';
      readonly provider: string;
      readonly state: 'failing';
      readonly management: ClusterName;
      readonly resource: string;
      readonly error: KubeErrorType;
      readonly reason: string;
      readonly at: number;
    }
  | {
      readonly type: 'source';
      readonly provider: string;
      readonly state: 'recovered';
      readonly management: ClusterName;
      readonly resource: string;
      readonly reason: string;
      readonly at: number;
    };

