// Which failures are the API server refusing us for who we are (401, 403): fixable while a
// controller runs (RBAC granted, credentials rotated in), so retried slowly rather than dropped.
/**
 * Whether a failure is a request the API server refused for who we are: it answered 401
 * Unauthorized (credentials expired, revoked, not yet rotated in) or 403 Forbidden (RBAC, an
 * admission policy, a quota, a terminating namespace). Both can be fixed while the controller runs,
 * so the work queue retries such a reconcile on its slow `authBackoff` instead of dropping it.
 * Refusals made on this side with the same tag but no HTTP status (a tenant guard, a sync
 * policy) are decisions, not answers: they are not denials.
 *
 * @example
 * ```ts
 * isDenied(fromStatus(cluster, 403, { kind: 'Status', reason: 'Forbidden' })); // true
 * isDenied(kubeError('Forbidden', cluster, "refusing to write another tenant's object")); // false: no server answered
 * ```
 * @param cause - any failure: a KubeError, a sink's WriteError, a thrown value.
 * @returns true for a `Forbidden` answered 403 or an `Unauthorized` answered 401.
 */
export function isDenied(cause: unknown): boolean {
  if (typeof cause !== 'object' || cause === null || !('type' in cause) || !('code' in cause)) return false;
  return (cause.type === 'Forbidden' && cause.code === 403) || (cause.type === 'Unauthorized' && cause.code === 401);
}
