// The start-up check of the Lease namespace and rights on the home cluster: a missing namespace,
// RBAC that forbids Leases, or an unreachable home cluster is a ConfigError before anything runs,
// instead of a replica that stays standby forever with a warning nobody reads.
//
// Why requests and not a SelfSubjectAccessReview: the check makes the requests the keeper will
// make, with dryRun=All for the writes. So every authorizer in the chain answers (RBAC, a webhook,
// kcp's own), NamespaceLifecycle admission says whether the namespace exists (without needing the
// right to read namespaces, which controllers rarely have), and nothing is persisted: no Lease is
// left behind. A review would only ask RBAC-like authorizers and say nothing of the namespace.
import { firstValueFrom, from, of, timeout } from 'rxjs';
import type { ObservableInput } from 'rxjs';
import { ConfigError } from '../../core/config-error.js';
import type { KubeError } from '../../core/errors.js';
import { kubeError } from '../../core/errors.js';
import type { Lease } from '../../core/object.js';
import type { Either } from '../../internal/fp.js';
import { E } from '../../internal/fp.js';
import type { Cluster } from '../../streams/cluster.js';
import type { LeaseApi } from './lease-api.js';
import { leaseApi } from './lease-api.js';

/** A verb on Leases that replicas use. @example `'update'` */
export type LeaseVerb = 'get' | 'list' | 'create' | 'update' | 'delete';

/** Options of {@link checkLeaseAccess}. @example `{ verbs: ['get', 'list', 'create', 'update', 'delete'], timeoutMs: 5_000 }` */
export interface LeaseAccessOptions {
  /** The verbs to check; default get, create and update (leader election). Sharding also lists and deletes peers' Leases. */
  readonly verbs?: readonly LeaseVerb[];
  /** Timeout of each request; default 10 000 ms. */
  readonly timeoutMs?: number;
  /** The Lease calls; default `leaseApi(home.client)`. */
  readonly api?: LeaseApi;
}

const resource = 'leases.coordination.k8s.io';

/**
 * Checks, on `home`, that `namespace` exists and that this identity may use Leases there, by
 * dry-run requests on the Lease `name`. Resolves when all is well.
 *
 * @example
 * ```ts
 * await checkLeaseAccess(hub, 'ops', 'my-controller');
 * // ConfigError: Lease namespace "ops" does not exist on cluster "hub"; create it, or name another with `replicas.namespace`
 * ```
 * @param home - the cluster holding the Leases.
 * @param namespace - the Lease namespace.
 * @param name - the Lease this replica will hold (its own membership Lease when sharding).
 * @param opts - the verbs to check, the timeout, and the Lease calls.
 * @returns nothing; rejects with a ConfigError naming the cluster, namespace, verb and cause.
 */
export async function checkLeaseAccess(home: Cluster, namespace: string, name: string, opts: LeaseAccessOptions = {}): Promise<void> {
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const api = opts.api ?? leaseApi(home.client, { timeoutMs });
  const verbs = new Set<LeaseVerb>(opts.verbs ?? ['get', 'create', 'update']);
  const probe: Lease = { metadata: { name, namespace }, spec: {} };
  const ask = <T>(input: ObservableInput<Either<KubeError, T>>): Promise<Either<KubeError, T>> =>
    firstValueFrom(from(input).pipe(timeout({ first: timeoutMs, with: () => of(E.left(timedOut(home, timeoutMs))) })));

  // Always first: a create in a missing namespace is the one request that says so (404 namespaces).
  check(home, namespace, 'create', await ask(api.create(probe, { dryRun: true })));
  if (verbs.has('get')) check(home, namespace, 'get', await ask(api.get(namespace, name)));
  // Authorization ignores selectors; this one keeps the answer empty however many Leases there are.
  if (verbs.has('list')) check(home, namespace, 'list', await ask(api.list(namespace, 'rxfleet.io/access-check')));
  // An unconditional PUT of a Lease that does not exist is authorized first, then answered 404.
  if (verbs.has('update')) check(home, namespace, 'update', await ask(api.replace(probe, { dryRun: true })));
  if (verbs.has('delete')) check(home, namespace, 'delete', await ask(api.delete(namespace, name, { dryRun: true })));
}

function timedOut(home: Cluster, ms: number): KubeError {
  return kubeError('Timeout', home.name, `no answer within ${ms} ms`);
}

/** Throws the ConfigError that `res` means for `verb`, or returns when the verb is allowed. */
function check(home: Cluster, namespace: string, verb: LeaseVerb, res: Either<KubeError, unknown>): void {
  if (E.isRight(res)) return;
  const e = res.left;
  switch (e.type) {
    // The request got past authorization: the verb is allowed (the object simply exists or not).
    case 'AlreadyExists':
    case 'Conflict':
    case 'Invalid':
      return;
    case 'NotFound':
      if (e.details?.kind === 'namespaces') {
        throw new ConfigError(`Lease namespace "${namespace}" does not exist on cluster "${home.name}"; create it, or name another with \`replicas.namespace\``);
      }
      if (verb === 'create') {
        throw new ConfigError(`cluster "${home.name}" does not serve ${resource} (coordination.k8s.io/v1), needed for leader election and sharding: ${e.message}`);
      }
      return;
    case 'Forbidden':
      throw new ConfigError(
        `cluster "${home.name}" forbids "${verb}" on ${resource} in namespace "${namespace}" for this controller's identity; grant verbs get, list, create, update and delete on leases in that namespace (a Role and RoleBinding): ${e.message}`,
      );
    default:
      throw new ConfigError(`cannot check the Lease namespace "${namespace}" on cluster "${home.name}" (${e.type}): ${e.message}; is the home cluster reachable and are its credentials valid?`);
  }
}
