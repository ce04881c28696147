// The engine both kcp providers share: follow the URLs of a virtual workspace, watch each URL's
// wildcard view (one watch per resource per URL), engage a logical cluster while it has an object
// that counts (a bound APIBinding, an initializing LogicalCluster), and serve reads and keyed events
// of the served resources from one wildcard cache, so engaging a workspace opens no new watch.
import type { Subscriber } from 'rxjs';
import { Observable, Subscription } from 'rxjs';
import type { ClusterClientOptions } from '../../client/client.js';
import type { Cluster, FleetEvent } from '../../client/cluster.js';
import { disengaged, engaged } from '../../client/cluster.js';
import type { ClusterName } from '../../core/cluster.js';
import { clusterName } from '../../core/cluster.js';
import type { KubeError } from '../../core/errors.js';
import { keyOf } from '../../core/key.js';
import type { KubeObject } from '../../core/object.js';
import type { ResourceDescriptor } from '../../core/resource.js';
import type { Either } from '../../internal/fp.js';
import { E } from '../../internal/fp.js';
import type { KeyedEvent } from '../../streams/events.js';
import type { StoreWriter } from '../../streams/store.js';
import { createStore } from '../../streams/store.js';
import type { WatchHealth } from '../../streams/watch-health.js';
import type { KcpKubeconfig } from './credentials.js';
import { kcpClient } from './credentials.js';
import type { EndpointSignal, KcpWatchConfig } from './endpoint.js';
import { endpointWatches } from './endpoint.js';
import { tenantGuard } from './guard.js';
import { clusterAnnotation, pathAnnotation } from './types.js';
import { clusterUrl } from './urls.js';
import type { ClusterObjectEvent, PresenceTransition } from './wildcard.js';
import { presenceTracker, wildcardSplitter } from './wildcard.js';

/**
 * What the kcp providers report besides fleet events, for logs, metrics and tests.
 *
 * - `endpoints`: the current virtual-workspace URLs (one per shard; empty at first).
 * - `engaged` / `disengaged`: a logical cluster entered or left the fleet, under `cluster`.
 * - `watch`: a health snapshot of one wildcard watch (its `lastError` says why it is backing off).
 * - `error`: a failure that does not stop the provider (a bad URL, a path that cannot be resolved).
 *
 * @example
 * ```ts
 * const report = (r: KcpReport) => (r.kind === 'error' ? log.warn(r.error.message) : log.debug(r));
 * ```
 */
export type KcpReport =
  | { readonly kind: 'endpoints'; readonly urls: readonly string[] }
  | { readonly kind: 'engaged'; readonly cluster: ClusterName; readonly logical: string; readonly endpoint: string }
  | { readonly kind: 'disengaged'; readonly cluster: ClusterName; readonly logical: string; readonly reason: string }
  | { readonly kind: 'watch'; readonly health: WatchHealth }
  | { readonly kind: 'error'; readonly error: KubeError };

/** What the engine emits: fleet events, and keyed events of the served resource at `index`. @example `{ kind: 'fleet', event: engaged(c) }` */
export type EngineSignal = { readonly kind: 'fleet'; readonly event: FleetEvent } | { readonly kind: 'object'; readonly index: number; readonly event: KeyedEvent };

/** How the engine names an engaged logical cluster (its path, or itself). @example `(logical) => of(E.right(logical))` */
export type Namer = (logical: ClusterName, hint: KubeObject) => Observable<Either<KubeError, string>>;

/**
 * The engine's settings: where URLs come from, which objects engage a cluster, what to serve.
 *
 * @example
 * ```ts
 * const spec: EngineSpec<APIBinding> = {
 *   urls: of(['https://kcp/services/apiexport/2x9k/widgets']),
 *   presence: apiBindings,
 *   counts: (b: APIBinding) => isBoundTo(b, 'widgets'),
 *   served: [widgets],
 *   namer: (logical: ClusterName) => of(E.right(logical)),
 *   kubeconfig: { file: 'provider.kubeconfig' },
 * };
 * ```
 */
export interface EngineSpec<P extends KubeObject> {
  readonly urls: Observable<readonly string[]>;
  readonly presence: ResourceDescriptor<P>;
  readonly counts: (obj: P) => boolean;
  readonly served: readonly ResourceDescriptor[];
  readonly namer: Namer;
  readonly labels?: (logical: ClusterName, hint: P, endpoint: string) => Readonly<Record<string, string>>;
  readonly kubeconfig: KcpKubeconfig;
  readonly client?: ClusterClientOptions;
  readonly watch?: KcpWatchConfig;
  readonly report?: (r: KcpReport) => void;
}

interface Engaged {
  readonly cluster: Cluster;
  readonly logical: ClusterName;
  readonly endpoint: string;
}

/**
 * The state of one run of the engine, readable while it runs: the served resources' stores (keyed
 * by logical cluster) and the engaged clusters, found by fleet name or logical name.
 *
 * @example
 * ```ts
 * const c = state()?.get(clusterName('root:org:a'));
 * ```
 */
export interface EngineState {
  readonly stores: readonly StoreWriter<KubeObject>[];
  /** The engaged cluster named (or aliased: logical name or path) `name`. */
  get(name: ClusterName): (Cluster & { readonly logical: ClusterName }) | undefined;
  clusters(): readonly Cluster[];
}

interface Endpoint<P extends KubeObject> {
  readonly sub: Subscription;
  readonly tracker: ReturnType<typeof presenceTracker<P>>;
  readonly splitters: ReturnType<typeof wildcardSplitter<KubeObject>>[];
}

/**
 * Runs the engine: returns the cold signal stream and a way to read the current run's state.
 *
 * @example
 * ```ts
 * const { signals, state } = runEngine(spec);
 * signals.pipe(share()).subscribe((s: EngineSignal) => console.log(s.kind, state()));
 * ```
 * @param spec - URLs, presence resource, served resources, naming, credentials.
 * @returns the signals (one run per subscription; share it) and the current state, if running.
 */
export function runEngine<P extends KubeObject>(spec: EngineSpec<P>): { signals: Observable<EngineSignal>; state: () => EngineState | undefined } {
  let current: EngineState | undefined;
  const report = spec.report ?? ((): void => undefined);

  const start = (out: Subscriber<EngineSignal>): (() => void) => {
    const stores = spec.served.map(() => createStore<KubeObject>());
    const endpoints = new Map<string, Endpoint<P>>();
    const engagedMap = new Map<ClusterName, Engaged>();
    const pending = new Map<ClusterName, { readonly endpoint: string; readonly sub: Subscription }>();
    const alias = new Map<ClusterName, ClusterName>();

    const emitObjects = (e: Engaged): void => {
      stores.forEach((store, index) => {
        for (const object of store.byIndex('cluster', e.logical)) {
          out.next({ kind: 'object', index, event: { type: 'applied', key: keyOf(e.cluster.name, object), resource: spec.served[index] ?? spec.presence, object } });
        }
      });
    };
    const engage = (logical: ClusterName, endpoint: string, name: string, hint: P): void => {
      const display = clusterName(name);
      const client = kcpClient(display, clusterUrl(endpoint, logical), spec.kubeconfig, spec.client);
      if (E.isLeft(client)) {
        report({ kind: 'error', error: client.left });
        return;
      }
      const labels = { [clusterAnnotation]: logical, ...(display === logical ? {} : { [pathAnnotation]: display }), ...spec.labels?.(logical, hint, endpoint) };
      const e: Engaged = { cluster: { name: display, client: tenantGuard(client.right, logical), labels }, logical, endpoint };
      engagedMap.set(logical, e);
      alias.set(display, logical);
      alias.set(logical, logical);
      report({ kind: 'engaged', cluster: display, logical, endpoint });
      out.next({ kind: 'fleet', event: engaged(e.cluster) });
      emitObjects(e);
    };
    const present = (logical: ClusterName, endpoint: string, hint: P): void => {
      if (engagedMap.has(logical) || pending.has(logical)) return;
      const entry = { endpoint, sub: new Subscription() };
      pending.set(logical, entry);
      entry.sub.add(
        spec.namer(logical, hint).subscribe((named) => {
          if (pending.get(logical) !== entry) return;
          pending.delete(logical);
          if (E.isLeft(named)) report({ kind: 'error', error: named.left });
          // A name that cannot be resolved falls back to the logical name: the cluster is served
          // under a name that still works everywhere rather than not served at all.
          engage(logical, endpoint, E.isRight(named) ? named.right : logical, hint);
        }),
      );
    };
    const absent = (logical: ClusterName, endpoint: string, reason: string): void => {
      const p = pending.get(logical);
      if (p?.endpoint === endpoint) {
        pending.delete(logical);
        p.sub.unsubscribe();
      }
      const e = engagedMap.get(logical);
      if (e?.endpoint !== endpoint) return;
      engagedMap.delete(logical);
      for (const [k, v] of alias) if (v === logical) alias.delete(k);
      spec.served.forEach((_, index) => {
        out.next({ kind: 'object', index, event: { type: 'clusterRemoved', cluster: e.cluster.name } });
      });
      report({ kind: 'disengaged', cluster: e.cluster.name, logical, reason });
      out.next({ kind: 'fleet', event: disengaged(e.cluster.name, reason) });
      e.cluster.client.close();
    };
    const transition = (endpoint: string, t: PresenceTransition<P>, reason: string): void => {
      if (t.type === 'present') present(t.logical, endpoint, t.object);
      else absent(t.logical, endpoint, reason);
    };
    const objectEvent = (endpoint: string, index: number, ev: ClusterObjectEvent<KubeObject>): void => {
      const e = engagedMap.get(ev.logical);
      if (e?.endpoint !== endpoint) return;
      const resource = spec.served[index] ?? spec.presence;
      out.next({ kind: 'object', index, event: { type: ev.event.type, key: keyOf(e.cluster.name, ev.event.object), resource, object: ev.event.object } });
    };
    const onSignal = (endpoint: string, ep: Endpoint<P>, s: EndpointSignal): void => {
      if (s.kind === 'health') report({ kind: 'watch', health: s.health });
      else if (s.kind === 'error') report({ kind: 'error', error: s.error });
      else if (s.index === 0) for (const t of ep.tracker.apply(s.event as Parameters<typeof ep.tracker.apply>[0])) transition(endpoint, t, `no ${spec.presence.kind} counts any more`);
      else for (const ev of ep.splitters[s.index - 1]?.apply(s.event) ?? []) objectEvent(endpoint, s.index - 1, ev);
    };
    const setUrls = (urls: readonly string[]): void => {
      report({ kind: 'endpoints', urls });
      for (const [url, ep] of endpoints) {
        if (urls.includes(url)) continue;
        endpoints.delete(url);
        ep.sub.unsubscribe();
        for (const t of ep.tracker.drop()) transition(url, t, 'its virtual-workspace URL was removed');
        for (const sp of ep.splitters) sp.drop();
      }
      for (const url of urls) {
        if (endpoints.has(url)) continue;
        const ep: Endpoint<P> = { sub: new Subscription(), tracker: presenceTracker<P>(spec.counts), splitters: stores.map((s) => wildcardSplitter(s)) };
        endpoints.set(url, ep);
        ep.sub.add(
          endpointWatches(url, [spec.presence, ...spec.served], spec).subscribe((s) => {
            onSignal(url, ep, s);
          }),
        );
      }
    };

    current = {
      stores,
      get: (name) => {
        const logical = alias.get(name);
        const e = logical === undefined ? undefined : engagedMap.get(logical);
        return e === undefined ? undefined : { ...e.cluster, logical: e.logical };
      },
      clusters: () => [...engagedMap.values()].map((e) => e.cluster),
    };
    const urlSub = spec.urls.subscribe({ next: setUrls, error: (err: unknown) => { out.error(err); } });
    return () => {
      urlSub.unsubscribe();
      for (const p of pending.values()) p.sub.unsubscribe();
      for (const ep of endpoints.values()) ep.sub.unsubscribe();
      for (const e of engagedMap.values()) e.cluster.client.close();
      pending.clear();
      endpoints.clear();
      engagedMap.clear();
      current = undefined;
    };
  };

  return {
    signals: new Observable<EngineSignal>((out) => start(out)),
    state: () => current,
  };
}
