// An in-memory fleet: clusters that behave like API servers for what controllers rely on, with a
// provider for run(), a FleetView, a SinkClusters on the scheduler, injected failures and a log of
// every request a controller made.
import type { Observable, SchedulerLike } from 'rxjs';
import { asyncScheduler, filter, map, Subject } from 'rxjs';
import type { ClusterClient } from '../client/client.js';
import { ConfigError } from '../core/config-error.js';
import type { ClusterName } from '../core/cluster.js';
import { clusterName } from '../core/cluster.js';
import type { KubeObject } from '../core/object.js';
import type { ResourceDescriptor } from '../core/resource.js';
import { apiVersionOf, configMaps, customResourceDefinitions, leases, namespaces, secrets } from '../core/resource.js';
import { E } from '../internal/fp.js';
import type { SinkCluster, SinkClusters } from '../sinks/context.js';
import type { Cluster, FleetView, Provider } from '../streams/cluster.js';
import { staticProvider } from '../streams/static-provider.js';
import type { FakeRequest } from './fake-client.js';
import { fakeClients, isWrite, requestLabel } from './fake-client.js';
import type { FailureRule } from './fake-failures.js';
import { failureRules } from './fake-failures.js';
import type { ClusterState } from './fake-store.js';
import { clusterState } from './fake-store.js';
import type { ServerWrites } from './fake-writes.js';
import { serverWrites } from './fake-writes.js';

/**
 * One cluster of {@link InMemoryFleetOptions}: its objects, or its objects and labels.
 *
 * @example
 * ```ts
 * const east: InMemoryClusterSeed = { labels: { region: 'eu' }, objects: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'default' } }] };
 * ```
 */
export type InMemoryClusterSeed = readonly KubeObject[] | InMemoryClusterContents;

/**
 * A seeded cluster with labels (for cluster selectors) besides its objects.
 *
 * @example
 * ```ts
 * const west: InMemoryClusterContents = { labels: { region: 'us' }, objects: [] };
 * ```
 */
export interface InMemoryClusterContents {
  /** The objects the cluster starts with. */
  readonly objects?: readonly KubeObject[];
  /** The cluster's labels. */
  readonly labels?: Readonly<Record<string, string>>;
}

/**
 * Settings of {@link inMemoryFleet}.
 *
 * @example
 * ```ts
 * const config: InMemoryFleetOptions = { clusters: { east: [settings], west: [] }, resources: [widgets] };
 * ```
 */
export interface InMemoryFleetOptions {
  /** The clusters by name, in engagement order, with the objects they start with (`apiVersion` and `kind` say which resource). */
  readonly clusters: Readonly<Record<string, InMemoryClusterSeed>>;
  /** Resources the seeds use beyond ConfigMaps, Secrets, Namespaces, Leases and CRDs (any resource can be written). */
  readonly resources?: readonly ResourceDescriptor[];
  /**
   * Whether a resource has a status subresource (and so a `metadata.generation` bumped by spec
   * changes). Default: every resource except ConfigMaps, Secrets, Leases, Events, ServiceAccounts,
   * RBAC objects and EndpointSlices, as on a real server for built-ins and for CRDs declaring
   * `subresources.status`.
   */
  readonly hasStatus?: (r: ResourceDescriptor) => boolean;
  /** Drives watch delivery, injected timeouts, timestamps and request times. Default `asyncScheduler` (virtual inside `TestScheduler.run`). */
  readonly scheduler?: SchedulerLike;
  /** How many changes per cluster a watch can resume from; older resourceVersions get 410 Expired. Default 1000. */
  readonly watchHistory?: number;
}

/**
 * Which requests {@link InMemoryFleet.writes} and {@link InMemoryFleet.requestsOf} show.
 *
 * @example
 * ```ts
 * const only: RequestFilter = { cluster: 'east', resource: configMaps };
 * ```
 */
export interface RequestFilter {
  /** Only this cluster's. */
  readonly cluster?: string;
  /** Only this resource's. */
  readonly resource?: ResourceDescriptor;
}

/**
 * The fleet {@link inMemoryFleet} makes.
 *
 * @example
 * ```ts
 * const fleet = inMemoryFleet({ clusters: { east: [], west: [] } });
 * await run(controller({ name: 'c', provider: fleet.provider, resource: configMaps, reconcile: () => done() }));
 * ```
 */
export interface InMemoryFleet {
  /** Engages every cluster (a `static` provider): hand it to `controller({ provider })` or `createFleet`. */
  readonly provider: Provider;
  /** The engaged clusters, with Promise clients: a reconciler's `context.fleet`. */
  readonly view: FleetView;
  /** The same clusters with clients that answer on the scheduler: `sinkContext({ clusters: fleet.sinkClusters, ... })`. */
  readonly sinkClusters: SinkClusters;
  /** Every request the clients received, in order. */
  readonly requests: readonly FakeRequest[];
  /** A cluster by name (throws for an unknown one). */
  cluster(name: string): Cluster;
  /** The objects of a resource in a cluster now (in one namespace when given). */
  objects<T extends KubeObject>(cluster: string, r: ResourceDescriptor<T>, namespace?: string): T[];
  /** One object now (`ref` is `namespace/name`, or `name` when cluster-scoped). */
  object<T extends KubeObject>(cluster: string, r: ResourceDescriptor<T>, ref: string): T | undefined;
  /** Creates or replaces an object as another actor would (status included), outside the request log; returns it stored. */
  put<T extends KubeObject>(cluster: string, r: ResourceDescriptor<T>, obj: T): T;
  /** Deletes an object as another actor would (finalizers are honoured), outside the request log. */
  delete(cluster: string, r: ResourceDescriptor, ref: string): void;
  /** Makes matching requests fail. */
  inject(rule: FailureRule): void;
  /** The requests that match `only`. */
  requestsOf(only?: RequestFilter): FakeRequest[];
  /** Labels ({@link requestLabel}) of the writes that match `only`, as they are made: assert them as marbles. */
  writes(only?: RequestFilter): Observable<string>;
}

const plainKinds = new Set(['ConfigMap', 'Secret', 'Lease', 'Event', 'ServiceAccount', 'Role', 'RoleBinding', 'ClusterRole', 'ClusterRoleBinding', 'EndpointSlice', 'Endpoints']);

const isSeedList = (seed: InMemoryClusterSeed): seed is readonly KubeObject[] => Array.isArray(seed);

const split = (ref: string): readonly [string, string] => {
  const i = ref.indexOf('/');
  return i < 0 ? ['', ref] : [ref.slice(0, i), ref.slice(i + 1)];
};

/**
 * An in-memory fleet whose clusters behave like API servers for what controllers rely on:
 * get/list/watch, create/replace/patch (merge, JSON, strategic as merge)/delete, server-side
 * apply merged by field manager (conflicts, force, removal of fields no longer applied), the
 * status subresource, resourceVersion conflicts, generation, finalizers and deletionTimestamp.
 * Failures can be injected per cluster, verb, resource and name. See docs/testing.md for where it
 * differs from a real server.
 *
 * @example
 * ```ts
 * const fleet = inMemoryFleet({ clusters: { east: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'default' } }], west: [] } });
 * fleet.inject({ cluster: 'west', verb: 'apply', failure: statusFailure(429, { retryAfterSeconds: 1 }) });
 * const ctx = sinkContext({ clusters: fleet.sinkClusters, fieldManager: 'my-controller' });
 * ```
 * @param config - clusters and their objects, extra resources, the status rule and the scheduler.
 * @returns the fleet.
 * @throws ConfigError for a seed object whose apiVersion and kind name no known resource, or without a name, or a bad `watchHistory`.
 */
export function inMemoryFleet(config: InMemoryFleetOptions): InMemoryFleet {
  const scheduler = config.scheduler ?? asyncScheduler;
  const history = config.watchHistory;
  if (history !== undefined && !(Number.isInteger(history) && history > 0)) throw new ConfigError(`in-memory fleet: watchHistory must be a positive integer, got ${history}`);
  const hasStatus = config.hasStatus ?? ((r: ResourceDescriptor) => !plainKinds.has(r.kind));
  const known = [...(config.resources ?? []), configMaps, secrets, namespaces, leases, customResourceDefinitions];
  const rules = failureRules();
  const requests: FakeRequest[] = [];
  const made = new Subject<FakeRequest>();
  let uids = 0;
  const uid = (): string => `00000000-0000-4000-8000-${(++uids).toString(16).padStart(12, '0')}`;
  const states = new Map<string, { readonly state: ClusterState; readonly writes: ServerWrites; readonly cluster: Cluster; readonly sink: SinkCluster }>();

  for (const [name, seed] of Object.entries(config.clusters)) {
    const n = clusterName(name);
    const state = clusterState(n, () => scheduler.now(), uid, config.watchHistory);
    const writes = serverWrites(state, hasStatus);
    const { client, writeClient } = fakeClients({
      state,
      writes,
      rules,
      scheduler,
      record: (r) => {
        requests.push(r);
        made.next(r);
      },
    });
    const labels = isSeedList(seed) ? undefined : seed.labels;
    const cluster: Cluster = Object.freeze({ name: n, client: client satisfies ClusterClient, ...(labels === undefined ? {} : { labels }), identity: { provider: 'in-memory', from: `in-memory cluster "${name}"` } });
    states.set(name, { state, writes, cluster, sink: { name: n, client: writeClient } });
  }

  const entry = (name: string) => {
    const e = states.get(name);
    if (e === undefined) throw new ConfigError(`in-memory fleet: no cluster "${name}" (clusters: ${[...states.keys()].join(', ')})`);
    return e;
  };
  const resourceOf = (cluster: string, obj: KubeObject): ResourceDescriptor => {
    const r = known.find((k) => apiVersionOf(k) === obj.apiVersion && k.kind === obj.kind);
    if (r === undefined) throw new ConfigError(`in-memory fleet: cluster "${cluster}": no resource for apiVersion ${String(obj.apiVersion)} kind ${String(obj.kind)}; list it in \`resources\``);
    return r;
  };

  const put = <T extends KubeObject>(cluster: string, r: ResourceDescriptor<T>, obj: T): T => {
    const { state, writes } = entry(cluster);
    const name = obj.metadata.name;
    if (name === undefined || name === '') throw new ConfigError(`in-memory fleet: cluster "${cluster}": an object to put needs metadata.name`);
    const namespace = r.namespaced ? (obj.metadata.namespace ?? 'default') : '';
    const t = { r, namespace, name, subresource: '' };
    const current = state.get(r, namespace, name);
    const { resourceVersion: _rv, ...meta } = obj.metadata;
    const body = { ...obj, metadata: { ...meta, name, ...(r.namespaced ? { namespace } : {}) } } as T;
    const opts = { fieldManager: 'in-memory-fleet' };
    const main = current === undefined ? writes.create(t, body, opts) : writes.update(t, body, opts);
    if (E.isLeft(main)) throw new ConfigError(`in-memory fleet: cluster "${cluster}": cannot put ${r.plural} ${namespace}/${name}: ${main.left.message}`);
    if (obj.status === undefined || !hasStatus(r) || state.get(r, namespace, name) === undefined) return main.right as T;
    const withStatus = writes.update({ ...t, subresource: 'status' }, { ...main.right, status: obj.status }, opts);
    return (E.isRight(withStatus) ? withStatus.right : main.right) as T;
  };

  for (const [name, seed] of Object.entries(config.clusters)) {
    const objects: readonly KubeObject[] = isSeedList(seed) ? seed : (seed.objects ?? []);
    for (const obj of objects) put(name, resourceOf(name, obj), obj);
  }

  const all = [...states.values()];
  const view: FleetView = Object.freeze({ get: (n: ClusterName) => states.get(n)?.cluster, clusters: () => all.map((e) => e.cluster) });
  const sinkClusters: SinkClusters = Object.freeze({ get: (n: ClusterName) => states.get(n)?.sink, clusters: () => all.map((e) => e.sink) });
  const matches = (only: RequestFilter | undefined) => (r: FakeRequest) =>
    (only?.cluster === undefined || r.cluster === only.cluster) &&
    (only?.resource === undefined || r.resource === (only.resource.group === '' ? only.resource.plural : `${only.resource.plural}.${only.resource.group}`));

  return {
    provider: staticProvider(all.map((e) => e.cluster), scheduler),
    view,
    sinkClusters,
    requests,
    cluster: (name) => entry(name).cluster,
    objects: <T extends KubeObject>(cluster: string, r: ResourceDescriptor<T>, namespace?: string) => entry(cluster).state.list(r, namespace).map((s) => s.object as T),
    object: <T extends KubeObject>(cluster: string, r: ResourceDescriptor<T>, ref: string) => {
      const [ns, name] = split(ref);
      return entry(cluster).state.get(r, ns, name)?.object as T | undefined;
    },
    put,
    delete(cluster, r, ref) {
      const [ns, name] = split(ref);
      const gone = entry(cluster).writes.delete({ r, namespace: r.namespaced ? ns : '', name, subresource: '' }, undefined);
      if (E.isLeft(gone)) throw new ConfigError(`in-memory fleet: cluster "${cluster}": cannot remove ${r.plural} ${ref}: ${gone.left.message}`);
    },
    inject: (rule) => { rules.add(rule); },
    requestsOf: (only) => requests.filter(matches(only)),
    writes: (only) =>
      made.pipe(
        filter((r) => isWrite(r) && matches(only)(r)),
        map(requestLabel),
      ),
  };
}
