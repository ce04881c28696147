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
 * - `discovered`: the provider's first discovery pass is over: every candidate of its first look
 *   at its source was engaged, skipped or found not answering (`waiting`), or the source failed
 *   before giving any. Said once per subscription; `clusters` is how many are engaged when it ends. The
 *   runtime's readiness waits for it, and an empty first pass with problems fails the start.
 *
 * @example
 * ```ts
 * const r: ProviderReport = { type: 'skipped', provider: 'file', candidate: '/tmp/a.kubeconfig', reason: 'invalid kubeconfig: …', at: 0 };
 * const s: ProviderReport = { type: 'source', provider: 'kubeconfig-secrets', state: 'failing', management: clusterName('hub'), resource: 'secrets', error: 'Forbidden', reason: 'watch of secrets … is failing (Forbidden …)', at: 0 };
 * ```
 */
export type ProviderReport =
  | {
      /** A cluster joined the fleet. */
      readonly type: 'engaged';
      /** The provider's name, e.g. `file`, `kubeconfig-secrets`. */
      readonly provider: string;
      /** The fleet name of the cluster engaged. */
      readonly cluster: ClusterName;
      /** When it was reported, on the scheduler's clock (ms). */
      readonly at: number;
    }
  | {
      /** A cluster was replaced by a new engagement (new client); a `disengaged` FleetEvent preceded it. */
      readonly type: 'reengaged';
      /** The provider's name, e.g. `file`, `kubeconfig-secrets`. */
      readonly provider: string;
      /** The fleet name of the cluster replaced. */
      readonly cluster: ClusterName;
      /** Why it was replaced, e.g. its credentials or server changed. */
      readonly reason: string;
      /** When it was reported, on the scheduler's clock (ms). */
      readonly at: number;
    }
  | {
      /** A cluster left the fleet. */
      readonly type: 'disengaged';
      /** The provider's name, e.g. `file`, `kubeconfig-secrets`. */
      readonly provider: string;
      /** The fleet name of the cluster that left. */
      readonly cluster: ClusterName;
      /** Why it left, e.g. its kubeconfig Secret was deleted. */
      readonly reason: string;
      /** When it was reported, on the scheduler's clock (ms). */
      readonly at: number;
    }
  | {
      /** A candidate cannot be a cluster; reported once per distinct reason. */
      readonly type: 'skipped';
      /** The provider's name, e.g. `file`, `kubeconfig-secrets`. */
      readonly provider: string;
      /** What was considered, as a person would name it: a kubeconfig path, a Secret, a workspace. */
      readonly candidate: string;
      /** Why it cannot be a cluster, e.g. an invalid kubeconfig or a missing Secret key. */
      readonly reason: string;
      /** When it was reported, on the scheduler's clock (ms). */
      readonly at: number;
    }
  | {
      /** A candidate that looks fine does not answer; retried on the provider's schedule. */
      readonly type: 'waiting';
      /** The provider's name, e.g. `file`, `kubeconfig-secrets`. */
      readonly provider: string;
      /** The fleet name the cluster will have once it answers. */
      readonly cluster: ClusterName;
      /** Why it is not answering yet (the first contact's failure or timeout) and when it is retried. */
      readonly reason: string;
      /** When it was reported, on the scheduler's clock (ms). */
      readonly at: number;
    }
  | {
      /** The provider's own source has a problem, e.g. a kind command or a scan failed. */
      readonly type: 'error';
      /** The provider's name, e.g. `file`, `kubeconfig-secrets`. */
      readonly provider: string;
      /** What failed, in one line. */
      readonly reason: string;
      /** When it was reported, on the scheduler's clock (ms). */
      readonly at: number;
    }
  | {
      /** The watch of a discovery source on the management cluster changed health. */
      readonly type: 'source';
      /** The provider's name, e.g. `file`, `kubeconfig-secrets`. */
      readonly provider: string;
      /** The watch backs off with an error (its first list included); said once per distinct error while it keeps failing. */
      readonly state: 'failing';
      /** The management cluster the provider discovers from. */
      readonly management: ClusterName;
      /** The watched resource's `resourceId`, e.g. `secrets`. */
      readonly resource: string;
      /** The kind of failure: `Forbidden` when RBAC refuses, `ClusterUnreachable`, `Unauthorized`… */
      readonly error: KubeErrorType;
      /** The failure in one line, for logs and `/readyz`. */
      readonly reason: string;
      /** When it was reported, on the scheduler's clock (ms). */
      readonly at: number;
    }
  | {
      /** The watch of a discovery source on the management cluster changed health. */
      readonly type: 'source';
      /** The provider's name, e.g. `file`, `kubeconfig-secrets`. */
      readonly provider: string;
      /** Data flows again (a list completed, an event or a line arrived); said once per failure episode. */
      readonly state: 'recovered';
      /** The management cluster the provider discovers from. */
      readonly management: ClusterName;
      /** The watched resource's `resourceId`, e.g. `secrets`. */
      readonly resource: string;
      /** What works again, in one line. */
      readonly reason: string;
      /** When it was reported, on the scheduler's clock (ms). */
      readonly at: number;
    }
  | {
      /** The first discovery pass is over (said once per subscription). */
      readonly type: 'discovered';
      /** The provider's name, e.g. `file`, `kubeconfig-secrets`. */
      readonly provider: string;
      /** How many clusters were engaged when the pass ended. */
      readonly clusters: number;
      /** How many candidates the first look found (engaged, skipped or not answering). */
      readonly candidates: number;
      /** When it was reported, on the scheduler's clock (ms). */
      readonly at: number;
    };

