// One endpoint (one shard's virtual-workspace URL): one client of its wildcard URL, the presence
// watch that says which workspaces it serves, and, for the APIExport provider, the shared watches
// its workspaces' informers read, each split by logical cluster. Nothing is shared with another
// endpoint: resourceVersions are only comparable within one shard.
import { asyncScheduler, Subscription } from 'rxjs';
import type { ClusterName } from '../../core/cluster.js';
import { clusterName } from '../../core/cluster.js';
import type { KubeObject } from '../../core/object.js';
import type { ResourceDescriptor } from '../../core/resource.js';
import { E } from '../../internal/fp.js';
import type { CacheView, CacheViewOptions, Cluster, ClusterCache, Selection } from '../../streams/cluster.js';
import { splitWatches } from '../../streams/split-watches.js';
import { managementWatch } from '../internal/management.js';
import type { Reporter } from '../internal/report.js';
import type { KcpProviderOptions } from './config.js';
import type { ClusterClient } from '../../client/client.js';
import type { KubeError } from '../../core/errors.js';
import type { Either } from '../../internal/fp.js';
import { kcpClientWith, rereadingAuth } from './credentials.js';
import type { PresenceTransition } from './presence.js';
import { presenceTracker } from './presence.js';
import type { ShardNamer } from './shards.js';
import { endpointReporter } from './shards.js';
import { logicalClusterOf } from './types.js';
import { wildcardUrl } from './urls.js';

/**
 * Whether a wildcard watch (`<endpoint>/clusters/*`) can serve a selection for one workspace.
 * kcp v0.28.1 refuses a namespaced wildcard list or watch (400 "cross-cluster LIST and WATCH are
 * required to be cross-namespace") and answers a `metadata.namespace` field selector on the
 * wildcard with nothing at all; label selectors and `metadata.name` field selectors work. What it
 * cannot serve, the workspace's informer watches through the workspace's own URL.
 *
 * @example
 * ```ts
 * wildcardServes({ labelSelector: 'app=web' }); // true
 * wildcardServes({ namespace: 'default' });     // false
 * ```
 * @param selection - a watch's namespace and selectors.
 * @returns true when one wildcard watch split by workspace gives the same objects.
 */
export function wildcardServes(selection: Selection): boolean {
  if (selection.namespace !== undefined) return false;
  const fields = selection.fieldSelector ?? '';
  return fields.trim() === '' || fields.split(',').every((term) => /^\s*metadata\.name\s*(==|!=|=)/.test(term));
}

/**
 * What an endpoint needs from its provider: credentials and watch options, the objects that make
 * a workspace present, and whether its workspaces' watches are served from shared wildcard watches.
 *
 * @example
 * ```ts
 * const spec: EndpointSpec<APIBinding> = { config, presence: apiBindings, counts: (b: APIBinding) => isBoundTo(b, 'widgets'), serveWatches: true };
 * ```
 */
export interface EndpointSpec<P extends KubeObject> {
  readonly config: KcpProviderOptions;
  readonly presence: ResourceDescriptor<P>;
  readonly counts: (obj: P) => boolean;
  readonly serveWatches: boolean;
}

/**
 * An open endpoint.
 *
 * @example
 * ```ts
 * const cache = endpoint.cacheOf(clusterName('2x9k'));
 * ```
 */
export interface Endpoint<P extends KubeObject> {
  /**
   * The cache of one of its workspaces (by logical cluster), none when it serves no watches. Its
   * views are named as asked (`ClusterCache.view`'s name), not after the workspace: the fleet may
   * know it by its path, or by a prefixed name under `multiProvider`.
   */
  cacheOf(logical: ClusterName): ClusterCache | undefined;
  /**
   * A client of `server` (one of its workspaces' URLs) named `name`, over the endpoint's own
   * credentials: its workspaces share one kubeconfig load and one token cache. An endpoint whose
   * kubeconfig could not be loaded says why.
   */
  clientOf(name: ClusterName, server: string): Either<KubeError, ClusterClient>;
  /** Starts its presence watch: `onChange` gets the presence transitions of each of its events. */
  start(onChange: (transitions: readonly PresenceTransition<P>[]) => void): void;
  /** Forgets every workspace it served: each one's `absent` transition. */
  drop(): readonly PresenceTransition<P>[];
  /** Applies a change of what its shared watches keep (`accepts`): see `SplitWatches.rescope`. */
  rescope(): void;
  /** Stops its watches and closes its client. */
  close(): void;
}

/**
 * The workspace an object of a wildcard watch belongs to: its logical cluster (`kcp.io/cluster`),
 * the scope the shared watches are split by.
 *
 * @example
 * ```ts
 * logicalScope({ metadata: { name: 'w', annotations: { 'kcp.io/cluster': '2x9k' } } }); // '2x9k'
 * ```
 * @param object - an object read through a virtual workspace.
 * @returns its logical cluster, or `undefined` without the annotation (such objects are ignored).
 */
export function logicalScope(object: KubeObject): ClusterName | undefined {
  const logical = logicalClusterOf(object);
  return logical === undefined ? undefined : clusterName(logical);
}

/**
 * Opens an endpoint: one client of `<url>/clusters/*`, its presence watch once started (health
 * reported as `source`, management = the wildcard URL; a failing report names the endpoint URL and
 * the shard that publishes it), and the lazily made shared watches of its workspaces. A URL that
 * cannot be used is reported as `error` and serves nothing.
 *
 * @example
 * ```ts
 * const ep = openEndpoint(url, spec, say, shardNamer(spec.config));
 * ep.start((transitions: readonly PresenceTransition<APIBinding>[]) => console.log(transitions));
 * ep.close();
 * ```
 * @param url - the endpoint URL.
 * @param spec - credentials, presence and serving.
 * @param say - the subscription's reporter.
 * @param shards - names the shard of a failing endpoint's URL.
 * @param accepts - which logical clusters' objects its shared watches keep (default all): the others are dropped as they arrive.
 * @returns the endpoint.
 */
export function openEndpoint<P extends KubeObject>(url: string, spec: EndpointSpec<P>, say: Reporter, shards: ShardNamer, accepts?: (logical: ClusterName) => boolean): Endpoint<P> {
  const tracker = presenceTracker<P>(spec.counts);
  const name = clusterName(wildcardUrl(url));
  // One load of the kubeconfig for the endpoint and every client of its workspaces.
  const auth = rereadingAuth(name, spec.config.management);
  const clientOf = (clientName: ClusterName, server: string): Either<KubeError, ClusterClient> => (E.isLeft(auth) ? auth : kcpClientWith(clientName, server, auth.right, spec.config.client));
  // Named by its URL, which leaves with the endpoint: its request series go when it closes.
  const client = E.isLeft(auth) ? auth : kcpClientWith(name, wildcardUrl(url), auth.right, { ...spec.config.client, countedWhileOpen: true });
  if (E.isLeft(client)) {
    say({ type: 'error', reason: `virtual-workspace endpoint ${url} cannot be watched: ${client.left.message}` });
    return { cacheOf: () => undefined, clientOf, start: () => undefined, drop: () => tracker.drop(), rescope: () => undefined, close: () => undefined };
  }
  const parent: Cluster = { name, client: client.right };
  const watch = { scheduler: spec.config.scheduler ?? asyncScheduler, ...spec.config.managementWatch };
  const shared = spec.serveWatches ? splitWatches(parent, { ...watch, scopeOf: logicalScope, ...(accepts === undefined ? {} : { accepts }) }) : undefined;
  const sub = new Subscription();
  const endpointSay = endpointReporter(url, say, shards, () => sub.closed);
  return {
    cacheOf: (logical) =>
      shared === undefined
        ? undefined
        : {
            view: <T extends KubeObject>(r: ResourceDescriptor<T>, selection: CacheViewOptions<T>, as: ClusterName): CacheView<T> | undefined =>
              wildcardServes(selection) ? shared.view(r, selection, logical, as) : undefined,
          },
    clientOf,
    start: (onChange) => {
      sub.add(
        managementWatch(parent, spec.presence, watch, endpointSay).subscribe((ev) => {
          onChange(tracker.apply(ev));
        }),
      );
    },
    drop: () => tracker.drop(),
    rescope: () => {
      shared?.rescope();
    },
    close: () => {
      sub.unsubscribe();
      client.right.close();
    },
  };
}
