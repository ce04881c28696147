// What is wrong with discovery right now, folded from a provider's reports: skipped candidates,
// clusters that do not answer, failing discovery sources. Shown on /readyz beside the clusters, so a
// misconfiguration (a missing kubeconfig, a Secret without a kubeconfig key, RBAC that forbids the
// Secret watch) is visible where operators look, not only in logs. Bounded: at most `limit` issues.
import type { ProviderReport } from '../streams/provider-report.js';

/**
 * One current discovery problem: which provider, what (`skipped`, `waiting`, `error`, `failing`),
 * where (the candidate, cluster or source), and why.
 *
 * @example
 * ```ts
 * const issue: ProviderIssue = { provider: 'file', type: 'skipped', subject: '/etc/fleet/east.yaml', reason: 'file not found', at: 0 };
 * ```
 */
export interface ProviderIssue {
  /** The name of the provider that reported it, e.g. `file`, `kubeconfig-secrets`. */
  readonly provider: string;
  /** `skipped`: a candidate cannot be a cluster; `waiting`: a cluster does not answer; `error`: the provider's own discovery failed; `failing`: a discovery source's watch is failing. */
  readonly type: 'skipped' | 'waiting' | 'error' | 'failing';
  /** The candidate, cluster or discovery source concerned (a path, `Secret ns/name`, a workspace, `secrets on hub`). */
  readonly subject: string;
  /** Why, in one line for a person (the report's `reason`). */
  readonly reason: string;
  /** When it was reported (scheduler ms). */
  readonly at: number;
}

/**
 * Folds reports into the current issues: a problem is set by `skipped`, `waiting`, `error` and
 * `source` failing, and cleared when the same subject is engaged, re-engaged, disengaged or
 * recovered. The oldest issue goes when `limit` is reached.
 *
 * @example
 * ```ts
 * const issues = providerIssues();
 * issues.apply({ type: 'skipped', provider: 'file', candidate: 'east.yaml', reason: 'no current context', at: 0 });
 * issues.list(); // [{ provider: 'file', type: 'skipped', subject: 'east.yaml', … }]
 * ```
 * @param limit - the most issues kept (default 100).
 * @returns the fold: `apply` says whether the list changed.
 */
export function providerIssues(limit = 100): { apply(r: ProviderReport): boolean; list(): readonly ProviderIssue[] } {
  const issues = new Map<string, ProviderIssue>();
  const set = (issue: ProviderIssue): boolean => {
    const id = `${issue.provider}\u0000${issue.subject}`;
    issues.delete(id);
    issues.set(id, Object.freeze(issue));
    while (issues.size > limit) issues.delete(issues.keys().next().value ?? id);
    return true;
  };
  const clear = (provider: string, subject: string): boolean => issues.delete(`${provider}\u0000${subject}`);
  return {
    apply(r) {
      switch (r.type) {
        case 'skipped':
          return set({ provider: r.provider, type: 'skipped', subject: r.candidate, reason: r.reason, at: r.at });
        case 'waiting':
          return set({ provider: r.provider, type: 'waiting', subject: r.cluster, reason: r.reason, at: r.at });
        case 'error':
          return set({ provider: r.provider, type: 'error', subject: 'discovery', reason: r.reason, at: r.at });
        case 'source': {
          const subject = `${r.resource} on ${r.management}`;
          return r.state === 'failing' ? set({ provider: r.provider, type: 'failing', subject, reason: r.reason, at: r.at }) : clear(r.provider, subject);
        }
        case 'engaged':
        case 'reengaged':
        case 'disengaged':
          return clear(r.provider, r.cluster);
        case 'discovered':
          return false;
      }
    },
    list: () => [...issues.values()],
  };
}
