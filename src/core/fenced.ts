// Which failures are writes this replica's fence refused: ownership of the cluster moved, so the
// work queue drops the reconcile instead of failing or retrying it (the next owner runs the key).
/**
 * Whether a failure is a write refused by the replica's fence (`Fenced`: this replica lost its
 * lease or no longer runs the cluster). Not the reconcile's failure: its cluster is leaving this
 * replica, and whoever runs it next reconciles the key again, so the queue counts it `dropped`.
 *
 * @example
 * ```ts
 * isFenced(kubeError('Fenced', cluster, 'replica web-0 may not write')); // true
 * ```
 * @param cause - any failure: a KubeError, a sink's WriteError, a thrown value.
 * @returns true when it carries the `Fenced` tag.
 */
export function isFenced(cause: unknown): boolean {
  return typeof cause === 'object' && cause !== null && 'type' in cause && cause.type === 'Fenced';
}
