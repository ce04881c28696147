// kcp-sim: a small server that answers what rxfleet's kcp APIExport provider asks of kcp, for many
// logical clusters, without kcp's cost per workspace. Used by bench/kcp-sim-scale.ts only. It
// serves, over HTTPS (HTTP/2, and HTTP/1.1 for clients without it) on 127.0.0.1 with a bearer
// token:
// - `/clusters/<workspace>/<resource path>`: one workspace (the provider workspace's
//   APIExportEndpointSlice, any workspace's objects);
// - `/services/apiexport/<provider cluster>/<export>/clusters/<logical|*>/<resource path>`: the
//   export's virtual workspace, one logical cluster or all of them (`*`, where a namespaced
//   list or watch is refused as kcp refuses it).
// Reads only (GET, list, watch); every other method is 405. Requests are counted by verb and
// resource. See store.ts, list.ts and watch.ts for the protocol, and README.md in bench/ for what
// it does not model.
import http2 from 'node:http2';
import type { AddressInfo, Socket } from 'node:net';
import type { Reply, Scope } from './list.js';
import { failure, listPage } from './list.js';
import { SimStore } from './store.js';
import { kubeconfigJson, simCredentials } from './tls.js';
import type { WatchLimits, WatchOut } from './watch.js';
import { Watchers, watchRequest } from './watch.js';

/** Options of {@link startKcpSim}; every field has a default. */
export interface KcpSimOptions extends Partial<WatchLimits> {
  /** Changes kept per resource for resuming watches (older resourceVersions get 410). Default 10,000. */
  readonly historyPerResource?: number;
  /** Open watches at most; more are answered 429. Default 1,000. */
  readonly maxWatches?: number;
  /** HTTP/2 streams per connection (kube-apiserver's default is 250). Default 250. */
  readonly maxConcurrentStreams?: number;
}

/** A running kcp-sim. */
export interface KcpSim {
  /** `https://127.0.0.1:<port>`. */
  readonly origin: string;
  readonly port: number;
  /** The shard's objects: put, delete, compact. */
  readonly store: SimStore;
  /** The CA (the server's own certificate), PEM. */
  readonly ca: string;
  /** Requests served, by `<verb> <resource>` (verb: get, list, watch, refused). */
  readonly requests: ReadonlyMap<string, number>;
  /** Open watches now. */
  readonly watches: () => number;
  /** Serves an export's virtual workspace; returns its URL (what an endpoint slice lists). */
  serveExport(providerCluster: string, exportName: string): string;
  /** A kubeconfig (JSON) for `/clusters/<workspace>` with the server's CA and token. */
  kubeconfig(workspace: string): string;
  /** Ends every open watch cleanly, as a restarting API server does (clients resume from their last resourceVersion). */
  dropWatches(): void;
  /** Ends every watch and connection and closes the server. */
  close(): Promise<void>;
}

interface Route {
  readonly cluster: string;
  readonly virtual: boolean;
  readonly rest: readonly string[];
}

// With allowHTTP1, HTTP/1.1 clients get node:http's request and response, which have every
// member used here (node's types name the HTTP/2 ones only).
type Req = http2.Http2ServerRequest;
type Res = http2.Http2ServerResponse;

function route(segments: readonly string[], exports: ReadonlySet<string>): Route | Reply {
  if (segments[0] === 'services' && segments[1] === 'apiexport') {
    if (!exports.has(`${segments[2] ?? ''}/${segments[3] ?? ''}`) || segments[4] !== 'clusters' || segments[5] === undefined) return failure(404, 'NotFound', 'no such virtual workspace');
    return { cluster: segments[5], virtual: true, rest: segments.slice(6) };
  }
  if (segments[0] === 'clusters' && segments[1] !== undefined) {
    if (segments[1] === '*') return failure(403, 'Forbidden', 'kcp-sim serves wildcard requests through a virtual workspace only');
    return { cluster: segments[1], virtual: false, rest: segments.slice(2) };
  }
  return failure(404, 'NotFound', 'the server could not find the requested resource');
}

/**
 * Starts kcp-sim on 127.0.0.1 (an ephemeral port).
 *
 * @example
 * ```ts
 * const sim = await startKcpSim({ bookmarkIntervalMs: 1_000 });
 * const url = sim.serveExport('root:provider', 'widgets.example.com');
 * await sim.close();
 * ```
 * @param options - history, limits, bookmark interval.
 * @returns the running server.
 */
export async function startKcpSim(options: KcpSimOptions = {}): Promise<KcpSim> {
  const limits: WatchLimits = {
    bookmarkIntervalMs: options.bookmarkIntervalMs ?? 60_000,
    maxBufferedBytes: options.maxBufferedBytes ?? 64 * 1024 * 1024,
    maxPendingChanges: options.maxPendingChanges ?? 100_000,
    maxTimeoutSeconds: options.maxTimeoutSeconds ?? 1_800,
  };
  const maxWatches = options.maxWatches ?? 1_000;
  const store = new SimStore(options.historyPerResource ?? 10_000);
  const creds = simCredentials();
  const exports = new Set<string>();
  const watchers = new Watchers();
  const requests = new Map<string, number>();
  const count = (key: string): void => void requests.set(key, (requests.get(key) ?? 0) + 1);

  // The answer to a request: a reply, or the server of a watch (written after its 200 header).
  const answer = (req: Req): Reply | ((out: WatchOut) => void) => {
    if (req.headers.authorization !== `Bearer ${creds.token}`) return failure(401, 'Unauthorized', 'Unauthorized');
    const url = new URL(req.url, 'https://127.0.0.1');
    let segments: string[];
    try {
      segments = url.pathname.split('/').slice(1).filter((s) => s !== '').map(decodeURIComponent);
    } catch {
      return failure(400, 'BadRequest', 'the path cannot be decoded');
    }
    const at = route(segments, exports);
    if ('status' in at) return at;
    const [root, a, b, ...tail] = at.rest;
    const [group, version, rest] = root === 'api' ? ['', a, [b, ...tail]] : root === 'apis' ? [a, b, tail] : ['', undefined, []];
    const namespaced = rest[0] === 'namespaces' && rest.length >= 3;
    const [namespace, plural, name, sub] = namespaced ? rest.slice(1) : [undefined, ...rest];
    const table = store.table(group ?? '', plural ?? '');
    if (table === undefined || table.resource.version !== version || (namespace !== undefined && !table.resource.namespaced) || sub !== undefined) {
      count(`refused ${plural ?? ''}`);
      return failure(404, 'NotFound', 'the server could not find the requested resource');
    }
    if (req.method !== 'GET') {
      count(`refused ${table.resource.plural}`);
      return failure(405, 'MethodNotAllowed', `kcp-sim serves reads only, not ${req.method}`);
    }
    if (at.cluster === '*' && namespace !== undefined) return failure(400, 'BadRequest', `cross-cluster LIST and WATCH are required to be cross-namespace, not scoped to namespace ${namespace}`);
    const scope: Scope = { cluster: at.cluster, namespace };
    if (name !== undefined) {
      count(`get ${table.resource.plural}`);
      const e = at.cluster === '*' ? undefined : table.objects.get(`${at.cluster}/${table.resource.namespaced ? (namespace ?? '') : ''}/${name}`);
      return e === undefined ? failure(404, 'NotFound', `${table.resource.plural} "${name}" not found`) : { status: 200, body: e.json };
    }
    const watch = url.searchParams.get('watch');
    if (watch === 'true' || watch === '1') {
      count(`watch ${table.resource.plural}`);
      if (watchers.size >= maxWatches) return { ...failure(429, 'TooManyRequests', `kcp-sim holds ${maxWatches} watches already`), retryAfterS: 1 };
      return watchRequest(table, scope, url.searchParams, () => store.resourceVersion, watchers, limits);
    }
    count(`list ${table.resource.plural}`);
    return listPage(table, scope, url.searchParams, store.resourceVersion);
  };
  const handle = (req: Req, res: Res): void => {
    const a = answer(req);
    res.writeHead(typeof a === 'function' ? 200 : a.status, { 'content-type': 'application/json', ...(typeof a !== 'function' && a.retryAfterS !== undefined ? { 'retry-after': String(a.retryAfterS) } : {}) });
    if (typeof a === 'function') a(res);
    else res.end(a.body);
  };

  const server = http2.createSecureServer({ key: creds.key, cert: creds.cert, allowHTTP1: true, settings: { maxConcurrentStreams: options.maxConcurrentStreams ?? 250 } }, (req, res) => {
    handle(req, res);
  });
  const sockets = new Set<Socket>();
  server.on('secureConnection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => {
      sockets.delete(s);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const bookmarks = setInterval(() => {
    watchers.bookmarkAll();
  }, limits.bookmarkIntervalMs);
  const port = (server.address() as AddressInfo).port;
  const origin = `https://127.0.0.1:${port}`;
  return {
    origin,
    port,
    store,
    ca: creds.cert,
    requests,
    watches: () => watchers.size,
    serveExport: (providerCluster, exportName) => {
      exports.add(`${providerCluster}/${exportName}`);
      return `${origin}/services/apiexport/${encodeURIComponent(providerCluster)}/${encodeURIComponent(exportName)}`;
    },
    dropWatches: () => {
      watchers.closeAll();
    },
    kubeconfig: (workspace) => kubeconfigJson(`${origin}/clusters/${workspace}`, creds.cert, creds.token),
    close: async () => {
      clearInterval(bookmarks);
      watchers.closeAll();
      const closed = new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
      });
      for (const s of sockets) s.destroy();
      await closed;
    },
  };
}
