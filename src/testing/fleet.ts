// Fake clusters for marble tests: no server is involved, so each cluster gets a stub client whose
// calls resolve to a NotEngaged error unless the test supplies them.
import type { OperatorFunction } from 'rxjs';
import { map, scan, throwError } from 'rxjs';
import type { Cluster, FleetEvent, FleetView } from '../streams/cluster.js';
import type { ClusterClient } from '../client/client.js';
import type { ClusterName } from '../core/cluster.js';
import { clusterName } from '../core/cluster.js';
import type { KubeError } from '../core/errors.js';
import { kubeError } from '../core/errors.js';
import { E } from '../internal/fp.js';

/**
 * A {@link ClusterClient} that talks to nothing: every call resolves to a `NotEngaged` Left (and
 * `watch` errors with it) unless `overrides` supplies the method.
 *
 * @example
 * ```ts
 * const client = stubClient(clusterName('east'), {
 *   get: async () => E.right({ metadata: { name: 'a' } }) as never,
 * });
 * ```
 * @param cluster - the cluster the client claims to serve.
 * @param overrides - methods to use instead of the stubs.
 * @returns the client.
 */
export function stubClient(cluster: ClusterName, overrides: Partial<ClusterClient> = {}): ClusterClient {
  const fail = (call: string): KubeError => kubeError('NotEngaged', cluster, `stub client: ${call} is not stubbed in this test`);
  const left = (call: string) => Promise.resolve(E.left(fail(call)));
  const stub: ClusterClient = {
    cluster,
    server: `https://${encodeURIComponent(cluster)}.invalid`,
    get: () => left('get'),
    list: () => left('list'),
    listAll: () => left('listAll'),
    watch: () => throwError(() => fail('watch')),
    create: () => left('create'),
    update: () => left('update'),
    apply: () => left('apply'),
    patch: () => left('patch'),
    delete: () => left('delete'),
    raw: () => left('raw'),
    close: () => undefined,
  };
  return { ...stub, ...overrides };
}

/**
 * A {@link Cluster} with a stub client.
 *
 * @example
 * ```ts
 * const east = fakeCluster('east', { region: 'eu' });
 * ```
 * @param name - the cluster name.
 * @param labels - labels for fan-out selectors.
 * @param client - client methods to supply (see {@link stubClient}).
 * @returns the cluster.
 */
export function fakeCluster(name: string, labels?: Readonly<Record<string, string>>, client: Partial<ClusterClient> = {}): Cluster {
  const n = clusterName(name);
  return Object.freeze(labels === undefined ? { name: n, client: stubClient(n, client) } : { name: n, client: stubClient(n, client), labels });
}

/**
 * A {@link FleetView} of a fixed list of clusters.
 *
 * @example
 * ```ts
 * reconcile(fn, { fleet: fakeFleet([fakeCluster('east'), fakeCluster('west')]) });
 * ```
 * @param clusters - the engaged clusters, in engagement order.
 * @returns the view.
 */
export function fakeFleet(clusters: readonly Cluster[]): FleetView {
  const list = Object.freeze([...clusters]);
  const byName = new Map(list.map((c) => [c.name as string, c]));
  return Object.freeze({ get: (name: ClusterName) => byName.get(name), clusters: () => list });
}

/**
 * Folds fleet events (from a marble diagram) into a {@link FleetView} after each event.
 *
 * @example
 * ```ts
 * const views = hot('a-b-x', { a: engaged(east), b: engaged(west), x: disengaged(east.name) }).pipe(fleetViews());
 * ```
 * @returns an operator from fleet events to snapshots.
 */
export function fleetViews(): OperatorFunction<FleetEvent, FleetView> {
  return (events) =>
    events.pipe(
      scan((acc: readonly Cluster[], ev: FleetEvent) => {
        if (ev.type === 'report') return acc;
        const name = ev.type === 'engaged' ? ev.cluster.name : ev.cluster;
        const rest = acc.filter((c) => c.name !== name);
        return ev.type === 'engaged' ? [...rest, ev.cluster] : rest;
      }, []),
      map(fakeFleet),
    );
}
