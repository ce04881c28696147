// Counting every request where it is sent: the transport reports each request's verb and result to
// a recorder, injected (never prom-client here: the root entry point stays light). A transport's
// recorder is its own (`TransportOptions.requests`), else the one in effect where it was made,
// else the one in effect where the request is made: `run` puts its metrics' recorder in effect for
// everything it starts, so the clients its providers make, its Lease client and a client made
// before the run but used by it are all counted, with no provider knowing about metrics.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { ClusterName } from '../core/cluster.js';
import type { KubeError } from '../core/errors.js';
import type { Verb } from '../core/verb.js';
import type { HttpRequest } from './transport-types.js';

/**
 * Receives one request a transport sent: its cluster (the transport's), its verb and its result:
 * the HTTP status class (`2xx`, `3xx`, `4xx`, `5xx`) when the server answered, else the
 * {@link KubeError} tag of why no answer came (`ClusterUnreachable`, `Timeout`, `Transient`,
 * `Tls`, `Fenced`, `Unauthorized` for credentials that could not be had…). Every value is from a
 * bounded set: never a path, a name or a namespace. The cluster is a fleet cluster's name, or a
 * client's own (a provider's management cluster, a kcp endpoint's URL): `forget` removes a client's
 * series when it closes, if that client's name comes and goes (`TransportOptions.countedWhileOpen`).
 *
 * @example
 * ```ts
 * const record: RequestRecorder = (cluster: ClusterName, verb: Verb, result: string) => console.log(cluster, verb, result);
 * ```
 */
export interface RequestRecorder {
  /** Counts one request: its cluster, verb and result. */
  (cluster: ClusterName, verb: Verb, result: string): void;
  /**
   * Removes what was counted for `cluster` (called when a transport made with
   * `countedWhileOpen` closes: its name will not be seen again). Without it, nothing is removed.
   */
  readonly forget?: (cluster: ClusterName) => void;
}

const inEffect = new AsyncLocalStorage<RequestRecorder>();

/**
 * Runs `f` with `record` in effect: a transport made during `f`, or in anything `f` starts (its
 * timers, promises and I/O callbacks), reports its requests to `record` unless it has a recorder
 * of its own; so does a request made there by a transport made outside without one. `run` wraps
 * itself in it with its metrics' recorder.
 *
 * @example
 * ```ts
 * const seen: string[] = [];
 * await countingRequests((cluster, verb, result) => seen.push(`${cluster} ${verb} ${result}`), () => client.get(configMaps, 'a'));
 * ```
 * @param record - the recorder.
 * @param f - the work whose requests it counts.
 * @returns what `f` returns.
 */
export function countingRequests<R>(record: RequestRecorder, f: () => R): R {
  return inEffect.run(record, f);
}

/**
 * The recorder in effect here (see {@link countingRequests}), if any.
 *
 * @example
 * ```ts
 * const record = recorderInEffect();
 * ```
 * @returns the recorder, or `undefined`.
 */
export function recorderInEffect(): RequestRecorder | undefined {
  return inEffect.getStore();
}

// A cluster's name as the fleet knows it, for requests made through a renamed client (withPrefix,
// a namespace-cluster borrowing its hub's client): each rename maps its client's own name only,
// so a context that outlives the call (a watch's callbacks, timers started there) renames nothing
// else; renames made inside another apply first, the outer one last.
const renames = new AsyncLocalStorage<(cluster: ClusterName) => ClusterName>();

/**
 * Runs `f` with requests of cluster `from` counted as cluster `to`: what a client renamed on its
 * way to the fleet does around each call, so its requests are counted under the fleet's name and
 * go with that name's series when the cluster leaves.
 *
 * @example
 * ```ts
 * const got = await countingAs(clusterName('east'), clusterName('prod#east'), () => east.get(configMaps, 'a'));
 * ```
 * @param from - the name the client's transport has.
 * @param to - the name the fleet knows.
 * @param f - the call.
 * @returns what `f` returns.
 */
export function countingAs<R>(from: ClusterName, to: ClusterName, f: () => R): R {
  const outer = renames.getStore();
  const rename = (cluster: ClusterName): ClusterName => {
    const inner = cluster === from ? to : cluster;
    return outer === undefined ? inner : outer(inner);
  };
  return renames.run(rename, f);
}

/**
 * The name a request of `cluster` is counted under here (see {@link countingAs}).
 *
 * @example
 * ```ts
 * countedName(clusterName('east')); // 'prod#east' inside countingAs('east', 'prod#east', ...)
 * ```
 * @param cluster - the transport's cluster.
 * @returns the name to count under.
 */
export function countedName(cluster: ClusterName): ClusterName {
  const rename = renames.getStore();
  return rename === undefined ? cluster : rename(cluster);
}

const methodVerbs: Readonly<Record<HttpRequest['method'], Verb>> = { GET: 'get', POST: 'create', PUT: 'update', PATCH: 'patch', DELETE: 'delete' };

/**
 * The verb a request is counted under when its caller names none: `watch` for a stream, else by
 * method (GET `get`, POST `create`, PUT `update`, PATCH `patch`, or `apply` for an apply patch,
 * DELETE `delete`).
 *
 * @example
 * ```ts
 * verbOfRequest({ method: 'PATCH', contentType: 'application/apply-patch+yaml' }, false); // 'apply'
 * ```
 * @param req - the request's method, content type and named verb.
 * @param stream - whether its body is streamed (a watch).
 * @returns the verb.
 */
export function verbOfRequest(req: Pick<HttpRequest, 'method' | 'contentType' | 'verb'>, stream: boolean): Verb {
  if (req.verb !== undefined) return req.verb;
  if (stream) return 'watch';
  if (req.method === 'PATCH' && req.contentType?.startsWith('application/apply-patch') === true) return 'apply';
  return methodVerbs[req.method];
}

const classes = ['1xx', '2xx', '3xx', '4xx', '5xx'] as const;

/**
 * The result a request is counted under: the status class of an answer, else the error's tag.
 *
 * @example
 * ```ts
 * requestResult(404); // '4xx'
 * requestResult(kubeError('ClusterUnreachable', clusterName('east'), 'connect ECONNREFUSED')); // 'ClusterUnreachable'
 * ```
 * @param outcome - the HTTP status, or the error of a request the server did not answer.
 * @returns the result label.
 */
export function requestResult(outcome: number | KubeError): string {
  if (typeof outcome !== 'number') return outcome.code === undefined ? outcome.type : requestResult(outcome.code);
  return classes[Math.floor(outcome / 100) - 1] ?? 'other';
}
