// The two API calls a watch needs, injectable: production builds them from the cluster's client,
// marble tests pass functions returning cold observables so the whole state machine runs in
// virtual time.
import type { Observable, ObservableInput } from 'rxjs';
import { defer } from 'rxjs';
import type { KubeError } from '../core/errors.js';
import type { KubeObject, ObjectList } from '../core/object.js';
import type { ResourceDescriptor } from '../core/resource.js';
import type { ListOptions, WatchOptions } from '../client/client.js';
import type { Cluster } from './cluster.js';
import type { Either } from '../internal/fp.js';

/**
 * How a watch reaches the API server: `list` returns one page, `watch` the raw lines of a watch
 * response (erroring with a {@link KubeError} value when the request fails or the stream is cut,
 * completing when the server closes it cleanly).
 *
 * @example
 * ```ts
 * const source: ListerWatcher<ConfigMap> = {
 *   list: () => of(E.right({ metadata: { resourceVersion: '1' }, items: [] })),
 *   watch: () => NEVER,
 * };
 * ```
 */
export interface ListerWatcher<T extends KubeObject = KubeObject> {
  /** One list call (a page, or the streaming list when `opts` asks for it). */
  list(opts: ListOptions): ObservableInput<Either<KubeError, ObjectList<T>>>;
  /** One watch request: its raw lines, ending when the server ends it. */
  watch(opts: WatchOptions): Observable<string>;
}

/**
 * The production {@link ListerWatcher} of one resource in one cluster, over the cluster's own client.
 * The list call is deferred so that nothing is sent until the watch subscribes.
 *
 * @example
 * ```ts
 * const source = clusterListerWatcher(cluster, configMaps);
 * watchSignals(source, { cluster: cluster.name, resource: configMaps });
 * ```
 * @param cluster - the engaged cluster.
 * @param resource - what to list and watch.
 * @returns the source.
 */
export function clusterListerWatcher<T extends KubeObject>(cluster: Cluster, resource: ResourceDescriptor<T>): ListerWatcher<T> {
  return {
    list: (opts) => defer(() => cluster.client.list(resource, opts)),
    watch: (opts) => cluster.client.watch(resource, opts),
  };
}
