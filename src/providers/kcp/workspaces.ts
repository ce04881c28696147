// What both kcp providers are: a stream of virtual-workspace URLs, per URL an endpoint telling which
// workspaces it serves, a name per workspace (asynchronous when path-aware), and from those the
// desired set of candidates, engaged by the engine every provider shares (engage.ts). Every client
// made here is closed: the endpoints' when their URL goes or the provider is unsubscribed, the
// workspaces' by the engine on disengage, the front door's when the subscription ends.
import type { Observable } from 'rxjs';
import { defer, finalize, Observable as RxObservable, Subscription } from 'rxjs';
import type { ClusterName } from '../../core/cluster.js';
import { clusterName } from '../../core/cluster.js';
import type { KubeObject } from '../../core/object.js';
import type { ResourceDescriptor } from '../../core/resource.js';
import type { Either } from '../../internal/fp.js';
import { E } from '../../internal/fp.js';
import type { ClusterClient } from '../../client/client.js';
import { lazyClient } from '../../client/lazy-client.js';
import { serverOf } from '../../client/transport.js';
import type { KubeError } from '../../core/errors.js';
import { checkBackoff, defaultAuthBackoff, defaultBackoff } from '../../streams/backoff.js';
import type { Cluster, Provider } from '../../streams/cluster.js';
import type { FleetScope } from '../../streams/fleet-scope.js';
import { scopable } from '../../streams/fleet-scope.js';
import type { Candidate, DesiredChange } from '../internal/candidates.js';
import { engageChanges } from '../internal/engage.js';
import { engineConfig } from '../internal/options.js';
import type { Reporter } from '../internal/report.js';
import { reporting } from '../internal/report.js';
import type { KcpProviderOptions } from './config.js';
import { kcpClient } from './credentials.js';
import type { Endpoint } from './endpoint.js';
import { openEndpoint } from './endpoint.js';
import { tenantGuard } from './guard.js';
import { workspaceNamer } from './paths.js';
import type { ShardNamer } from './shards.js';
import { shardNamer } from './shards.js';
import type { PresenceTransition } from './presence.js';
import { clusterAnnotation, pathAnnotation } from './types.js';
import { clusterUrl } from './urls.js';

/**
 * What makes a kcp provider: where its URLs come from, which objects make a workspace present,
 * how its clusters describe themselves, and whether their watches are served from the endpoint's
 * shared wildcard watches.
 *
 * @example
 * ```ts
 * const spec: WorkspaceProviderSpec<APIBinding> = {
 *   provider: 'kcp-apiexport', config, urls: (say: Reporter) => listedUrls(config, say, apiExportEndpointSlices, 'widgets', pick),
 *   presence: apiBindings, counts: (b: APIBinding) => isBoundTo(b, 'widgets'), source: (ws: string) => `workspace ${ws} via APIExport widgets`,
 *   unservedResourceHint: (ws: string) => `export it from APIExport widgets (for workspace ${ws})`, serveWatches: true, removedReason: 'unbound',
 * };
 * ```
 */
export interface WorkspaceProviderSpec<P extends KubeObject> {
  /** The provider's name in reports and identities. */
  readonly provider: string;
  readonly config: KcpProviderOptions;
  readonly urls: (say: Reporter) => Observable<readonly string[]>;
  readonly presence: ResourceDescriptor<P>;
  readonly counts: (obj: P) => boolean;
  /** The cluster's `identity.from`, from its fleet name. */
  readonly source: (workspace: string) => string;
  /** The cluster's `unservedResourceHint` (what to do when a resource is not served there), from its fleet name. */
  readonly unservedResourceHint: (workspace: string) => string;
  /** Extra labels of a cluster served by `endpoint`. */
  readonly labels?: (endpoint: string) => Readonly<Record<string, string>>;
  readonly serveWatches: boolean;
  readonly removedReason: string;
}

interface Workspace {
  readonly endpoint: string;
  readonly naming: Subscription;
  candidate?: Candidate;
}

/** The candidate of one named workspace: a guarded client of `<endpoint>/clusters/<logical>`, identity, labels, cache, hint. */
function candidate<P extends KubeObject>(spec: WorkspaceProviderSpec<P>, logical: ClusterName, url: string, name: string, ep: Endpoint<P> | undefined): Candidate {
  const display = clusterName(name);
  const labels = { ...spec.labels?.(url), [clusterAnnotation]: logical, ...(display === logical ? {} : { [pathAnnotation]: name }) };
  const identity = { provider: spec.provider, from: spec.source(name), id: logical };
  return {
    name: display,
    // Its server: a workspace that moves to another shard gets a new client there.
    fingerprint: `${url}\n${logical}`,
    build: () => {
      const server = clusterUrl(url, logical);
      let client: ClusterClient;
      if (ep === undefined || !URL.canParse(server)) {
        const made = kcpClient(display, server, spec.config.management, spec.config.client);
        if (E.isLeft(made)) return E.left(`workspace ${name}: ${made.left.message}`);
        client = tenantGuard(made.right, logical);
      } else {
        // Made on its first request, over the endpoint's credentials: a workspace whose reads are
        // served by the endpoint's shared watches and that never writes costs no client.
        client = lazyClient(display, serverOf(server), (): Either<KubeError, ClusterClient> => {
          const made = ep.clientOf(display, server);
          return E.isLeft(made) ? made : E.right(tenantGuard(made.right, logical));
        });
      }
      const cache = ep?.cacheOf(logical);
      const unservedResourceHint = spec.unservedResourceHint(name);
      const cluster: Cluster = { name: display, client, labels, identity, unservedResourceHint, ...(cache === undefined ? {} : { cache }) };
      return E.right(Object.freeze(cluster));
    },
  };
}

/**
 * The changes of the desired set: every present and named workspace of every endpoint (with a
 * scope, those it wants). Each change names only the candidates it touches (O(changes), not
 * O(workspaces): a set of all 10,000 per binding event, diffed by the engine, held the event loop
 * for ~0.5 s per listing); a change of the scope, the workspaces it moves. With a scope, the
 * endpoints' shared watches keep only the objects of the workspaces it wants (one whose path is
 * not known yet is kept until it is).
 */
function desiredWorkspaces<P extends KubeObject>(spec: WorkspaceProviderSpec<P>, say: Reporter, name: (logical: ClusterName, hint: P) => Observable<string>, shards: ShardNamer, scope: FleetScope | undefined): Observable<DesiredChange> {
  return new RxObservable<DesiredChange>((out) => {
    const endpoints = new Map<string, Endpoint<P>>();
    const workspaces = new Map<ClusterName, Workspace>();
    const wants = (n: ClusterName): boolean => scope === undefined || scope.wants(n);
    const pathAware = spec.config.pathAware !== undefined && spec.config.pathAware !== false;
    const accepts =
      scope === undefined
        ? undefined
        : (logical: ClusterName): boolean => {
            const named = workspaces.get(logical)?.candidate?.name ?? (pathAware ? undefined : logical);
            return named === undefined || scope.wants(named);
          };
    // The candidates touched since the last change: the new one, or undefined when it left.
    const changes = new Map<ClusterName, Candidate | undefined>();
    // The names in the engine's desired set now, and how many workspaces are named (wanted or not).
    const shown = new Set<ClusterName>();
    let namedCount = 0;
    const leave = (w: Workspace | undefined): void => {
      if (w?.candidate !== undefined) changes.set(w.candidate.name, undefined);
    };
    const forget = (w: Workspace | undefined): void => {
      leave(w);
      if (w?.candidate !== undefined) namedCount -= 1;
    };
    // A listing moves many workspaces at once: one change for all of them.
    let batching = 0;
    let published = false;
    const publish = (): void => {
      if (batching > 0) return;
      published = true;
      const set: Candidate[] = [];
      const removed: ClusterName[] = [];
      for (const [n, c] of changes) {
        if (c !== undefined && wants(n)) {
          shown.add(n);
          set.push(c);
        } else if (shown.delete(n)) removed.push(n);
      }
      changes.clear();
      scope?.found(namedCount);
      out.next({ type: 'some', set, removed });
    };
    const batch = (f: () => void): void => {
      batching++;
      try {
        f();
      } finally {
        batching--;
      }
      publish();
    };
    const present = (logical: ClusterName, url: string, hint: P): void => {
      const before = workspaces.get(logical);
      if (before?.endpoint === url) return;
      before?.naming.unsubscribe();
      forget(before);
      const w: Workspace = { endpoint: url, naming: new Subscription() };
      workspaces.set(logical, w);
      w.naming.add(
        name(logical, hint).subscribe((named) => {
          if (workspaces.get(logical) !== w) return;
          leave(w);
          if (w.candidate === undefined) namedCount += 1;
          w.candidate = candidate(spec, logical, url, named, endpoints.get(url));
          changes.set(w.candidate.name, w.candidate);
          publish();
        }),
      );
    };
    const absent = (logical: ClusterName, url: string): void => {
      const w = workspaces.get(logical);
      if (w?.endpoint !== url) return;
      w.naming.unsubscribe();
      forget(w);
      workspaces.delete(logical);
    };
    const apply = (url: string, transitions: readonly PresenceTransition<P>[]): void => {
      if (transitions.length === 0) return;
      batch(() => {
        for (const t of transitions) {
          if (t.type === 'present') present(t.logical, url, t.object);
          else absent(t.logical, url);
        }
      });
    };
    const setUrls = (urls: readonly string[]): void => {
      for (const [url, ep] of endpoints) {
        if (urls.includes(url)) continue;
        // Its workspaces leave the fleet (their clients closed) before its own client closes.
        apply(url, ep.drop());
        endpoints.delete(url);
        ep.close();
      }
      for (const url of urls) {
        if (endpoints.has(url)) continue;
        const ep = openEndpoint(url, spec, say, shards, accepts);
        endpoints.set(url, ep);
        ep.start((transitions) => {
          apply(url, transitions);
        });
      }
    };

    const urlSub = spec.urls(say).subscribe({
      next: setUrls,
      error: (err: unknown) => {
        out.error(err);
      },
    });
    // The scope changed: the workspaces it gave up leave (their clients closed, their objects released), the ones it took are built and filled.
    const scopeSub = scope?.changes.subscribe(() => {
      for (const w of workspaces.values()) if (w.candidate !== undefined && wants(w.candidate.name) !== shown.has(w.candidate.name)) changes.set(w.candidate.name, w.candidate);
      if (published) publish();
      for (const ep of endpoints.values()) ep.rescope();
    });
    return () => {
      scopeSub?.unsubscribe();
      urlSub.unsubscribe();
      for (const w of workspaces.values()) w.naming.unsubscribe();
      for (const ep of endpoints.values()) ep.close();
      workspaces.clear();
      endpoints.clear();
    };
  });
}

/**
 * A kcp provider: per subscription, the URLs, the endpoints, the namer and the engine, reporting
 * into the provider's own stream. Workspaces are engaged without a probe (the presence watch
 * through the same virtual workspace already proves it answers).
 *
 * @example
 * ```ts
 * const provider = workspaceProvider(spec);
 * createFleet(provider).engagements.subscribe(({ cluster }) => console.log(cluster.name, cluster.identity?.id));
 * ```
 * @param spec - what the provider watches and how its clusters look.
 * @returns the cold provider.
 * @throws ConfigError when a watch backoff can never work.
 */
export function workspaceProvider<P extends KubeObject>(spec: WorkspaceProviderSpec<P>): Provider {
  // Checked now: a backoff that can never work is a configuration error, not a hot retry loop later.
  checkBackoff({ ...defaultBackoff, ...spec.config.managementWatch?.backoff }, `${spec.provider}: managementWatch.backoff`);
  checkBackoff({ ...defaultAuthBackoff, ...spec.config.managementWatch?.authBackoff }, `${spec.provider}: managementWatch.authBackoff`);
  const cfg = engineConfig(spec.provider, { ...(spec.config.scheduler === undefined ? {} : { scheduler: spec.config.scheduler }), probe: false }, spec.removedReason, false);
  const make = (scope: FleetScope | undefined): Provider => {
    // A workspace the scope gave up leaves for that reason, not as if its binding went.
    const scoped = scope === undefined ? cfg : { ...cfg, removedReason: (c: ClusterName) => (scope.wants(c) ? spec.removedReason : "outside this subscriber's scope (owned by another replica)") };
    return reporting(scoped, (say) =>
      defer(() => {
        const namer = workspaceNamer(spec.config, say);
        const shards = shardNamer(spec.config);
        return desiredWorkspaces(spec, say, namer.name, shards, scope).pipe(
          engageChanges(scoped, say),
          finalize(() => {
            namer.close();
            shards.close();
          }),
        );
      }),
    );
  };
  return scopable(make(undefined), make);
}
