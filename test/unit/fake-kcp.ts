// A fake kcp for the kcp providers' tests in process (no server): per (cluster, resource) an initial
// listing and a line stream, every list and watch recorded; the objects, bindings and endpoint
// slices those tests list; and how they tell that the provider closed a client.
import { of, Subject } from 'rxjs';
import type { ClusterClient, ListOptions } from '../../src/client/index.js';
import { kubeError } from '../../src/client/index.js';
import { E } from '../../src/fp/index.js';
import type { Cluster, KubeObject, ResourceDescriptor } from '../../src/index.js';
import { namespaces, resource } from '../../src/index.js';
import type { APIBinding, APIExportEndpointSlice } from '../../src/providers/kcp/index.js';
import type { ListerWatcher } from '../../src/streams/index.js';
import type { WatchesOptions } from '../../src/streams/watched.js';

/** The resource the fake export serves. */
export const widgets = resource({ group: 'example.com', version: 'v1', plural: 'widgets', kind: 'Widget', namespaced: true });
/** The fake kcp's base URL, its export's endpoint, and the endpoint's wildcard. */
export const SERVER = 'https://kcp.test:6443';
export const ENDPOINT = `${SERVER}/services/apiexport/prov/widgets`;
export const WILDCARD = `${ENDPOINT}/clusters/*`;
/** The provider workspace's kubeconfig (root:prov, token auth). */
export const kubeconfig = {
  yaml: JSON.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'kcp', cluster: { server: `${SERVER}/clusters/root:prov` } }],
    users: [{ name: 'u', user: { token: 't' } }],
    contexts: [{ name: 'c', context: { cluster: 'kcp', user: 'u' } }],
    'current-context': 'c',
  }),
};

/** An object in workspace `logical`. */
export const inWs = (logical: string, name: string, rv: string, extra: Partial<KubeObject['metadata']> = {}): KubeObject => ({
  metadata: { name, namespace: 'default', resourceVersion: rv, annotations: { 'kcp.io/cluster': logical }, ...extra },
});
/** A Bound APIBinding of the widgets export in workspace `logical`. */
export const bound = (logical: string, rv = '1'): APIBinding => ({
  metadata: { name: 'widgets', resourceVersion: rv, annotations: { 'kcp.io/cluster': logical } },
  spec: { reference: { export: { name: 'widgets' } } },
  status: { phase: 'Bound' },
});
/** The export's endpoint slice with these endpoint URLs. */
export const slice = (urls: string[], rv = '1'): APIExportEndpointSlice => ({ metadata: { name: 'widgets', resourceVersion: rv }, status: { endpoints: urls.map((url) => ({ url })) } });

/** A fake kcp: per (cluster, resource) an initial listing and a line stream, every call recorded. */
export class FakeKcp {
  readonly calls: string[] = [];
  readonly parents = new Map<string, Cluster>();
  private readonly listings = new Map<string, readonly KubeObject[] | E.Either<never, never>>();
  private readonly streams = new Map<string, Subject<string>>();
  private readonly unserved = new Set<string>();

  has(cluster: string, plural: string, items: readonly KubeObject[]): this {
    this.listings.set(`${cluster} ${plural}`, items);
    return this;
  }

  /** Lists of `plural` at `cluster` answer 404, as for a resource that is not served there. */
  notServing(cluster: string, plural: string): this {
    this.unserved.add(`${cluster} ${plural}`);
    return this;
  }

  send(cluster: string, plural: string, type: 'ADDED' | 'MODIFIED' | 'DELETED', object: KubeObject): void {
    this.stream(`${cluster} ${plural}`).next(JSON.stringify({ type, object }));
  }

  private stream(key: string): Subject<string> {
    let s = this.streams.get(key);
    if (s === undefined) this.streams.set(key, (s = new Subject<string>()));
    return s;
  }

  readonly sourceFor = <T extends KubeObject>(cluster: Cluster, r: ResourceDescriptor<T>): ListerWatcher<T> => {
    const key = `${cluster.name} ${r.plural}`;
    this.parents.set(cluster.name, cluster);
    const where = (o: ListOptions): string => `${key}${o.namespace === undefined ? '' : ` ns=${o.namespace}`}`;
    return {
      list: (o) => {
        this.calls.push(`list ${where(o)}`);
        if (this.unserved.has(key)) return of(E.left(kubeError('NotFound', cluster.name, 'the server could not find the requested resource', { code: 404 })));
        const items = (this.listings.get(key) ?? []) as readonly T[];
        return of(E.right({ metadata: { resourceVersion: '1' }, items: [...items] }));
      },
      watch: (o) => {
        this.calls.push(`watch ${where(o)}`);
        return this.stream(key);
      },
    };
  };

  watchConfig(): WatchesOptions {
    return { streamingList: false, listerWatcherFor: this.sourceFor };
  }
}

/** Whether the provider closed this client (a request answers NotEngaged). */
export const closed = async (client: ClusterClient | undefined): Promise<boolean> => {
  const r = await client?.get(namespaces, 'default');
  return r !== undefined && E.isLeft(r) && r.left.type === 'NotEngaged';
};
